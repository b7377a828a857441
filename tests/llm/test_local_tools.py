"""tools=on with the real local model: llama.cpp's OpenAI-compatible server takes the tool set
(its chat template renders the tools; its parser returns `tool_calls`), and every turn ends in a
legal move or a recorded fallback. Slow: a few decisions of one game, not a whole game (at
several calls per decision a whole game takes longer on 2 cores than the suite's budget)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from duel.agents import make_agent
from duel.agents.llm.servers.local import LocalServer
from duel.agents.llm.toolloop import ToolAgent
from duel.engine import Seat, new_game
from duel.match import agent_rng, decide

pytestmark = pytest.mark.slow
DECISIONS = 3


@pytest.fixture(autouse=True)
def one_server() -> Iterator[None]:
    try:
        yield
    finally:
        LocalServer.shared().stop()


def test_the_local_model_plays_a_game_s_first_turns_through_the_tools() -> None:
    agent = make_agent("llm:local,tools=on,tool_steps=2,max_attempts=2,max_tokens=200")
    assert isinstance(agent, ToolAgent)
    opponent = make_agent("random")
    state = new_game(3)
    rng = random.Random(3)
    while state.step_name == "WONDER_SELECTION":  # the draft by the opponent's hand: quicker
        state = state.apply(rng.choice(state.legal_moves()))
    made = 0
    while made < DECISIONS and not state.is_terminal():
        mover = agent if state.current == 0 else opponent
        move, details, forfeit = decide(mover, state, agent_rng(3, Seat.of_index(state.current)))
        assert not forfeit
        if mover is agent:
            made += 1
            llm = details["llm"]
            assert llm["legal_at_attempt"] is not None or llm["fallback"] == "random"
            assert all(c["tool_calls"] is not None for c in llm["calls"])
            assert all(c["category"] != "TRANSPORT" for c in llm["calls"]), llm["calls"]
            assert llm["tools"]["used"] <= 2
        state = state.apply(move)
