"""The LLM player: the rules prompt in, a validated move out, with re-asks and a fallback.

Per move: one conversation of at most `max_attempts` attempts. Each attempt is a call (transport
failures are retried with backoff honouring retry-after and do not use an attempt; only when
`transport_retries` run out, or the provider refuses the request, is the attempt spent), then the
checks, in order:
TRUNCATED (finish reason length), EMPTY, UNPARSABLE (no JSON object), SCHEMA (the engine's move
parser, whose model the structured-output schema is built from), ILLEGAL (the engine's legal
moves). A failed attempt is answered with the reason in the game's words, and the model is asked
again. After the last attempt the fallback (`forfeit`, `random` or `rule`) plays, and is
recorded as such. Every call is recorded.

Two things happen before an attempt counts, and spend none:
- a request refused for a parameter duel can change is adapted and sent again (adapt.py);
- a reply cut off while the model was still reasoning (reasoning tokens or thinking text, or
  nothing said) is recorded as TRUNCATED and the same question is asked again with twice the
  output budget, up to TRUNCATION_GROWTH (4) times the move's starting budget and never above the
  model's output limit (models.py). Only a reply cut off at that cap is the attempt's failure.
"""

from __future__ import annotations

import json
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_base

from duel.agents.base import Decision, RandomAgent
from duel.agents.llm import limits, runner
from duel.agents.llm.accounting import reasoning_label
from duel.agents.llm.adapt import Settings, adapt, effective, learn
from duel.agents.llm.legal_schema import legal_move_schema
from duel.agents.llm.models import ANSWER_TOKENS, TRUNCATION_GROWTH
from duel.agents.llm.prices import cost, price_table
from duel.agents.llm.providers import Provider, Reply, provider_defaults
from duel.agents.llm.schema import last_json_object
from duel.engine import InfoSet, InvalidMoveError, Move
from duel.engine.moves import MoveKind
from duel.errors import LLMConfigError, RequestError, SpecError, TransportError
from duel.prompts import Variant

OK = "OK"
TRANSPORT = "TRANSPORT"
TRUNCATED = "TRUNCATED"
EMPTY = "EMPTY"
UNPARSABLE = "UNPARSABLE"
SCHEMA = "SCHEMA"
ILLEGAL = "ILLEGAL"
FALLBACKS = ("forfeit", "random", "rule")
_MAX_RESENDS = 10  # requests per call at most: each refused parameter changes once
# What the structured output admits: any well-formed move, or exactly this turn's legal moves
# (the grammar then decides legality, and first-try legality measures nothing about the model).
CONSTRAINTS = ("shape", "legal")


@dataclass
class _Move:
    """One decision's record as it grows: its calls, the adaptations it made first, and the
    output budget (raised while the model reasons past it)."""

    calls: list[dict[str, Any]]
    adaptations: list[dict[str, str]]
    budget: int
    schema: dict[str, Any] | None = None  # the structured output's schema, if not the full one

    @staticmethod
    def limit_of(budget: int, s: Settings) -> int:
        return min(budget, s.max_output) if s.max_output else budget

    def limit(self, s: Settings) -> int:
        """The output limit to send: the budget, within the model's limit."""
        return self.limit_of(self.budget, s)


class WaitRetryAfter(wait_base):
    """Honour the server's retry-after (up to `retry_after_cap` seconds); else exponential
    backoff from `base` seconds, capped at `cap`, with jitter so that many games do not retry
    in lockstep."""

    def __init__(self, base: float, cap: float = 60.0, retry_after_cap: float = 600.0) -> None:
        self.base = base
        self.cap = cap
        self.retry_after_cap = retry_after_cap

    def __call__(self, retry_state: Any) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(exc, TransportError) and exc.retry_after is not None:
            return min(self.retry_after_cap, exc.retry_after)
        backoff = min(self.cap, self.base * 2 ** (retry_state.attempt_number - 1))
        return float(backoff * random.uniform(0.75, 1.0))


