"""The agents on offer, and a move from any of them for any prompt-format state."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable
from typing import TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response

from duel.engine import InfoSet, Perspective
from duel.errors import IllegalMoveError, InvalidStateError
from duel.schemas import schema_error
from server.deps import Caller, HeaderToken, Manager
from server.errors import ERRORS
from server.schemas import AgentMoveIn, AgentMoveOut, AgentsOut

router = APIRouter(prefix="/agents", tags=["agents"])
T = TypeVar("T")
GONE = 499  # nginx's "client closed request"


@router.get("", response_model=AgentsOut, responses=ERRORS)
async def offered_agents(m: Manager) -> AgentsOut:
    """The agents this server offers: the built-in kinds with the parameters a request may set
    (and their caps), and the operator's agents by name (`operator_only`: for the operator's
    token alone). Configured agents show their kind, never their endpoint or file."""
    return AgentsOut.model_validate({"agents": m.catalogue.listing()})


async def _gone(request: Request) -> None:
    """Returns once the client has closed its connection (its body is read already: the next
    message the server gets from it is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def while_connected(request: Request, work: Awaitable[T]) -> T | None:
    """`work`, cancelled as soon as the client that asked for it goes away: a search nobody
    waits for must not hold a worker and its caller's share for the rest of its budget. None
    when it went."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_gone(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    if task.cancelled():
        return None
    return task.result()


@router.post("/move", response_model=AgentMoveOut, responses=ERRORS)
async def agent_move(body: AgentMoveIn, m: Manager, who: Caller, token: HeaderToken,
                     request: Request) -> AgentMoveOut | Response:
    """The move `agent` (a built-in spec or a configured name, see `GET /agents`) would play
    for the player to move in `state`, in the state's labels (MCTS searches from the
    information set: hidden cards are sampled among the unseen ones). The state may come from
    any server speaking the prompt's format; one that is malformed or inconsistent is refused
    with 422 naming the problem. Past the caps on concurrent searches (or LLM moves), per
    caller and in total, the answer is 429 with retry-after; so it is when the agent does not
    answer within the server's deadline."""
    problem = schema_error("state", body.state)
    if problem:
        raise InvalidStateError(problem)
    choice = m.catalogue.resolve(body.agent)
    m.catalogue.authorize([choice], token)
    agent = m.catalogue.build(choice.seat)
    info = InfoSet.from_view(body.state)
    state = info.sample(random.Random(0))
    legal = state.legal_moves()
    if not legal:
        raise InvalidStateError("the game is over: there is no move to make")
    # Every agent plays as player2, as the prompt says (and as in matches): when player 1 is to
    # move, it sees the state relabelled and its answer is mapped back to the state's labels.
    mover = Perspective.to_move(state)
    view = mover.view(state) if mover.swapped else body.state
    shown = mover.moves_out(legal)
    decision = await while_connected(
        request, m.thinker.choose(agent, choice.seat, view, shown, 0, who, queue=False))
    if decision is None:
        return Response(status_code=GONE)  # nobody reads it; the access log says what happened
    if decision.move not in shown:
        raise IllegalMoveError(f"agent {body.agent!r} found no legal move in this state")
    data = mover.move_in(decision.move).to_json()
    return AgentMoveOut(move=data["move"], moveData=data["moveData"], details=decision.details)
