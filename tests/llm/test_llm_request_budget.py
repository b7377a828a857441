"""One stated request budget a decision (issue 42 item 2): the bound of the nested loops is
computed once (duel.agents.llm.transport.request_budget), holds for every decision, and a request
past it is not sent."""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers.llm_seat import play_card_position

from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.providers import Reply
from duel.agents.llm.transport.adapt import Settings
from duel.agents.llm.transport.request_budget import RequestBudget
from duel.errors import LLMConfigError, TransportError
from duel.prompts import get_variant


class Failing:
    """A provider every request of which fails in transport (a dead endpoint): the loops run
    to their ends."""

    name = "scripted"
    model = "scripted"

    def __init__(self) -> None:
        self.sent = 0

    async def complete(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                       temperature: float | None, **_: Any) -> Reply:
        self.sent += 1
        raise TransportError("scripted: connection failed")

    async def close(self) -> None:
        pass


def seat(provider: Any, **kwargs: Any) -> LLMAgent:
    settings = Settings("json_schema", None, "max_tokens", 1024, grow_to=4096)
    return LLMAgent(provider, get_variant("baseline"), "llm:scripted", settings=settings,
                    backoff=0, **kwargs)


def test_the_defaults_state_350_requests_and_their_tokens() -> None:
    agent = seat(Failing())
    budget = RequestBudget.of(agent, 1024)
    assert (budget.replies, budget.doublings, budget.tries, budget.resends) == (3, 2, 7, 10)
    assert budget.requests == 350 and budget.output_tokens == 350 * 4096
    assert "350 requests" in budget.words()


def test_a_decision_never_sends_more_than_its_budget() -> None:
    provider = Failing()
    agent = seat(provider, transport_retries=2, max_attempts=2)
    view, legal = play_card_position()
    d = agent.choose(view, legal, random.Random(0))
    budget = RequestBudget.of(agent, 1024)
    assert 0 < provider.sent <= budget.requests
    assert len(d.details["llm"]["calls"]) == provider.sent  # each request recorded


def test_a_request_past_the_budget_is_not_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = Failing()
    agent = seat(provider, transport_retries=6)
    real = RequestBudget.of

    def small(agent: Any, start: int) -> RequestBudget:
        b = real(agent, start)
        return RequestBudget(1, 0, 4, 1, b.max_output)  # 4 requests in all

    monkeypatch.setattr(RequestBudget, "of", staticmethod(small))
    view, legal = play_card_position()
    with pytest.raises(LLMConfigError, match="reached its request budget, 4 requests"):
        agent.choose(view, legal, random.Random(0))
    assert provider.sent == 4
