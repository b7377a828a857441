"""Several servers on one database (a `SharedStore`, PostgreSQL): which games' turns this server
runs, and keeping its games in memory up to date with the moves the others store.

- Leases: a game with agent seats or a clock is run by one server at a time, the holder of its
  lease (its creator first). Every third of a lease this server renews its leases, stops the
  turns of games it lost, and takes over games whose holder stopped renewing (it died), up to
  CLAIM_BATCH a round.
- Catching up: the store tells every server of every move; a server that has the game in
  memory plays the moves it missed, wakes its event streams and, if it holds the game, starts
  the next turn. Requests catch up too (`catch_up`), so an answer never lags a stored move.

The store's ply check keeps each move once, whatever the leases say (a server stalled past its
lease may try a move its successor already made; the store refuses it); and an agent's or a
clock's move is stored only while its server still holds the game's lease, checked in the
move's transaction, so a stalled server cannot play a turn its successor now runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from duel.errors import DuelError, GameNotFoundError
from server.games.live import LiveGame
from server.games.turns import Turns
from server.store import SharedStore

log = logging.getLogger("duel.server")
CLAIM_BATCH = 50  # games taken over per round, so a crowd of orphans spreads over servers


class Sharing:
    def __init__(self, store: SharedStore, games: dict[str, LiveGame], turns: Turns,
                 find: Callable[[str], Awaitable[LiveGame]]) -> None:
        self.store = store
        self.games = games  # the manager's games in memory
        self.turns = turns
        self.find = find
        self.held: set[str] = set()  # codes of the games whose lease this server holds
        self.tasks: set[asyncio.Task[Any]] = set()

    def runs(self, game: LiveGame) -> bool:
        return game.code in self.held

    async def start(self) -> None:
        loop = asyncio.get_running_loop()

        def moved(code: str, ply: int) -> None:  # the listener's thread
            loop.call_soon_threadsafe(self._heard, code, ply)

        await asyncio.to_thread(self.store.listen, moved)
        self._spawn(self._keep_leases())

    async def stop(self) -> None:
        """Stop renewing and hand every lease back, for another server to take at once."""
        for task in list(self.tasks):
            task.cancel()
        self.held.clear()
        try:
            await asyncio.to_thread(self.store.release)
        except Exception:  # noqa: BLE001 - the leases then run out by themselves
            log.exception("could not hand the leases back")

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _heard(self, code: str, ply: int) -> None:
        """Another server stored move `ply` of game `code` (code "": moves may have been
        missed, every game catches up)."""
        if not code:
            for game in list(self.games.values()):
                self._spawn(self.catch_up(game))
            return
        known = self.games.get(code)
        if known is not None and known.row.ply < ply:
            self._spawn(self.catch_up(known))

    async def catch_up(self, game: LiveGame) -> None:
        """Play the moves of `game` stored since its ply in memory, if any."""
        if game.over:
            return
        records = await asyncio.to_thread(self.store.moves, game.code, game.row.ply)
        if not records:
            return
        async with game.lock:
            try:
                moved = game.catch_up(records)
            except DuelError:
                log.exception("game %s: the stored moves do not replay", game.code)
                return
        if moved:
            async with game.changed:
                game.changed.notify_all()
            self.turns.schedule(game)

    async def _keep_leases(self) -> None:
        while True:
            try:
                await self._lease_round()
            except Exception:  # noqa: BLE001 - the database may be back next round
                log.exception("renewing the leases failed")
            await asyncio.sleep(self.store.lease_seconds / 3)

    async def _lease_round(self) -> None:
        before = set(self.held)
        kept = await asyncio.to_thread(self.store.renew)
        for code in before - kept:  # finished, or taken over while this server stalled
            self.held.discard(code)
            game = self.games.get(code)
            if game is not None and game.task is not None and not game.over:
                log.warning("game %s: lease lost; another server runs its turns", code)
                game.task.cancel()
                game.task = None
        for code in await asyncio.to_thread(self.store.claim, CLAIM_BATCH):
            self.held.add(code)
            try:
                game = await self.find(code)  # read back, caught up
            except GameNotFoundError:
                continue  # a damaged game: logged by find, left out
            log.info("game %s: taken over", code)
            self.turns.schedule(game)
