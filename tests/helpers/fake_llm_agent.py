"""An in-process stand-in for an LLM seat, for the tests of what duel shows of LLM moves (the
status line, `duel match -v`, the viewer, the reports): it plays the first legal move, reports
its "call" through `on_status` as LLM agents do, and returns details shaped as LLMAgent's (each
call with reasoning tokens and thinking text, the settings and the adaptations)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from duel.agents.base import Decision
from duel.agents.kinds import AgentKind
from duel.agents.spec import register, unregister
from duel.engine import Move

SETTINGS = {"provider": "fake", "model": "fake-reasoner", "mode": "json_schema",
            "temperature": None, "token_param": "max_completion_tokens", "max_tokens": 16000,
            "reasoning_effort": "high", "thinking": None, "provider_pin": None}


def call_record(attempt: int = 1, category: str = "OK", thinking: str = "",
                reasoning_tokens: int = 300, error: str = "") -> dict[str, Any]:
    """One call as LLMAgent records it."""
    rec: dict[str, Any] = {
        "provider": "fake", "model": "fake-reasoner", "variant": "baseline",
        "variant_hash": "0" * 12, "attempt": attempt, "category": category, "latency_s": 1.5,
        "input_tokens": 1000, "output_tokens": 400, "cached_tokens": 0,
        "cache_write_tokens": 0, "reasoning_tokens": reasoning_tokens, "thinking": thinking,
        "max_tokens": 16000, "cost_usd": 0.001, "finish_reason": "stop", "raw": "{}"}
    if error:
        rec["error"] = error
    return rec


def llm_details(calls: list[dict[str, Any]], legal_at: int | None = 1,
                fallback: str | None = None,
                adaptations: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A decision's details as LLMAgent returns them."""
    return {"llm": {"calls": calls, "attempts": max(c["attempt"] for c in calls),
                    "legal_at_attempt": legal_at, "fallback": fallback,
                    "variant": "baseline", "variant_hash": "0" * 12,
                    "adaptations": adaptations or [], "settings": dict(SETTINGS)}}


class FakeLLMSeat:
    """Plays the first legal move. Each decision is one "call": `on_status` hears its start and
    end, and the details hold `thinking` (its text) and the first decision's `adaptations`."""

    def __init__(self, thinking: str = "I weigh the pyramid.", spec: str = "fakellm") -> None:
        self.spec = spec
        self.thinking = thinking
        self.on_status: Callable[[dict[str, Any]], None] | None = None
        self.decisions = 0

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        self.decisions += 1
        if self.on_status is not None:
            self.on_status({"event": "start", "attempt": 1, "started": time.monotonic(),
                            "reasoning": True})
            self.on_status({"event": "end", "attempt": 1, "started": time.monotonic(),
                            "reasoning": True})
        adaptations = [{"parameter": "temperature", "change": "not sent",
                        "reason": "the model takes only the default"}] \
            if self.decisions == 1 else []
        return Decision(legal[0], llm_details([call_record(thinking=self.thinking)],
                                              adaptations=adaptations))


@contextmanager
def registered(name: str = "fakellm", thinking: str = "I weigh the pyramid."
               ) -> Iterator[list[FakeLLMSeat]]:
    """The kind `name` builds FakeLLMSeat agents (listed as they are built) for the block."""
    built: list[FakeLLMSeat] = []

    def build() -> FakeLLMSeat:
        agent = FakeLLMSeat(thinking, name)
        built.append(agent)
        return agent

    register(AgentKind(name, "a fake LLM seat (tests)", factory=build))
    try:
        yield built
    finally:
        unregister(name)
