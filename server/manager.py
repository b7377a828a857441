"""The game manager: every live game by code, and the one entry the routes use for each job
(seating, moves, turns, event views, transcripts), each done in a module of its own."""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

from duel.engine import Deal, Move, Seat, new_game, seat_view
from duel.engine.codes import random_code
from duel.errors import ConflictError, GameNotFoundError
from server import events, export, moves
from server.catalogue import Catalogue
from server.live import LiveGame, restore
from server.seats import SeatTokens, new_tokens, seat_agents, token_hash
from server.store import GameRow, Store
from server.turns import Searches, Turns

log = logging.getLogger("duel.server")
T = TypeVar("T")


class GameManager:
    def __init__(self, store: Store, thinkers: int = 4,
                 catalogue: Catalogue | None = None) -> None:
        self.store = store
        self.catalogue = catalogue or Catalogue()  # the agents on offer
        self.games: dict[str, LiveGame] = {}
        self.tokens = SeatTokens()
        self.turns = Turns(store, thinkers)
        self.searches = Searches(thinkers)

    async def think(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` (an agent's decision) on the agents' threads."""
        return await self.turns.think(fn, *args)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load every stored game; resume agent seats whose turn it is. A game that cannot be
        restored is logged and left out; it never stops the server from starting."""
        for row in await asyncio.to_thread(self.store.games):
            try:
                records = await asyncio.to_thread(self.store.moves, row.code)
                game = restore(row, records, seat_agents(self.catalogue, row.seats, strict=False))
            except Exception:  # noqa: BLE001 - one damaged game must not take the others down
                log.exception("game %s could not be restored; it is left out", row.code)
                continue
            self.games[row.code] = game
            self.tokens.add(row.code, row.token_hashes)
            self.turns.schedule(game)

    async def stop(self) -> None:
        self.turns.stop(self.games.values())

    # ------------------------------------------------------------------ games
    async def create(self, seats: list[str], seed: int | None, deal_json: dict[str, Any] | None,
                     open_box: bool, time_per_move: float | None, fallback: str
                     ) -> tuple[LiveGame, dict[str, str]]:
        """A new game; its external seats' tokens by player number ("1", "2"), shown once.
        Raises SpecError for an agent not offered or a bad spec, InvalidStateError for a bad
        deal."""
        agents = seat_agents(self.catalogue, seats)
        if deal_json is not None:
            deal = Deal.from_json(deal_json)
        else:
            deal = Deal.random(random.Random(seed if seed is not None
                                             else secrets.randbits(63)))
        code = random_code(secrets.SystemRandom())
        while code in self.games:
            code = random_code(secrets.SystemRandom())
        tokens = new_tokens(seats)
        hashes = {seat: token_hash(t) for seat, t in tokens.items()}
        row = GameRow(code, seats, hashes,
                      {"seed": seed, "deal": deal.to_json(), "open_box": open_box,
                       "time_per_move": time_per_move, "fallback": fallback}, 0, False,
                      time.time())
        state = new_game(deal=deal, open_box=open_box, code=code)
        game = LiveGame(row, state, agents)
        await asyncio.to_thread(self.store.create_game, row, seat_view(state))
        self.games[code] = game
        self.tokens.add(code, hashes)
        self.turns.schedule(game)
        return game, {str(seat.player): t for seat, t in tokens.items()}

    def get(self, code: str) -> LiveGame:
        game = self.games.get(code)
        if game is None:
            raise GameNotFoundError(f"no game {code!r}")
        return game

    def seat_of(self, code: str, token: str | None) -> Seat:
        """The seat a bearer token holds in game `code` (AuthError, ForbiddenError)."""
        return self.tokens.seat_of(code, token)

    # ------------------------------------------------------------------ moves
    def legal_for(self, game: LiveGame, seat: Seat) -> list[tuple[Move, int]]:
        return moves.legal_for(game, seat)

    async def submit(self, game: LiveGame, seat: Seat, move_json: Any, ply: int
                     ) -> tuple[int, dict[str, Any]]:
        """An external seat's move, in its labels, at `ply` (moves already played). Returns the
        game's new ply and the state as the seat sees it right after the move. A stale ply's
        refusal says whether the move sent is the one recorded there."""
        move = moves.parse_move(seat, move_json)
        try:
            return await self.turns.play(game, seat, move, ply)
        except ConflictError as exc:
            if not 0 <= ply < game.row.ply:
                raise
            note = await moves.stale_note(game, self.store, seat, move, ply)
            raise ConflictError(f"{exc}; {note}") from None

    # ------------------------------------------------------------------ reading
    async def views(self, game: LiveGame, first: int, last: int, seat: Seat | None
                    ) -> list[tuple[int, dict[str, Any]]]:
        return await events.views(game, self.store, first, last, seat)

    async def transcript(self, game: LiveGame, partial: bool = False) -> list[dict[str, Any]]:
        return await export.transcript_lines(game, self.store, partial)
