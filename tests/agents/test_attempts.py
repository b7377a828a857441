"""The one attempt policy (duel.agents.attempts) with a scripted conversation: the engine's
verdicts in the seat's labels and words, the reason handed back before the next attempt, the
fallbacks and the resignation after the last, the details record, and the sync bridge. The
LLM and http: seats are this policy with their own conversations (tests/llm, test_http_agent)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from duel.agents.attempts import (
    AskingSeat,
    AttemptPolicy,
    Category,
    ConversationBase,
    Judge,
    Verdict,
    Wording,
    details,
)
from duel.agents.llm.agent import LLMAgent
from duel.agents.remote import HTTPAgent
from duel.agents.rule_based import RuleAgent
from duel.engine import InfoSet, Move, Perspective, new_game
from duel.errors import SpecError

WORDS = Wording("the answer is malformed", "the answer is not legal")


def position() -> tuple[dict[str, Any], list[Move]]:
    """Age I after the draft, player 1 to move, in that seat's labels (it is player2)."""
    state = new_game(5)
    rng = random.Random(0)
    while state.step_name == "WONDER_SELECTION":
        state = state.apply(rng.choice(state.legal_moves()))
    view = Perspective.of_player(1).view(state)
    return view, InfoSet.from_view(view).sample(random.Random(0)).legal_moves()


@dataclass
class Call:
    attempt: int
    category: str = ""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"attempt": self.attempt, "category": self.category, "error": self.error}


@dataclass
class Scripted(ConversationBase):
    """Answers from `answers` in turn (None: no answer came); ConversationBase writes the
    verdicts into its calls."""

    answers: list[Any]
    key: str = "test"
    wording: Wording = WORDS
    state: Any = None
    calls: list[Call] = field(default_factory=list)
    told: list[str] = field(default_factory=list)

    async def ask(self, attempt: int) -> Any:
        self.calls.append(Call(attempt))
        answer = self.answers.pop(0)
        if answer is None:
            self.calls[-1].category = "TRANSPORT"
        return answer

    def refused(self, verdict: Verdict) -> None:
        self.told.append(verdict.reason)

    def fields(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"first": 1}, {"last": 2}


def decide(policy: AttemptPolicy, conv: Scripted, seed: int = 0) -> Any:
    view, legal = position()
    return asyncio.run(policy.decide(conv, view, legal, random.Random(seed)))


def test_a_refused_answer_is_told_why_and_the_next_legal_one_plays() -> None:
    view, legal = position()
    illegal = Move("CONSTRUCT_BUILDING", card_index=0)  # covered in Age I
    assert illegal not in legal
    conv = Scripted([None, {"move": "FLY"}, illegal.to_json(),
                     Verdict(Category.EMPTY, None, "nothing said"), legal[2].to_json()])
    decision = decide(AttemptPolicy(5, "random", "test"), conv)
    assert decision.move == legal[2] and not decision.forfeit
    assert [c.category for c in conv.calls] == ["TRANSPORT", "SCHEMA", "ILLEGAL", "EMPTY", "OK"]
    # the reasons in the seat's words; an illegal move's in the seat's labels (it is player2)
    assert conv.told[0].startswith("the answer is malformed: unknown move 'FLY'")
    assert conv.told[1] == ("the answer is not legal: card 0 is covered by slot(s) [2, 3]; "
                            "active slots: [14, 15, 16, 17, 18, 19]")
    assert conv.told[2] == "nothing said"
    assert [c.error for c in conv.calls] == [None, *conv.told, None]
    assert decision.details == {"test": {
        "first": 1, "calls": [c.to_json() for c in conv.calls], "attempts": 5,
        "legal_at_attempt": 5, "fallback": None, "last": 2}}


@pytest.mark.parametrize("fallback", ["random", "rule", "forfeit"])
def test_after_the_last_attempt_the_fallback_plays_or_the_seat_resigns(fallback: str) -> None:
    view, legal = position()
    conv = Scripted([{"move": "FLY"}, None, "not a move"])
    decision = decide(AttemptPolicy(3, fallback, "test"), conv, seed=4)
    assert len(conv.told) == 1  # no reason is told after the last attempt
    assert decision.details["test"]["fallback"] == fallback
    assert decision.details["test"]["legal_at_attempt"] is None
    assert decision.details["test"]["attempts"] == 3
    if fallback == "forfeit":
        assert decision.forfeit and decision.move == legal[0]
    elif fallback == "rule":
        assert decision.move == RuleAgent().choose(view, legal, random.Random(4)).move
    else:
        assert decision.move == random.Random(4).choice(legal)


def test_the_judge_reads_the_state_only_to_explain_a_refusal() -> None:
    view, legal = position()
    judge = Judge(view, legal, WORDS)
    assert judge(legal[0].to_json()) == Verdict(Category.OK, legal[0])
    assert judge._state is None
    assert judge({"move": "DISCARD", "moveData": {"cardIndex": 0}}).category == Category.ILLEGAL
    assert judge._state is not None


@pytest.mark.parametrize("max_attempts, fallback, message", [
    (0, "random", "test: max_attempts must be at least 1, got 0"),
    (2, "pass", "test: fallback must be one of forfeit, random, rule"),
])
def test_a_bad_setting_is_a_spec_error_naming_the_seat(max_attempts: int, fallback: str,
                                                       message: str) -> None:
    with pytest.raises(SpecError, match=message):
        AttemptPolicy(max_attempts, fallback, "test")


def test_both_outside_seats_are_the_one_policy() -> None:
    """The LLM and http: seats share the policy, its details record and the sync bridge
    rather than each having its own."""
    for seat in (LLMAgent, HTTPAgent):
        assert issubclass(seat, AskingSeat)
        assert seat.choose is AskingSeat.choose and seat.achoose is AskingSeat.achoose
        assert not hasattr(seat, "_fallback") and not hasattr(seat, "_details")
    http = HTTPAgent("http://127.0.0.1:1", max_attempts=4, fallback="rule")
    assert (http.policy, http.max_attempts, http.fallback) == \
        (AttemptPolicy(4, "rule", "http"), 4, "rule")


def test_the_sync_choose_runs_the_conversation_on_the_shared_loop() -> None:
    from duel.agents import runner

    view, legal = position()

    class Seat(AskingSeat):
        spec = "scripted"
        policy = AttemptPolicy(2, "random", "test")
        loops: list[Any] = []

        def conversation(self, view: dict[str, Any], legal: list[Move]) -> Any:
            conv = Scripted([{"move": "FLY"}, legal[1].to_json()])
            seat = self

            class Context:
                async def __aenter__(self) -> Scripted:
                    seat.loops.append(asyncio.get_running_loop())
                    return conv

                async def __aexit__(self, *exc: Any) -> None:
                    return None

            return Context()

    seat = Seat()
    decision = seat.choose(view, legal, random.Random(0))
    assert decision.move == legal[1]
    assert decision.details["test"]["legal_at_attempt"] == 2
    assert seat.loops == [runner.loop()]


def test_details_count_the_attempts_started() -> None:
    conv = Scripted([])
    conv.calls = [Call(1), Call(1), Call(2)]  # an attempt may make several calls
    assert details(conv, 2, None)["test"]["attempts"] == 2
    assert details(Scripted([]), None, "random")["test"]["attempts"] == 0
