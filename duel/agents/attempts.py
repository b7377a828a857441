"""The one attempt policy of every seat that asks something outside the process: an LLM
(`llm:`), another server (`http:`).

A decision is a conversation of at most `max_attempts` attempts. An attempt asks once (a seat
may retry its transport inside an attempt, as the LLM seat does) and its answer is judged: first
by the seat, for what only it can see (a reply cut off, empty, not JSON, an HTTP refusal), then
by the engine, the same for every seat: ``SCHEMA`` (the move parser) and ``ILLEGAL`` (the legal
moves, the reason given in the seat's labels). A refused answer is told to the seat with its
reason, for the next attempt (an LLM hears it as a re-ask; an HTTP bot's protocol carries no
reason). After the last attempt the fallback plays (``random``, ``rule``) or the seat resigns
(``forfeit``). Every call is recorded; the decision's details hold the calls under the seat's
key, ``{"llm": {...}}`` or ``{"http": {...}}``, with the attempts used, the attempt whose move
was legal and the fallback played, between the seat's own fields.

Agents keep the sync `choose` of the agent protocol; :class:`AskingSeat` runs its `achoose` on
the process's one event loop (``duel.agents.runner``), where clients and concurrency caps
are shared by every game.

The policy is the one place of re-asks; retrying a seat's transport is the seat's (the LLM
seat's one transport, duel.agents.llm.transport.send), and the records of its calls are the
conversation's to write: the policy asks it to judge each answer (`Conversation.judge`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from enum import StrEnum
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

from duel.agents import runner, waiting
from duel.agents.account import HARNESS_CAUSES, decision_cause
from duel.agents.base import Decision, RandomAgent
from duel.engine import GameState, InfoSet, InvalidMoveError, Move
from duel.errors import SeatFailedError, SpecError

FALLBACKS = ("forfeit", "random", "rule")
A = TypeVar("A")


class Category(StrEnum):
    """What became of one call, as its record names it."""

    OK = "OK"  # a legal move
    TRANSPORT = "TRANSPORT"  # no reply: connection, timeout, 429, 5xx (or a refused request)
    TRUNCATED = "TRUNCATED"  # cut off at the output limit (LLM)
    EMPTY = "EMPTY"  # nothing said (LLM)
    REFUSAL = "REFUSAL"  # the model declined to answer (LLM: a refusal stop reason or part)
    REFUSED = "REFUSED"  # a 4xx other than 429 (HTTP)
    UNPARSABLE = "UNPARSABLE"  # no JSON object
    SCHEMA = "SCHEMA"  # not a well-formed move
    ILLEGAL = "ILLEGAL"  # not a legal move now
    TOOLS = "TOOLS"  # the reply called look-up tools; the turn goes on (LLM, tools=on)
    TOOL_STEPS = "TOOL_STEPS"  # the turn's tool steps used up without a move (LLM, tools=on)


@dataclass(frozen=True)
class Verdict:
    """The judgement of one answer: its category, the move if it is legal, else why not."""

    category: Category
    move: Move | None = None
    reason: str = ""


@dataclass(frozen=True)
class Wording:
    """How a seat's records word the engine's refusals (kept per seat: they are recorded)."""

    malformed: str  # e.g. "your move is malformed", then ": " and the parser's message
    illegal: str  # e.g. "that move is not legal", then ": " and the engine's reason


class CallRecord(Protocol):
    """One call of a conversation as its seat records it; the policy writes the verdict on its
    answer into `category` and `error`."""

    category: str
    error: str | None

    @property
    def attempt(self) -> int | None: ...

    def to_json(self) -> dict[str, Any]: ...


class Conversation(Protocol):
    """One decision's exchange with the outside, as a seat holds it."""

    @property
    def key(self) -> str:
        """The details' key: "llm", "http"."""

    @property
    def wording(self) -> Wording: ...

    @property
    def state(self) -> GameState | None:
        """A sample of the view, if the seat made one (the reasons use it)."""

    @property
    def calls(self) -> Sequence[CallRecord]: ...

    async def ask(self, attempt: int) -> Verdict | Any | None:
        """Ask once (recording every call): None if no answer came (the attempt is spent), a
        Verdict if the seat refuses the answer itself, else the move object to judge."""

    def judge(self, answer: Verdict | Any, engine: Judge) -> Verdict:
        """The verdict on `answer` (the seat's own Verdict, else the engine's), written into
        the record of the call that gave it: the conversation writes its records."""

    def refused(self, verdict: Verdict) -> None:
        """The answer was refused: say why, for the next attempt."""

    def fields(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The seat's own detail fields: those written before the calls, and those after."""


class ConversationBase:
    """What most conversations share: nothing to open or release around a decision (override
    ``__aenter__``/``__aexit__`` to hold a client), no sample of the view, the verdict written
    into the last call's record, and no channel for a reason (override :meth:`refused`)."""

    state: GameState | None = None
    calls: Sequence[CallRecord]

    def judge(self, answer: Verdict | Any, engine: Judge) -> Verdict:
        verdict = answer if isinstance(answer, Verdict) else engine(answer)
        call = self.calls[-1]
        call.category = verdict.category.value
        if verdict.reason:
            call.error = verdict.reason
        return verdict

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        return None

    def refused(self, verdict: Verdict) -> None:
        """The next attempt asks the same question."""


class Judge:
    """The engine's verdict on a move object: well formed (``Move.from_json``), then legal.
    The reason for an illegal move comes from a sample of the seat's view, so it is in the
    seat's labels; `state` may give that sample if the seat has one already."""

    def __init__(self, view: dict[str, Any], legal: Sequence[Move], wording: Wording,
                 state: GameState | None = None) -> None:
        self.view = view
        self.legal = legal
        self.wording = wording
        self._state = state

    def state(self) -> GameState:
        if self._state is None:  # only to explain a refusal
            self._state = InfoSet.from_view(self.view).sample(random.Random(0))
        return self._state

    def __call__(self, obj: Any) -> Verdict:
        try:
            move = Move.from_json(obj)
        except InvalidMoveError as exc:
            return Verdict(Category.SCHEMA, None, f"{self.wording.malformed}: {exc}")
        if move not in self.legal:
            return Verdict(Category.ILLEGAL, None,
                           f"{self.wording.illegal}: {self.state().why_illegal(move)}")
        return Verdict(Category.OK, move)


@dataclass(frozen=True)
class AttemptPolicy:
    """At most `max_attempts` attempts per decision, then `fallback`. `seat` ("llm", "http")
    names the seat in the errors of a bad setting (SpecError). `stop_after`: decisions in a
    row lost to the harness (duel.agents.account.HARNESS_CAUSES) at which the game stops with
    SeatFailedError instead of playing the fallback once more (0: never; None: the process's
    default, duel.agents.waiting.stop_after)."""

    max_attempts: int
    fallback: str
    seat: str
    stop_after: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "stop_after", waiting.stop_after(self.stop_after))
        if self.fallback not in FALLBACKS:
            raise SpecError(f"{self.seat}: fallback must be one of {', '.join(FALLBACKS)}")
        if self.max_attempts < 1:
            raise SpecError(f"{self.seat}: max_attempts must be at least 1, got "
                            f"{self.max_attempts}")

    async def decide(self, conv: Conversation, view: dict[str, Any], legal: list[Move],
                     rng: random.Random) -> Decision:
        """The decision `conv` comes to: a legal answer, else the fallback."""
        judge = Judge(view, legal, conv.wording, conv.state)
        for attempt in range(1, self.max_attempts + 1):
            answer = await conv.ask(attempt)
            if answer is None:
                continue
            verdict = conv.judge(answer, judge)  # the conversation writes its own records
            if verdict.move is not None:
                return Decision(verdict.move, details(conv, attempt, None))
            if attempt < self.max_attempts:
                conv.refused(verdict)
        return self.fall_back(conv, view, legal, rng)

    def fall_back(self, conv: Conversation, view: dict[str, Any], legal: list[Move],
                  rng: random.Random) -> Decision:
        """After the last attempt: resign (the move is never played) or play the fallback's."""
        if self.fallback == "forfeit":
            return Decision(legal[0], details(conv, None, "forfeit"), forfeit=True)
        if self.fallback == "rule":
            from duel.agents.rule_based import RuleAgent  # the rule agent's heuristics: on need

            played = RuleAgent().choose(view, legal, rng).move
        else:
            played = RandomAgent().choose(view, legal, rng).move
        return Decision(played, details(conv, None, self.fallback))


