"""Games: create, read as a seat or spectator, legal moves, moves, events, transcript."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import pydantic_core
from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from sse_starlette.sse import EventSourceResponse

from duel.errors import InvalidStateError, UsageError
from duel.schemas import schema_error
from duel.transcripts import render_line
from server.deps import (
    TOKEN_PARAMETERS,
    Address,
    Game,
    HeaderToken,
    Manager,
    Seated,
    Watching,
)
from server.errors import ERRORS
from server.games.live import LiveGame
from server.guard.address_shares import Held
from server.schemas import (
    GameCreate,
    GameCreated,
    GameInfo,
    GamesOut,
    MoveAccepted,
    MoveIn,
    MovesOut,
    StateJSON,
)
from server.store import GameRow
from server.work.catalogue import EXTERNAL

router = APIRouter(prefix="/games", tags=["games"])


def json_answer(content: Any, headers: dict[str, str] | None = None) -> Response:
    """`content` as JSON, for the routes a bot calls every move (its state, its legal moves, its
    move): their `response_model` documents the answer, and FastAPI's check of what the engine
    built (copying it twice) was a tenth of a move's server time. pydantic-core writes the
    JSON, a quarter of the json module's time; the schemathesis tests check these answers
    against the same schemas."""
    return Response(pydantic_core.to_json(content), media_type="application/json",
                    headers=headers)


@router.post("", status_code=201, response_model=GameCreated, responses=ERRORS)
async def create_game(body: GameCreate, m: Manager, address: Address,
                      token: HeaderToken) -> GameCreated:
    """Seats are "external", built-in agents or the operator's agents by name (`GET /agents`);
    each external seat gets a bearer token (shown once). An operator-only agent needs the
    operator's token in the Authorization header. Creation is rate-limited per client
    address, and the server may cap the games in play (429 with retry-after)."""
    seats = [body.player1.strip(), body.player2.strip()]
    m.catalogue.authorize([m.catalogue.resolve(s) for s in seats if s != EXTERNAL], token)
    if body.deal is not None and body.seed is not None:
        raise UsageError("give a seed or a deal, not both")
    if body.deal is not None:
        problem = schema_error("deal", body.deal)
        if problem:
            raise InvalidStateError(problem)
    game, tokens = await m.create(seats, body.seed, body.deal, body.open_box,
                                  body.time_per_move, body.fallback, address)
    return GameCreated(code=game.code, tokens=tokens, state=game.view_for(None))


LISTED = 100  # games listed by GET /games, the newest first


def info(row: GameRow, game: LiveGame | None, you: int | None = None) -> GameInfo:
    """A game's public facts; its winner as stored, or from the game in memory (`game`) for a
    game finished before the store kept results."""
    winner: int | Literal["draw"] | None = None
    victory = row.victory
    if victory is not None:
        winner = row.winner or "draw"
    else:
        result = game.result if game is not None else None
        if result is not None:
            winner = result.winner.player if result.winner is not None else "draw"
            victory = result.victory
    # The engine's own scoring, so the pages and bots never count points another way.
    points = None if game is None else {str(n + 1): s for n, s in enumerate(game.state.scores())}
    return GameInfo(code=row.code, players={"1": row.seats[0], "2": row.seats[1]},
                    ply=row.ply, over=row.over, winner=winner, victory=victory,
                    created=row.created, you=you, points=points)


@router.get("", response_model=GamesOut, responses=ERRORS)
async def list_games(m: Manager) -> GamesOut:
    """The newest games (at most 100), running and finished, for anyone to spectate or replay:
    each seat's agent, the ply, and the winner of a finished game."""
    return GamesOut(games=[info(row, game) for row, game in await m.listing(LISTED)])


@router.get("/{code}/info", response_model=GameInfo, responses=ERRORS,
            openapi_extra=TOKEN_PARAMETERS)
async def game_info(code: str, at: Watching) -> GameInfo:
    """Who plays (each seat's agent), the ply, whether it is over and who won, and each
    player's points so far (the engine's breakdown); with a seat's token, `you` is that seat's
    player number in true labels."""
    return info(at.game.row, at.game, at.seat.player if at.seat is not None else None)


# Where the game stands as a state was read: a bot's one request a turn.
STATE_HEADERS = {
    "Duel-Ply": {"description": "moves played when the state was read",
                 "schema": {"type": "integer", "minimum": 0}},
    "Duel-Over": {"description": "whether the game is over (a forfeit included)",
                  "schema": {"type": "string", "enum": ["true", "false"]}}}


@router.get("/{code}", response_model=StateJSON,
            responses={**ERRORS, 200: {"headers": STATE_HEADERS}},
            openapi_extra=TOKEN_PARAMETERS)
async def get_state(code: str, at: Watching) -> Response:
    """The prompt's JSON state: as the caller's seat sees it (the seat is player2), or the public
    view for a spectator without a token. The headers `Duel-Ply` and `Duel-Over` say the ply
    it was read at and whether the game is over (a forfeit ends it with no move), so one
    request a turn tells a bot where the game stands."""
    row = at.game.row
    return json_answer(at.game.view_for(at.seat),
                       {"Duel-Ply": str(row.ply), "Duel-Over": "true" if row.over else "false"})


