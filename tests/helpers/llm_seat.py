"""The LLM seat's test position, move JSON text, and LLM agents pointed at a fake server."""

from __future__ import annotations

import json
import random
from typing import Any

from helpers.fake_llm_server import FakeLLMServer

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.engine import InfoSet, Move, new_game
from duel.engine.perspective import Perspective


def play_card_position() -> tuple[dict[str, Any], list[Move]]:
    """Age I after the draft, player 1 to move, as the LLM seat sees it (it is player2)."""
    state = new_game(5)
    rng = random.Random(0)
    while state.step_name == "WONDER_SELECTION":
        state = state.apply(rng.choice(state.legal_moves()))
    view = Perspective.of_player(1).view(state)
    return view, InfoSet.from_view(view).sample(random.Random(0)).legal_moves()


def mv(move: str, **data: Any) -> str:
    return json.dumps({"move": move, "moveData": data})


def openai_agent(srv: FakeLLMServer, extra: str = "") -> LLMAgent:
    agent = make_agent(f"llm:openai:gpt-4o-mini,base_url={srv.url}/v1,api=chat,backoff=0.01{extra}")
    assert isinstance(agent, LLMAgent)
    return agent


def anthropic_agent(srv: FakeLLMServer, extra: str = "") -> LLMAgent:
    agent = make_agent(f"llm:anthropic:claude-sonnet-4-6,base_url={srv.url},backoff=0.01{extra}")
    assert isinstance(agent, LLMAgent)
    return agent