def never_stopping(agent: A) -> A:
    """`agent` with stop_after=0 if it asks outside: on a server the game is a person's or a
    bot's, so a seat's harness failures leave its moves to the fallback (recorded, and counted
    by its account) instead of stopping the game."""
    policy = getattr(agent, "policy", None)
    if isinstance(policy, AttemptPolicy):
        setattr(agent, "policy", replace(policy, stop_after=0))  # noqa: B010 - any agent type
    return agent


def details(conv: Conversation, legal_at: int | None, fallback: str | None) -> dict[str, Any]:
    """A decision's details: ``{key: {<seat's first fields>, "calls", "attempts",
    "legal_at_attempt", "fallback", <seat's other fields>}}``. `attempts` counts the attempts
    started (a call that got no reply spends one too)."""
    first, rest = conv.fields()
    calls = conv.calls
    return {conv.key: {**first, "calls": [c.to_json() for c in calls],
                       "attempts": max((c.attempt or 0 for c in calls), default=0),
                       "legal_at_attempt": legal_at, "fallback": fallback, **rest}}


class AskingSeat:
    """The agent protocol for a seat that asks outside: a sync `choose` that runs `achoose` on
    the process's event loop, and `achoose` that opens one conversation per decision and lets
    the policy conclude it. Subclasses set `policy` and define :meth:`conversation`."""

    spec: str
    policy: AttemptPolicy

    @property
    def max_attempts(self) -> int:
        return self.policy.max_attempts

    @property
    def fallback(self) -> str:
        return self.policy.fallback

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return runner.run(self.achoose(view, legal, rng))

    async def achoose(self, view: dict[str, Any], legal: Sequence[Move],
                      rng: random.Random) -> Decision:
        legal = list(legal)
        async with self.conversation(view, legal) as conv:
            decision = await self.policy.decide(conv, view, legal, rng)
        self._count_harness(decision)
        return decision

    _harness_row = 0  # decisions in a row lost to the harness, this seat's so far

    def _count_harness(self, decision: Decision) -> None:
        """Stop (SeatFailedError) at the policy's `stop_after`-th decision in a row whose
        fallback the harness caused, not the agent: its move is not played for it."""
        cause = decision_cause(decision.details)
        if cause not in HARNESS_CAUSES:
            self._harness_row = 0
            return
        self._harness_row += 1
        limit = self.policy.stop_after or 0
        if limit and self._harness_row >= limit:
            asked: Any = next(iter(decision.details.values()), {})
            calls: list[Any] = (asked.get("calls") or [{}]) if isinstance(asked, dict) else [{}]
            said = str(calls[-1].get("error") or calls[-1].get("category") or "")
            raise SeatFailedError(
                f"{self.spec}: {self._harness_row} moves in a row would have been fallbacks, "
                f"not the agent's ({cause}: {said[:200]}); stopped rather than play on its "
                f"behalf (the seat's stop_after=, or --stop-after-fallbacks N; 0: never)")

    def conversation(self, view: dict[str, Any], legal: list[Move]
                     ) -> AbstractAsyncContextManager[Conversation]:
        raise NotImplementedError