class LLMAgent:
    """`settings`, when given, is everything a call is sent with (spec.py builds it from the
    model table); else `temperature` and `max_tokens` with the provider's defaults.
    `model_reasons`: the model always reasons (the status line says so). `on_status`, when
    set, is called on the LLM loop as each call starts and ends."""

    on_status: Callable[[dict[str, Any]], None] | None = None

    def __init__(self, provider: Provider, variant: Variant, spec: str,
                 temperature: float | None = None, max_attempts: int = 3,
                 fallback: str = "random", max_tokens: int = ANSWER_TOKENS,
                 transport_retries: int = 6, backoff: float = 1.0, concurrency: int = 8,
                 endpoint: str = "", *, settings: Settings | None = None,
                 model_reasons: bool = False, constrain: str = "shape") -> None:
        if fallback not in FALLBACKS:
            raise SpecError(f"fallback must be one of {', '.join(FALLBACKS)}")
        if max_attempts < 1:
            raise SpecError("max_attempts must be at least 1")
        if settings is None:
            settings = replace(provider_defaults(provider), temperature=temperature,
                               max_tokens=max_tokens)
        if settings.max_tokens < 1:
            raise SpecError("max_tokens must be at least 1")
        if concurrency < 1:
            raise SpecError("concurrency must be at least 1")
        if constrain not in CONSTRAINTS:
            raise SpecError(f"constrain must be one of {', '.join(CONSTRAINTS)}")
        if transport_retries < 0 or backoff < 0:
            raise SpecError("transport_retries and backoff must not be negative")
        self.prices = price_table()  # read once: a bad DUEL_PRICES file fails here, not mid-game
        self.provider = provider
        self.variant = variant
        self.spec = spec
        self.base_settings = settings
        self.model_reasons = model_reasons
        self.max_attempts = max_attempts
        self.fallback = fallback
        self.transport_retries = transport_retries
        self.backoff = backoff
        self.concurrency = concurrency
        self.endpoint = endpoint or f"{provider.name}:{provider.model}"
        self.constrain = constrain

    # ------------------------------------------------------------------ settings
    def effective_settings(self) -> Settings:
        """The spec's settings with what the process has learned about this model."""
        return effective(self.base_settings, self.endpoint, self.provider.model)

    def settings(self) -> dict[str, Any]:
        """The settings calls are sent with now (after adaptation), as the transcript shows."""
        return self.effective_settings().public(self.provider.name, self.provider.model)

    def reasoning_label(self) -> str:
        """The reasoning setting this agent's results are played with."""
        return reasoning_label(self.settings())

    @property
    def temperature(self) -> float | None:
        return self.effective_settings().temperature

    @property
    def max_tokens(self) -> int:
        return self.effective_settings().max_tokens

    # ------------------------------------------------------------------ a move
    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return runner.run(self.achoose(view, legal, rng))

    async def achoose(self, view: dict[str, Any], legal: Sequence[Move],
                      rng: random.Random) -> Decision:
        legal = list(legal)
        state = InfoSet.from_view(view).sample(random.Random(0))  # prices and reasons only
        priced = [(m, state.price(m)) for m in legal]
        messages: list[dict[str, str]] = [
            {"role": "user", "content": self.variant.turn_message(view, priced)}]
        move = _Move([], [], self.effective_settings().max_tokens,
                     legal_move_schema(legal) if self.constrain == "legal" else None)
        for attempt in range(1, self.max_attempts + 1):
            reply, failure = await self._call(messages, attempt, move)
            while reply is not None and self._regrow(reply, move):
                reply, failure = await self._call(messages, attempt, move)
            if reply is None:
                if failure == "config":
                    raise LLMConfigError(move.calls[-1]["error"])
                # transport retries exhausted, or the request refused: the attempt is spent
                continue
            category, move_found, reason = self._check(reply, legal, state, move.budget)
            move.calls[-1]["category"] = category
            if reason:
                move.calls[-1]["error"] = reason
            if move_found is not None:
                return Decision(move_found, self._details(move, attempt, None))
            messages.append({"role": "assistant", "content": reply.text or "(empty reply)"})
            messages.append({"role": "user",
                             "content": self._reask(reason, legal, str(view.get("step", "")))})
        return self._fallback(view, legal, rng, move)

    def _regrow(self, reply: Reply, move: _Move) -> bool:
        """A reply cut off while reasoning, under the budget's cap: recorded as TRUNCATED and
        the budget doubled, to ask the same again (no attempt spent). False otherwise."""
        if not reply.truncated or not (reply.reasoning_tokens or reply.thinking
                                       or not reply.text.strip()):
            return False
        s = self.effective_settings()
        cap = s.max_tokens * TRUNCATION_GROWTH
        if s.max_output:
            cap = min(cap, s.max_output)
        if move.budget >= cap:
            return False
        grown = min(cap, move.budget * 2)
        move.calls[-1]["category"] = TRUNCATED
        move.calls[-1]["error"] = (f"cut off at {move.budget} tokens while reasoning "
                                   f"({reply.reasoning_tokens} reasoning tokens); asked again "
                                   f"with {grown}")
        move.budget = grown
        return True

    async def _call(self, messages: list[dict[str, str]], attempt: int,
                    move: _Move) -> tuple[Reply | None, str]:
        """One attempt's call, retrying transport failures (each retry recorded, none of them
        using up an attempt). Returns the reply, or None and why there is none."""
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(TransportError),
            wait=WaitRetryAfter(self.backoff),
            stop=stop_after_attempt(self.transport_retries + 1),
            reraise=True)
        start = time.perf_counter()
        try:
            async for try_ in retrying:
                with try_:
                    start = time.perf_counter()
                    try:
                        reply = await self._send(messages, attempt, move)
                    except TransportError as exc:
                        move.calls.append(self._record(attempt, TRANSPORT, None, start, str(exc),
                                                       move.budget))
                        raise
                    move.calls.append(self._record(attempt, OK, reply, start, "", move.budget))
                    return reply, ""
        except TransportError:
            return None, "transport"
        except RequestError as exc:
            move.calls.append(self._record(attempt, TRANSPORT, None, start, str(exc), move.budget))
            return None, "request"
        except LLMConfigError as exc:
            move.calls.append(self._record(attempt, TRANSPORT, None, start, str(exc), move.budget))
            return None, "config"
        return None, "transport"

    async def _send(self, messages: list[dict[str, str]], attempt: int, move: _Move) -> Reply:
        """One request, adapted until the server takes it: each refused parameter is changed
        once (adapt.py), and a change another call of the process made meanwhile is taken up
        without a record. Raises TransportError, RequestError or LLMConfigError."""
        sem = runner.semaphore(self.endpoint, self.concurrency)
        tried: set[str] = set()
        last = ""
        for _ in range(_MAX_RESENDS):
            s = self.effective_settings()
            sent = move.limit(s)
            started = time.monotonic()
            self._status("start", attempt, started, s)
            try:
                # The process's cap first: a slot of the cluster's is not held while waiting.
                async with sem, limits.slot(f"{self.provider.name}:{self.provider.model}"):
                    return await self.provider.complete(self.variant.system, messages, sent,
                                                        s.temperature, settings=s,
                                                        schema=move.schema)
            except RequestError as exc:
                if self.effective_settings() != s:
                    continue  # adapted by another call meanwhile: send with that
                found = adapt(s, sent, exc, self.provider.name,
                              self.provider.name == "anthropic", tried)
                if found is None:
                    raise
                changes, record = found
                if learn(self.endpoint, self.provider.model, changes):
                    move.adaptations.append(record.to_json())
                last = record.reason
            finally:
                self._status("end", attempt, started, s)
        raise LLMConfigError(f"{self.provider.name}: the server kept refusing the request after "
                             f"{_MAX_RESENDS} changes: {last}")

    def _status(self, event: str, attempt: int, started: float, s: Settings) -> None:
        if self.on_status is not None:
            self.on_status({"event": event, "attempt": attempt, "started": started,
                            "reasoning": self.model_reasons or s.reasons()})

    def _record(self, attempt: int, category: str, reply: Reply | None, start: float,
                error: str, budget: int) -> dict[str, Any]:
        model = self.provider.model
        rec: dict[str, Any] = {
            "provider": self.provider.name, "model": model,
            "variant": self.variant.name, "variant_hash": self.variant.hash,
            "attempt": attempt, "category": category,
            "latency_s": round(time.perf_counter() - start, 3),
            "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0, "cache_write_tokens": 0,
            "reasoning_tokens": 0,
            # a call that returned nothing costs nothing, if the model has a price at all
            "cost_usd": cost(model, 0, 0, 0, self.prices),
            "finish_reason": "", "raw": "", "thinking": "",
            "max_tokens": _Move.limit_of(budget, self.effective_settings()),
        }
        if reply is not None:
            # reasoning tokens are inside output_tokens (both providers bill them as output),
            # so they are priced once, as output
            rec.update(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
                       cached_tokens=reply.cached_tokens,
                       cache_write_tokens=reply.cache_write_tokens,
                       reasoning_tokens=reply.reasoning_tokens, thinking=reply.thinking,
                       finish_reason=reply.finish_reason,
                       raw=reply.raw if reply.raw is not None else reply.text,
                       cost_usd=cost(model, reply.input_tokens, reply.output_tokens,
                                     reply.cached_tokens, self.prices,
                                     reply.cache_write_tokens))
        if error:
            rec["error"] = error
        return rec

    def _check(self, reply: Reply, legal: list[Move], state: Any, budget: int
               ) -> tuple[str, Move | None, str]:
        """Category, the move if it is legal, and the reason in the game's words if not."""
        if reply.truncated or reply.finish_reason == "length":
            return TRUNCATED, None, (f"your answer was cut off at {budget} tokens; "
                                     "answer with the JSON object only")
        obj = reply.structured
        if obj is None:
            if not reply.text.strip():
                return EMPTY, None, "your answer was empty"
            obj = last_json_object(reply.text)
            if obj is None:
                return UNPARSABLE, None, "your answer contained no JSON object"
        try:
            move = Move.from_json(obj)
        except InvalidMoveError as exc:
            return SCHEMA, None, f"your move is malformed: {exc}"
        if move not in legal:
            return ILLEGAL, None, f"that move is not legal: {state.why_illegal(move)}"
        return OK, move, ""

    def _reask(self, reason: str, legal: list[Move], step: str) -> str:
        """The re-ask: why the move was refused, in the game's words, then what is valid now."""
        return (f"Your move was not accepted: {reason}.\n"
                f"The step is {step}. The legal moves now are:\n"
                + "\n".join(f"- {line}" for line in valid_moves(legal))
                + f"\nFor example: {json.dumps(legal[0].to_json())}\n"
                'Answer again with only the JSON object {"move": ..., "moveData": {...}}.')

    def _fallback(self, view: dict[str, Any], legal: list[Move], rng: random.Random,
                  move: _Move) -> Decision:
        if self.fallback == "forfeit":
            details = self._details(move, None, "forfeit")
            return Decision(legal[0], details, forfeit=True)
        if self.fallback == "rule":
            from duel.agents.rule_based import RuleAgent

            played = RuleAgent().choose(view, legal, rng).move
        else:
            played = RandomAgent().choose(view, legal, rng).move
        return Decision(played, self._details(move, None, self.fallback))

    def _details(self, move: _Move, legal_at: int | None,
                 fallback: str | None) -> dict[str, Any]:
        calls = move.calls
        return {"llm": {"calls": calls, "attempts": max((c["attempt"] for c in calls), default=0),
                        "legal_at_attempt": legal_at, "fallback": fallback,
                        "variant": self.variant.name, "variant_hash": self.variant.hash,
                        "adaptations": move.adaptations, "settings": self.settings(),
                        "constrain": self.constrain}}


