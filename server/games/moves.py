"""Moves: a seat's move read in its labels, checked and applied atomically (the engine state,
the store and the event streams' notification move together), and the refusals it can get."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from duel.agents.observe import inform
from duel.engine import SEATS, Move, Perspective, Seat, seat_view
from duel.engine.explain import unavailable
from duel.errors import ConflictError, DuelError, IllegalMoveError, InvalidMoveError
from duel.match import take
from server.games.live import LiveGame, to_move
from server.store import Store, result_columns


def malformed(reason: str) -> InvalidMoveError:
    """The refusal of a move that is not the prompt's move JSON."""
    return InvalidMoveError(reason, detail={"error": "malformed move", "reason": reason})


def parse_move(seat: Seat, move_json: Any) -> Move:
    """A seat's move JSON (in its labels: it is player2) as a move in true labels."""
    try:
        move = Move.from_json(move_json)
    except DuelError as exc:
        raise malformed(str(exc)) from None
    return Perspective(seat).move_in(move)


def legal_for(game: LiveGame, seat: Seat) -> list[tuple[Move, int]]:
    """The seat's legal moves with prices, in its labels; [] if it is not its turn."""
    if game.over or to_move(game.state) is not seat:
        return []
    seen = Perspective(seat)
    return [(seen.move_out(m), p) for m, p in game.state.priced_moves()]


def unavailable_for(game: LiveGame, seat: Seat) -> list[tuple[Move, str, int | None]]:
    """On the seat's turn, the pyramid's moves it cannot make now and why, in its labels."""
    if game.over or to_move(game.state) is not seat:
        return []
    seen = Perspective(seat)
    return [(seen.move_out(m), why, p) for m, why, p in unavailable(game.state)]


async def apply_move(game: LiveGame, store: Store, seat: Seat, move: Move, ply: int,
                     details: dict[str, Any], seconds: float, forfeit: bool = False,
                     runner: bool = False) -> tuple[int, dict[str, Any]]:
    """`seat` plays `move` (true labels) at `ply` (the moves already played), or resigns. Returns
    the game's new ply and the state as the seat sees it right after the move. Raises
    ConflictError (over, stale ply, not its turn) or IllegalMoveError. `runner`: a move this
    server makes as the game's runner (see Store.append_move)."""
    async with game.lock:
        state = game.state
        if game.over:
            raise ConflictError("the game is over")
        if ply != state.ply:
            raise ConflictError(f"stale ply: {ply} moves were sent as played, the game has "
                                f"{state.ply}")
        if to_move(state) is not seat:
            raise ConflictError(f"not your turn: {to_move(state)} is to move")
        if move not in state.legal_moves():
            raise illegal(game, seat, move)
        # legal: checked above (apply would ask the generator again)
        taken = take(state, move, seconds, details, forfeit, checked=True)
        record, after, result = taken.record, taken.after, taken.result
        over = result is not None
        write = (game.code, record, seat_view(after), over, result, runner)
        if store.writes_inline:
            store.append_move(*write)
        else:
            await asyncio.to_thread(store.append_move, *write)
        game.row.ply = record.ply
        game.row.over = over
        game.row.winner, game.row.victory = result_columns(result)
        if forfeit:
            game.forfeit = seat
        else:
            game.advance(after)
            # the seats' agents that keep track of their game (an LLM seat's history=)
            inform([game.agents.get(s) for s in SEATS], state, move, after)
        game.moved_at = time.monotonic()
        answer = (game.row.ply, game.view_for(seat))
    async with game.changed:
        game.changed.notify_all()
    return answer


def illegal(game: LiveGame, seat: Seat, move: Move) -> IllegalMoveError:
    """The refusal of an illegal move: why, and what is legal, all in the seat's labels."""
    state = game.state
    seen = Perspective(seat)
    reason = seen.text_out(state.why_illegal(move))
    return IllegalMoveError(reason, detail={
        "error": "illegal move", "move": seen.move_out(move).to_json(), "reason": reason,
        "legal": [m.to_json() for m in seen.moves_out(state.legal_moves())]})


async def stale_note(game: LiveGame, store: Store, seat: Seat, move: Move, ply: int) -> str:
    """What a refused stale ply adds: whether the move sent is the one recorded at that ply (a
    retry whose first answer was lost: the move was applied, once)."""
    rows = await asyncio.to_thread(store.moves, game.code)
    if ply < len(rows) and rows[ply].seat is seat and not rows[ply].is_forfeit \
            and rows[ply].move == move:
        return f"this move was already applied as move {ply + 1}"
    return f"move {ply + 1} was another move"
