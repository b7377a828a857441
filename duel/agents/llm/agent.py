"""The LLM player: the rules prompt in, a validated move out, with re-asks and a fallback.

Per move: one conversation of at most `max_attempts` attempts. Each attempt is one send of the
transport (transport/send.py: transport failures are retried with backoff honouring retry-after
and do not use an attempt; only when `transport_retries` run out, or the provider refuses the
request, is the attempt spent), then the checks, in order:
TRUNCATED (finish reason length), EMPTY, UNPARSABLE (no JSON object), SCHEMA (the engine's move
parser, whose model the structured-output schema is built from), ILLEGAL (the engine's legal
moves). A failed attempt is answered with the reason in the game's words, and the model is asked
again. After the last attempt the fallback (`forfeit`, `random` or `rule`) plays, and is
recorded as such. Every call is recorded (calls.py). The re-asks, the fallback, the details
record and the sync `choose` are the attempt policy every outside seat shares (attempts.py);
this module holds what is the LLM's own: the conversation (the only writer of its call records),
and the reply's checks.

Two more things happen inside that send (transport/send.py, the one place for them), before an
attempt counts, and spend none:
- a request refused for a parameter duel can change is adapted and sent again (adapt.py);
- a reply cut off while the model was still reasoning (reasoning tokens or thinking text, or
  nothing said) is recorded as TRUNCATED and the same question is asked again with twice the
  output budget: up to the model's output limit (the table's; for a model it does not know,
  the largest any current model of its provider takes, its registry row's max_output, or the
  limit a refusal states), or, where the spec set max_tokens, TRUNCATION_GROWTH (4) times
  it. A reply cut off at the spec's cap is the attempt's failure; one cut off at the model's
  own limit stops the game (SeatFailedError: "MODEL needs more than N output tokens at
  EFFORT"), since every later move would be paid for and thrown away.
  The grown budget is where the model's later calls start, in this game and the rest of the
  run (budgets.py): a model that reasons starts at its output limit anyway, so this only
  matters under a user's cap or for a model the table does not know.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from duel.accounting.calls import LLMCall
from duel.accounting.games import reasoning_label
from duel.accounting.prices import cost, price_table
from duel.agents.attempts import (
    AskingSeat,
    AttemptPolicy,
    Category,
    ConversationBase,
    Verdict,
    Wording,
)
from duel.agents.llm.framing import turn as framing
from duel.agents.llm.framing.board_image import image_parts, render
from duel.agents.llm.framing.memory import SeatMemory
from duel.agents.llm.framing.renaming import renaming
from duel.agents.llm.legal_schema import legal_move_schema
from duel.agents.llm.models import ANSWER_TOKENS
from duel.agents.llm.providers.base import Provider, Reply, provider_defaults
from duel.agents.llm.providers.registry import capabilities
from duel.agents.llm.schema import last_json_object, structured_schema
from duel.agents.llm.transport.adapt import Settings, effective
from duel.agents.llm.transport.send import Request, Transport, Try
from duel.engine import InfoSet, Move
from duel.engine.moves import MoveKind
from duel.errors import LLMConfigError, SpecError
from duel.prompts import Variant
from duel.prompts.harness import Harness

# What the structured output admits: any well-formed move, or exactly this turn's legal moves
# (the grammar then decides legality, and first-try legality measures nothing about the model).
CONSTRAINTS = ("shape", "legal")
# The engine's refusals as the model hears them (and its calls record them).
WORDING = Wording(malformed="your move is malformed", illegal="that move is not legal")


class _Conversation(ConversationBase):
    """One decision with the model: the messages so far, the calls and the adaptations they
    made, and its transport (transport/send.py: the output budget, raised while the model
    reasons past it, and the request budget). It is the only writer of its call records: the
    transport's tries and the attempt policy's verdicts (`judge`) are written here."""

    key = "llm"
    wording = WORDING

    def __init__(self, agent: LLMAgent, view: dict[str, Any], legal: list[Move]) -> None:
        self.agent = agent
        self.view = view
        self.legal = legal
        self.state = InfoSet.from_view(view).sample(random.Random(0))  # prices and reasons only
        priced = [(m, self.state.price(m)) for m in legal]
        h, memory = agent.harness, agent.memory
        # the harness's parts (duel.agents.llm.framing.turn): none with the default harness
        self.structured = agent.effective_settings().mode in framing.STRUCTURED_MODES
        bounded = self.structured and agent.caps.grammar
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": framing.turn_message(
            h, agent.variant.turn_message(view, priced),
            memory.history(view) if h.history else None,
            memory.last_note(view) if h.notes else None, self.structured, bounded)}]
        self.calls: list[LLMCall] = []
        self.adaptations: list[dict[str, str]] = []
        self.transport = Transport(agent)
        # the structured output's schema, if not the full one
        self.schema = legal_move_schema(legal) if agent.constrain == "legal" else None
        if not h.is_default:
            self.schema = framing.reply_schema(h, self.schema or structured_schema(), bounded)
        self.image = render(view) if h.image else None
        if self.image is not None:  # the board as the model's provider takes a picture
            self.messages[0]["content"] = image_parts(
                agent.caps.image_form, self.messages[0]["content"], self.image.png)
        self.reply: Reply | None = None
        self.note: str | None = None

    @property
    def budget(self) -> int:
        """The decision's output budget now (the transport grows it)."""
        return self.transport.budget

    async def ask(self, attempt: int) -> Verdict | Any | None:
        reply = await self.model_reply(attempt)
        if reply is None:
            return None  # transport retries exhausted, or the request refused: attempt spent
        return self.harnessed(self.agent._check(reply, self.budget))

    async def model_reply(self, attempt: int) -> Reply | None:
        """One reply of the model to the messages so far (kept as `reply`), through the one
        transport (retried, adapted, asked again while cut off reasoning), each try recorded;
        None if none came. LLMConfigError if none can."""
        result = await self.transport.send(Request(self.messages, attempt, self.schema,
                                                   self.send_options()))
        for tried in result.tries:
            self.write(attempt, tried)
        self.adaptations.extend(result.adaptations)
        if result.reply is None and result.failure == "config":
            raise LLMConfigError(self.calls[-1].error or "")
        self.reply = result.reply
        return result.reply

    def write(self, attempt: int, tried: Try) -> None:
        """The call record of one try, priced: a call that returned nothing costs nothing, if
        the model has a price at all (on a provider that bills each reply itself, OpenRouter,
        always)."""
        agent = self.agent
        model = agent.provider.model
        call = LLMCall(
            provider=agent.provider.name, model=model, variant=agent.variant.name,
            variant_hash=agent.variant.hash, attempt=attempt, category=tried.category,
            latency_s=tried.latency_s,
            input_tokens=0, output_tokens=0, cached_tokens=0, cache_write_tokens=0,
            reasoning_tokens=0,
            cost_usd=0.0 if agent.caps.bills_itself
            else cost(model, 0, 0, 0, agent.prices), finish_reason="", raw="", thinking="",
            max_tokens=tried.max_tokens, error=tried.error or None,
            harness=None if agent.harness.is_default else agent.harness.label,
            retry=tried.retry)
        reply = tried.reply
        if reply is not None:
            # reasoning tokens are inside output_tokens (both providers bill them as output),
            # so they are priced once, as output
            call = replace(call, input_tokens=reply.input_tokens,
                           output_tokens=reply.output_tokens, cached_tokens=reply.cached_tokens,
                           cache_write_tokens=reply.cache_write_tokens,
                           reasoning_tokens=reply.reasoning_tokens, thinking=reply.thinking,
                           finish_reason=reply.finish_reason,
                           raw=reply.raw if reply.raw is not None else reply.text,
                           cost_usd=cost(model, reply.input_tokens, reply.output_tokens,
                                         reply.cached_tokens, agent.prices,
                                         reply.cache_write_tokens))
            call = replace(call, served_model=reply.served_model, request_id=reply.request_id)
            if reply.billed_usd is not None:  # the provider's own bill beats the price table
                call = replace(call, cost_usd=round(reply.billed_usd, 9), cost_source="provider")
        self.calls.append(call)

    def send_options(self) -> dict[str, Any]:
        """What the provider's call takes besides the messages and settings (the tools, for
        the tool loop)."""
        return {}

    def harnessed(self, checked: Verdict | Any) -> Verdict | Any:
        """The move of a checked reply under the seat's harness: the reasoning asked for in
        words becomes the call's thinking, a note is kept (duel.agents.llm.framing.turn)."""
        if isinstance(checked, Verdict) or self.agent.harness.is_default:
            return checked
        taken = checked if isinstance(checked, framing.Taken) else framing.take(
            self.agent.harness, checked)
        if taken.reasoning:  # the reasoning asked for in words is the call's thinking
            said = self.calls[-1].thinking
            self.calls[-1].thinking = f"{said}\n\n{taken.reasoning}" if said else taken.reasoning
        if taken.note is not None:
            self.note = taken.note
        return taken.move

    def refused(self, verdict: Verdict) -> None:
        said = self.reply.text if self.reply is not None else ""
        self.messages.append({"role": "assistant", "content": said or "(empty reply)"})
        self.messages.append({"role": "user", "content": self.agent._reask(
            verdict.reason, self.legal, str(self.view.get("step", "")),
            framing.reask_line(self.agent.harness, self.structured))})

    def fields(self) -> tuple[dict[str, Any], dict[str, Any]]:
        agent = self.agent
        rest: dict[str, Any] = {"variant": agent.variant.name, "variant_hash": agent.variant.hash,
                "adaptations": self.adaptations, "settings": agent.settings(),
                "constrain": agent.constrain}
        if not agent.harness.is_default:
            rest["harness"] = agent.harness.label
        if self.image is not None:
            rest["image"] = self.image.record()
        if agent.harness.notes:
            rest["note"] = self.note
            agent.memory.note = self.note  # given back next turn (None: it kept none)
        return {}, rest