def valid_moves(legal: list[Move]) -> list[str]:
    """The legal moves, one line per move kind, naming the valid slots and names."""
    groups: dict[str, list[Move]] = defaultdict(list)
    for m in legal:
        groups[m.kind].append(m)
    lines = []
    for kind, moves in groups.items():
        if kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD):
            lines.append(f"{kind} with cardIndex {', '.join(str(m.card_index) for m in moves)}")
        elif kind == MoveKind.CONSTRUCT_WONDER:
            slots: dict[str, list[int]] = defaultdict(list)
            for m in moves:
                slots[m.wonder].append(m.card_index)
            lines.append(f"{kind} with wonder " + "; ".join(
                f"{w} (cardIndex {', '.join(map(str, s))})" for w, s in slots.items()))
        elif kind == MoveKind.SELECT_WONDER:
            lines.append(f"{kind} with wonder {', '.join(m.wonder for m in moves)}")
        elif kind in (MoveKind.CHOOSE_PROGRESS_TOKEN,
                      MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD):
            lines.append(f"{kind} with progressToken {', '.join(m.token for m in moves)}")
        elif kind in (MoveKind.DESTROY_CARD, MoveKind.CONSTRUCT_FROM_DISCARD):
            lines.append(f"{kind} with cardName {', '.join(m.card_name for m in moves)}")
        elif kind == MoveKind.CHOOSE_STARTING_PLAYER:
            lines.append(f"{kind} with playerNumber "
                         f"{' or '.join(str(m.player_number) for m in moves)}")
        else:  # pragma: no cover - every kind is listed above
            lines.extend(json.dumps(m.to_json()) for m in moves)
    return lines
