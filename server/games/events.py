"""Past views for event streams: the state after each ply as a seat (or a spectator) sees it,
so a stream that fell behind still gets one event per ply. Recent states are kept in the live
game; older ones are replayed from the stored moves."""

from __future__ import annotations

import asyncio
from typing import Any

from duel.engine import GameState, Perspective, Seat
from duel.transcripts import replay_moves
from server.games.live import LiveGame, start_state
from server.store import Store


async def views(game: LiveGame, store: Store, first: int, last: int, seat: Seat | None
                ) -> list[tuple[int, dict[str, Any]]]:
    """The state after each of the plies first..last as `seat` sees it (after a forfeit, the
    last "ply" is the resignation)."""
    out: list[tuple[int, dict[str, Any]]] = []
    replayed: dict[int, GameState] | None = None
    for ply in range(first, last + 1):
        if ply == game.row.ply:
            out.append((ply, game.view_for(seat)))
            continue
        state = game.past(ply)
        if state is None:
            if replayed is None:
                replayed = await replay_states(game, store)
            state = replayed.get(ply)
        if state is not None:
            out.append((ply, Perspective(seat).view(state)))
    return out


async def replay_states(game: LiveGame, store: Store) -> dict[int, GameState]:
    """Every state of the game by ply, replayed from its stored moves."""
    rows = await asyncio.to_thread(store.moves, game.code)
    start = start_state(game.row)
    states = {0: start}
    for step in replay_moves(start, [m.to_json() for m in rows]):
        states[step.after.ply] = step.after
    return states