class LLMAgent(AskingSeat):
    """`settings`, when given, is everything a call is sent with (spec.py builds it from the
    model table); else `temperature` and `max_tokens` with the provider's defaults.
    `model_reasons`: the model always reasons (the status line says so). `on_status`, when
    set, is called on the LLM loop as each call starts and ends."""

    on_status: Callable[[dict[str, Any]], None] | None = None
    tool_steps = 0  # look-ups per turn with tools=on (toolloop.ToolAgent); 0: tools off

    def __init__(self, provider: Provider, variant: Variant, spec: str,
                 temperature: float | None = None, max_attempts: int = 3,
                 fallback: str = "random", max_tokens: int = ANSWER_TOKENS,
                 transport_retries: int = 6, backoff: float = 1.0, concurrency: int = 8,
                 endpoint: str = "", *, settings: Settings | None = None,
                 model_reasons: bool = False, constrain: str = "shape",
                 harness: Harness | None = None, stop_after: int | None = None) -> None:
        self.policy = AttemptPolicy(max_attempts, fallback, "llm", stop_after)
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
        self.caps = capabilities(provider)  # what the provider does differently
        self.variant = variant
        self.spec = spec
        self.base_settings = settings
        self.model_reasons = model_reasons
        self.transport_retries = transport_retries
        self.backoff = backoff
        self.concurrency = concurrency
        self.endpoint = endpoint or f"{provider.name}:{provider.model}"
        self.constrain = constrain
        self.harness = harness or Harness()
        self.memory = SeatMemory()
        seed = self.harness.renaming_seed
        # names=renamed: what is sent is renamed and what comes back mapped back (renaming.py)
        self.renaming = None if seed is None else renaming(seed, variant.system)

    def observe(self, view: dict[str, Any], move: Move, after: dict[str, Any]) -> None:
        """A move of the game, as this seat saw it (duel.agents.observe): remembered for
        history=."""
        if self.harness.history:
            self.memory.observe(view, move, after)

    def recall(self, details: list[dict[str, Any]]) -> None:
        """The details of this seat's own moves in a game resumed from its record (oldest
        first): its last note is given back next turn as if it had never stopped."""
        if not self.harness.notes:
            return
        for d in details:
            llm = d.get("llm")
            if isinstance(llm, dict) and "note" in llm:
                self.memory.note = llm["note"]

    @property
    def observing(self) -> bool:
        """Whether the game's runner need tell this seat its moves."""
        return bool(self.harness.history)

    # ------------------------------------------------------------------ settings
    def effective_settings(self) -> Settings:
        """The spec's settings with what the process has learned about this model."""
        return effective(self.base_settings, self.endpoint, self.provider.model)

    def settings(self) -> dict[str, Any]:
        """The settings calls are sent with now (after adaptation), as the transcript shows."""
        return self.effective_settings().public(self.provider.name, self.provider.model)

    def budget_key(self) -> tuple[str, str, str]:
        """Whose output budgets are remembered together (budgets.py)."""
        return self.endpoint, self.provider.model, reasoning_label(self.base_settings.public(
            self.provider.name, self.provider.model))

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
    def conversation(self, view: dict[str, Any], legal: list[Move]) -> _Conversation:
        return _Conversation(self, view, legal)

    def _check(self, reply: Reply, budget: int) -> Verdict | Any:
        """What only the LLM seat can judge: a reply cut off, empty, or without a JSON object
        (a Verdict); else the move object, for the attempt policy to judge."""
        if reply.truncated or reply.finish_reason == "length":
            ask = "reason more briefly, then give the JSON object" \
                if self.harness.think == "text" else "answer with the JSON object only"
            return Verdict(Category.TRUNCATED, None, f"your answer was cut off at {budget} "
                                                     f"tokens; {ask}")
        if reply.refused:
            return Verdict(Category.REFUSAL, None, "you declined to answer; this is a board "
                                                   "game, and a move is all that is asked")
        obj = reply.structured
        if obj is None:
            if not reply.text.strip():
                return Verdict(Category.EMPTY, None, "your answer was empty")
            if self.harness.think == "text":
                found = framing.last_move_object(reply.text)
                if found is None:
                    return Verdict(Category.UNPARSABLE, None, "your answer ended without the "
                                   "JSON object of your move after your reasoning")
                return framing.take(self.harness, found[0], reply.text, found[1])
            obj = last_json_object(reply.text)
            if obj is None:
                return Verdict(Category.UNPARSABLE, None,
                               "your answer contained no JSON object")
        return obj

    def _reask(self, reason: str, legal: list[Move], step: str,
               closing: str = framing.REASK_LINE) -> str:
        """The re-ask: why the move was refused, in the game's words, then what is valid now."""
        return (f"Your move was not accepted: {reason}.\n"
                f"The step is {step}. The legal moves now are:\n"
                + "\n".join(f"- {line}" for line in valid_moves(legal))
                + f"\nFor example: {json.dumps(legal[0].to_json())}\n" + closing)


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
