"""Ask an agent for a move from any prompt-format state."""

from __future__ import annotations

import asyncio
import random

from fastapi import APIRouter

from duel.agents.mcts import MCTSAgent
from duel.agents.spec import SpecError, make_agent
from duel.engine import DuelError, InfoSet
from duel.schemas import schema_error
from server.games import GameError
from server.routes.games import ERRORS
from server.schemas import AgentMoveIn, AgentMoveOut

router = APIRouter(prefix="/agents", tags=["agents"])
MAX_SECONDS = 30.0
MAX_ITERATIONS = 200_000


@router.post("/move", response_model=AgentMoveOut, responses=ERRORS)
async def agent_move(body: AgentMoveIn) -> AgentMoveOut:
    """The move `agent` would play for the player to move in `state` (MCTS searches from the
    information set: hidden cards are sampled among the unseen ones)."""
    problem = schema_error("state", body.state)
    if problem:
        raise GameError(422, problem)
    try:
        agent = make_agent(body.agent)
        info = InfoSet.from_view(body.state)
    except (SpecError, DuelError) as exc:
        raise GameError(422, str(exc)) from None
    if isinstance(agent, MCTSAgent) and (agent.time > MAX_SECONDS
                                         or agent.iterations > MAX_ITERATIONS):
        raise GameError(422, f"mcts budget too large: at most time={MAX_SECONDS:g} or "
                             f"iterations={MAX_ITERATIONS}")
    state = info.sample(random.Random(0))
    legal = state.legal_moves()
    if not legal:
        raise GameError(422, "the game is over: there is no move to make")
    decision = await asyncio.to_thread(agent.choose, body.state, legal, random.Random(0))
    data = decision.move.to_json()
    return AgentMoveOut(move=data["move"], moveData=data["moveData"], details=decision.details)