@router.get("/{code}/moves", response_model=MovesOut, responses=ERRORS,
            openapi_extra=TOKEN_PARAMETERS)
async def get_moves(code: str, at: Seated) -> Response:
    """The caller's legal moves with their prices (empty when it is not the caller's turn)."""
    m, game, seat = at.m, at.game, at.seat
    legal = m.legal_for(game, seat)
    refused = m.unavailable_for(game, seat) if legal else []
    return json_answer({
        "ply": game.state.ply, "yourTurn": bool(legal),
        "moves": [{**mv.to_json(), "price": p} for mv, p in legal],
        "unavailable": [{**mv.to_json(), "reason": why, "price": p} for mv, why, p in refused]})


@router.post("/{code}/moves", response_model=MoveAccepted, responses=ERRORS,
             openapi_extra=TOKEN_PARAMETERS)
async def post_move(code: str, at: Seated, body: MoveIn) -> Response:
    """The prompt's move JSON plus `ply` (the number of moves already played), so a retried
    request is applied once: the retry finds the ply taken and gets 409, saying whether its
    move is the one that was applied."""
    # Move.from_json (in submit) is the check: the published move schema is built from its
    # field table, so validating against the schema as well only did the work twice.
    move_json = {"move": body.move, "moveData": body.moveData}
    ply, state = await at.m.submit(at.game, at.seat, move_json, body.ply)
    return json_answer({"ply": ply, "state": state})


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
                             SSE_EVENT), openapi_extra=TOKEN_PARAMETERS)
async def events(code: str, request: Request, at: Watching, address: Address
                 ) -> EventSourceResponse:
    """Server-sent events: first the current state, then one `state` event per change (every
    ply, none skipped, even for a reader that fell behind), each carrying the state as the
    caller sees it; the `id` is the ply. The stream ends after the game-over state. One
    client address holds at most the server's `streams-per-address` streams at once (429
    beyond)."""
    m, game, seat = at.m, at.game, at.seat
    held = m.streams.take(address)  # BusyError now, before the stream's response starts

    async def stream() -> AsyncIterator[dict[str, str]]:
        last = -1
        while True:
            version = game.row.ply
            if version > last:
                first = version if last < 0 else last + 1
                for ply, view in await m.views(game, first, version, seat):
                    yield {"event": "state", "id": str(ply), "data": json.dumps(view)}
                last = version
                continue  # more may have happened meanwhile
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

    return HeldStream(stream(), held, ping=10)


class HeldStream(EventSourceResponse):
    """An event stream that gives its client's share back however it ends: finished, cut by
    the client, or cancelled with the server."""

    def __init__(self, content: AsyncIterator[dict[str, str]], held: Held, **kw: Any) -> None:
        super().__init__(content, **kw)
        self.held = held

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.held.release()


@router.get("/{code}/transcript", response_class=Response,
            responses=_ok_as("application/x-ndjson", "the transcript, one JSON object a line"))
async def transcript(code: str, game: Game, m: Manager, token: HeaderToken,
                     partial: Annotated[bool, Query(description="the moves so far of a game "
                                                    "not over (no result line)")] = False,
                     since: Annotated[int, Query(ge=0, description="only the moves from this "
                                                 "ply on (the header always)")] = 0
                     ) -> PlainTextResponse:
    """The game's transcript (JSON lines, the match runner's format) once it is over (409
    before, unless `partial`). A move's details (search statistics, an LLM's replies and
    reasoning) are there once it is played. Before the game is over the header is sealed: no
    deal and no seed (they hold every hidden card), `"sealed": true`; only the operator's token
    (Authorization: Bearer) reads a running game's deal."""
    lines = await m.transcript(game, partial=partial,
                               operator=m.catalogue.is_operator(token))
    lines = [ln for ln in lines if ln["type"] != "move" or ln["ply"] >= since]
    return PlainTextResponse("".join(render_line(line) for line in lines),
                             media_type="application/x-ndjson")


@router.get("/{code}/view", response_class=Response,
            responses=_ok_as("text/html", "the viewer page"))
async def view_page(code: str, game: Game, m: Manager) -> HTMLResponse:
    """The browser viewer for this game, as far as it has been played."""
    from duel.transcripts import Transcript
    from duel.viewer import render
    from server.routes.pages import new_nonce, page_headers

    # Read whole (the deal included) to replay it here; the page gets only what everyone sees
    # at each ply (the public views, the moves and their details, the seats' agents).
    lines = await m.transcript(game, partial=True, operator=True)
    footer = lines[-1] if lines[-1]["type"] == "result" else None
    moves = [line for line in lines if line["type"] == "move"]
    t = Transcript(lines[0], moves, footer, [])
    nonce = new_nonce()
    return HTMLResponse(render(t, title=f"duel game {code}", nonce=nonce),
                        headers=page_headers(nonce))
