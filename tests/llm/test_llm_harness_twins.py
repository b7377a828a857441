"""Twin games for the harness: two games that differ only in a face-down card give the LLM seat
byte-identical requests (history, notes and all) until that card shows, and differ after."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from helpers.fake_harness_model import HarnessModel
from helpers.fake_llm_server import FakeLLMServer

from duel.agents import make_agent
from duel.agents.observe import inform
from duel.engine import Deal, Seat, new_game
from duel.match import agent_rng, decide

SLOT = 3  # face down at the start of Age I (the second row), freed late


def twin(deal: Deal) -> Deal:
    """The deal with Age I's slot 3 swapped for a card removed from Age I."""
    age1, removed1 = list(deal.age1), list(deal.removed1)
    age1[SLOT], removed1[0] = removed1[0], age1[SLOT]
    return dataclasses.replace(deal, age1=tuple(age1), removed1=tuple(removed1))


def requests(deal: Deal, settings: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The request bodies the LLM seat (player 1) sends in a game against rule on `deal`,
    under one game code; each with whether slot 3 is face up in its state."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(HarnessModel()) as srv:
        llm = make_agent(f"llm:openai:gpt-4o-mini,base_url={srv.url}/v1,api=chat,{settings}")
        agents = [llm, make_agent("rule")]
        state = new_game(deal=deal, code="TWINGAME")
        rngs = (agent_rng(7, Seat.P1), agent_rng(7, Seat.P2))
        shown: list[bool] = []
        while not state.is_terminal():
            asked = len(srv.requests)
            move, _, _ = decide(agents[state.current], state, rngs[state.current])
            face_up = state.age > 1 or bool(state.pyramid[SLOT] < 0
                                            or (state.face_up >> SLOT) & 1)
            shown += [face_up] * (len(srv.requests) - asked)
            after = state.apply(move)
            inform(agents, state, move, after)
            state = after
        return [(json.dumps(r["body"]), up) for r, up in zip(srv.requests, shown, strict=True)]


@pytest.mark.parametrize("settings", ["history=all,notes=on", "history=all,think=text",
                                      "image=on"])
def test_twin_games_send_the_same_requests_until_the_card_shows(
        settings: str, monkeypatch: pytest.MonkeyPatch) -> None:
    deal = new_game(11).deal
    a = requests(deal, settings, monkeypatch)
    b = requests(twin(deal), settings, monkeypatch)
    hidden = [i for i, (_, up) in enumerate(a) if not up]
    assert len(hidden) >= 8  # the draft and Age I's first turns
    for i in hidden:
        assert a[i] == b[i], f"request {i} differs while slot {SLOT} is face down"
    if "history" in settings:
        assert any("revealed:" in r for r, _ in a)
    assert a != b  # the twins do differ once the card shows: the test can see a difference
