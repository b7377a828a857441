"""Games: create, read as a seat or spectator, legal moves, moves, events, transcript."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from sse_starlette.sse import EventSourceResponse

from duel.agents.spec import SpecError
from duel.engine import DuelError
from duel.schemas import schema_error
from server.games import GameError, GameManager, LiveGame
from server.schemas import (
    ErrorOut,
    GameCreate,
    GameCreated,
    MoveAccepted,
    MoveIn,
    MovesOut,
    PricedMove,
)

router = APIRouter(prefix="/games", tags=["games"])
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut}, 403: {"model": ErrorOut}, 404: {"model": ErrorOut},
    409: {"model": ErrorOut}, 413: {"model": ErrorOut}, 422: {"model": ErrorOut},
    429: {"model": ErrorOut}}


def manager(request: Request) -> GameManager:
    m: GameManager = request.app.state.manager
    return m


Manager = Annotated[GameManager, Depends(manager)]


def bearer(authorization: Annotated[str | None, Header()] = None,
           token: Annotated[str | None, Query(max_length=200)] = None) -> str | None:
    """The caller's token: `Authorization: Bearer T`, or `?token=T` (EventSource cannot set
    headers)."""
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value:
            raise GameError(401, "expected an Authorization: Bearer token")
        return value.strip()
    return token


Token = Annotated[str | None, Depends(bearer)]


def _game(m: GameManager, code: str) -> LiveGame:
    return m.get(code)


@router.post("", status_code=201, response_model=GameCreated, responses=ERRORS)
async def create_game(body: GameCreate, m: Manager) -> GameCreated:
    """Seats are agent specs or "external"; each external seat gets a bearer token (shown once)."""
    seats = [body.player1.strip(), body.player2.strip()]
    if body.deal is not None and body.seed is not None:
        raise GameError(422, "give a seed or a deal, not both")
    if body.deal is not None:
        problem = schema_error("deal", body.deal)
        if problem:
            raise GameError(422, problem)
    try:
        game, tokens = await m.create(seats, body.seed, body.deal, body.open_box,
                                      body.time_per_move, body.fallback)
    except (SpecError, DuelError, ValueError) as exc:
        raise GameError(422, str(exc)) from None
    return GameCreated(code=game.code, tokens=tokens, state=game.view_for(None))


@router.get("/{code}", responses=ERRORS)
async def get_state(code: str, m: Manager, token: Token) -> dict[str, Any]:
    """The prompt's JSON state: as the caller's seat sees it (the seat is player2), or the public
    view for a spectator without a token."""
    game = _game(m, code)
    seat = m.seat_of(code, token) if token else None
    return game.view_for(seat)


@router.get("/{code}/moves", response_model=MovesOut, responses=ERRORS)
async def get_moves(code: str, m: Manager, token: Token) -> MovesOut:
    """The caller's legal moves with their prices (empty when it is not the caller's turn)."""
    game = _game(m, code)
    seat = m.seat_of(code, token)
    legal = m.legal_for(game, seat)
    return MovesOut(ply=game.state.ply, yourTurn=bool(legal),
                    moves=[PricedMove(**mv.to_json(), price=p) for mv, p in legal])


@router.post("/{code}/moves", response_model=MoveAccepted, responses=ERRORS)
async def post_move(code: str, body: MoveIn, m: Manager, token: Token) -> MoveAccepted:
    """The prompt's move JSON plus `ply`, so a retried request is applied once."""
    game = _game(m, code)
    seat = m.seat_of(code, token)
    move_json = {"move": body.move, "moveData": body.moveData}
    problem = schema_error("move", move_json)
    if problem:
        from duel.schemas import move_schema_error

        raise GameError(422, {"error": "malformed move", "reason": move_schema_error(move_json)})
    await m.submit(game, seat, move_json, body.ply)
    return MoveAccepted(ply=game.state.ply + (1 if game.forfeit else 0),
                        state=game.view_for(seat))


def _ok_as(media_type: str, description: str, schema: dict[str, Any] | None = None
           ) -> dict[int | str, dict[str, Any]]:
    """Error responses plus a 200 documented as `media_type` (errors stay JSON)."""
    return {200: {"description": description,
                  "content": {media_type: {"schema": schema or {"type": "string"}}}}, **ERRORS}


# One server-sent event: `data` is the JSON state as the caller sees it.
SSE_EVENT = {"type": "object", "properties": {"event": {"type": "string", "enum": ["state"]},
                                              "id": {"type": "string"},
                                              "data": {"type": "string"}}}


@router.get("/{code}/events", response_class=Response,
            responses=_ok_as("text/event-stream", "`state` events carrying the JSON state",
                             SSE_EVENT))
async def events(code: str, request: Request, m: Manager, token: Token) -> EventSourceResponse:
    """Server-sent events: one `state` event per change, carrying the state as the caller sees
    it; the stream ends after the game-over state."""
    game = _game(m, code)
    seat = m.seat_of(code, token) if token else None

    async def stream() -> AsyncIterator[dict[str, str]]:
        last = -1
        while True:
            version = game.row.ply
            if version != last:
                last = version
                yield {"event": "state", "id": str(version),
                       "data": json.dumps(game.view_for(seat))}
                if game.over:
                    return
            if await request.is_disconnected():
                return
            async with game.changed:
                if game.row.ply == last:
                    try:
                        await asyncio.wait_for(game.changed.wait(), timeout=15)
                    except TimeoutError:
                        pass

    return EventSourceResponse(stream(), ping=10)


@router.get("/{code}/transcript", response_class=Response,
            responses=_ok_as("application/x-ndjson", "the transcript, one JSON object a line"))
async def transcript(code: str, m: Manager) -> PlainTextResponse:
    """The game's transcript (JSON lines, the match runner's format) once it is over."""
    game = _game(m, code)
    lines = await m.transcript(game)
    return PlainTextResponse("".join(json.dumps(line) + "\n" for line in lines),
                             media_type="application/x-ndjson")


@router.get("/{code}/view", response_class=Response,
            responses=_ok_as("text/html", "the viewer page"))
async def view_page(code: str, m: Manager) -> HTMLResponse:
    """The browser viewer for this game, as far as it has been played."""
    from duel.transcripts import Transcript
    from duel.viewer import render

    game = _game(m, code)
    lines = await m.transcript(game, partial=True)
    footer = lines[-1] if lines[-1]["type"] == "result" else None
    moves = [line for line in lines if line["type"] == "move"]
    t = Transcript(lines[0], moves, footer, [])
    return HTMLResponse(render(t, title=f"duel game {code}"))
