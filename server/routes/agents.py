"""The agents on offer, and a move from any of them for any prompt-format state."""

from __future__ import annotations

import copy
import random
from typing import Any

from fastapi import APIRouter

from duel.engine import InfoSet, Perspective
from duel.errors import IllegalMoveError, InvalidStateError
from duel.schemas import schema_error
from server.deps import HeaderToken, Manager
from server.errors import ERRORS
from server.schemas import AgentMoveIn, AgentMoveOut, AgentsOut

router = APIRouter(prefix="/agents", tags=["agents"])


def tolerate_reference_quirks(state: dict[str, Any]) -> dict[str, Any]:
    """The reference server keeps listing a token taken from the box by the Great Library in
    `tokensUnavailable` (the rules prompt's own example shows AGRICULTURE both there and in
    player2's tokens). A token in a city is not in the box: drop it from the box's list."""
    taken = {t for p in ("player1", "player2") if isinstance(state.get(p), dict)
             for t in state[p].get("tokens", []) if isinstance(t, str)}
    box = state.get("tokensUnavailable")
    if not taken or not isinstance(box, list) or not taken.intersection(box):
        return state
    fixed = copy.deepcopy(state)
    fixed["tokensUnavailable"] = [t for t in box if t not in taken]
    return fixed


@router.get("", response_model=AgentsOut, responses=ERRORS)
async def offered_agents(m: Manager) -> AgentsOut:
    """The agents this server offers: the built-in kinds with the parameters a request may set
    (and their caps), and the operator's agents by name (`operator_only`: for the operator's
    token alone). Configured agents show their kind, never their endpoint or file."""
    return AgentsOut.model_validate({"agents": m.catalogue.listing()})


@router.post("/move", response_model=AgentMoveOut, responses=ERRORS)
async def agent_move(body: AgentMoveIn, m: Manager, token: HeaderToken) -> AgentMoveOut:
    """The move `agent` (a built-in spec or a configured name, see `GET /agents`) would play
    for the player to move in `state`, in the state's labels (MCTS searches from the
    information set: hidden cards are sampled among the unseen ones). The state may come from
    any server speaking the prompt's format; one that is malformed or inconsistent is refused
    with 422 naming the problem."""
    problem = schema_error("state", body.state)
    if problem:
        raise InvalidStateError(problem)
    state_json = tolerate_reference_quirks(body.state)
    choice = m.catalogue.resolve(body.agent)
    m.catalogue.authorize([choice], token)
    agent = m.catalogue.build(choice.seat)
    info = InfoSet.from_view(state_json)
    state = info.sample(random.Random(0))
    legal = state.legal_moves()
    if not legal:
        raise InvalidStateError("the game is over: there is no move to make")
    # Every agent plays as player2, as the prompt says (and as in matches): when player 1 is to
    # move, it sees the state relabelled and its answer is mapped back to the state's labels.
    mover = Perspective.to_move(state)
    view = mover.view(state) if mover.swapped else state_json
    shown = mover.moves_out(legal)
    with m.searches.slot():
        decision = await m.think(agent.choose, view, shown, random.Random(0))
    if decision.move not in shown:
        raise IllegalMoveError(f"agent {body.agent!r} found no legal move in this state")
    data = mover.move_in(decision.move).to_json()
    return AgentMoveOut(move=data["move"], moveData=data["moveData"], details=decision.details)
