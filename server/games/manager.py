"""The game manager: every game in memory by code, and the one entry the routes use for each job
(seating, moves, turns, event views, transcripts), each done in a module of its own.

Unfinished games live in memory. A finished game stays there while it is used, then leaves
(after `finished_grace` seconds unused, or when more than `finished_kept` are kept, the least
recently used first); asking for it again reads it back from the store.

On a store several servers share (PostgreSQL; see server/games/leases.py) a server keeps in memory
the unfinished games it runs (holds the lease of) or was asked about, and reads any other
game back from the store when asked; each request catches its game up with the moves other
servers stored."""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from duel.engine import Deal, Move, Seat, new_game, seat_view
from duel.engine.codes import random_code
from duel.errors import BusyError, ConflictError, GameNotFoundError, StoreError
from server.games import events, export, moves
from server.games.leases import Sharing
from server.games.live import LiveGame, restore
from server.games.seats import SeatTokens, new_tokens, seat_agents, token_hash
from server.games.turns import Turns
from server.guard.address_shares import Shares
from server.guard.rate_limit import RateLimiter
from server.settings import Limits
from server.store import GameRow, SharedStore, Store
from server.work.catalogue import Catalogue
from server.work.thinking import Thinker

log = logging.getLogger("duel.server")
STOP_WAIT = 1.0  # seconds the cancelled turns get to unwind when the server stops
FULL_RETRY = 30.0  # the retry-after of a creation refused because the server is full


class GameManager:
    def __init__(self, store: Store, limits: Limits | None = None,
                 catalogue: Catalogue | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.catalogue = catalogue or Catalogue()  # the agents on offer
        self.games: dict[str, LiveGame] = {}
        self.tokens = SeatTokens()
        self.thinker = Thinker(self.limits)
        self.searches = self.thinker.searches
        self.turns = Turns(store, self.thinker, self._finished, self._runs, sleep)
        self.sharing = Sharing(store, self.games, self.turns, self.find) \
            if isinstance(store, SharedStore) else None
        self.creations = RateLimiter(self.limits.create_per_minute / 60,
                                     self.limits.create_burst)
        self.streams = Shares("event streams", self.limits.streams_per_address)
        self.finished: OrderedDict[str, float] = OrderedDict()  # in memory, by last use
        self.sweeper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle
    def _runs(self, game: LiveGame) -> bool:
        """Whether this server runs the game's turns (on a shared store, if it holds it)."""
        return self.sharing is None or self.sharing.runs(game)

    async def start(self) -> None:
        """Load every unfinished game; resume agent seats whose turn it is. A game that cannot
        be restored is logged and left out; it never stops the server from starting. On a
        shared store, load nothing: the games to run come with their leases."""
        self.sweeper = asyncio.get_running_loop().create_task(self._sweep())
        if self.sharing is not None:
            await self.sharing.start()
            return
        for row in await asyncio.to_thread(self.store.games, True):
            try:
                game = await asyncio.to_thread(self._read_back, row)
            except Exception:  # noqa: BLE001 - one damaged game must not take the others down
                log.exception("game %s could not be restored; it is left out", row.code)
                continue
            self._add(game)
            self.turns.schedule(game)

    async def stop(self) -> None:
        """Cancel every turn and stop every decision being made (the store keeps each game's
        position: an agent seat whose turn it was thinks again after a restart). Safe to call
        again."""
        if self.sweeper is not None:
            self.sweeper.cancel()
        if self.sharing is not None:
            await self.sharing.stop()
        tasks = self.turns.stop(self.games.values())
        await self.thinker.close()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_WAIT)

    # ------------------------------------------------------------------ games
    async def create(self, seats: list[str], seed: int | None, deal_json: dict[str, Any] | None,
                     open_box: bool, time_per_move: float | None, fallback: str,
                     owner: str = "") -> tuple[LiveGame, dict[str, str]]:
        """A new game for `owner` (an address); its external seats' tokens by player number
        ("1", "2"), shown once. Raises SpecError for an agent not offered or a bad spec,
        InvalidStateError for a bad deal, BusyError past the live games' cap or the owner's
        creation rate."""
        agents = seat_agents(self.catalogue, seats)
        if deal_json is not None:
            deal = Deal.from_json(deal_json)
        else:
            deal = Deal.random(random.Random(seed if seed is not None
                                             else secrets.randbits(63)))
        playing = None
        if self.sharing is not None and self.limits.max_live_games:
            playing = await asyncio.to_thread(self.sharing.store.unfinished)
        self._admit(owner, playing)
        code = random_code(secrets.SystemRandom())
        while code in self.games or await asyncio.to_thread(self.store.game, code) is not None:
            code = random_code(secrets.SystemRandom())
        tokens = new_tokens(seats)
        hashes = {seat: token_hash(t) for seat, t in tokens.items()}
        row = GameRow(code, seats, hashes,
                      {"seed": seed, "deal": deal.to_json(), "open_box": open_box,
                       "time_per_move": time_per_move, "fallback": fallback}, 0, False,
                      time.time())
        state = new_game(deal=deal, open_box=open_box, code=code)
        game = LiveGame(row, state, agents, owner=owner or "game:" + code)
        await asyncio.to_thread(self.store.create_game, row, seat_view(state))
        if self.sharing is not None:
            self.sharing.held.add(code)  # its creator holds it first
        self._add(game)
        self.turns.schedule(game)
        return game, {str(seat.player): t for seat, t in tokens.items()}

    def _admit(self, owner: str, playing: int | None = None) -> None:
        """BusyError if the server holds its most unfinished games (`playing`: those of every
        server sharing the store), or `owner` created its most games lately."""
        cap = self.limits.max_live_games
        if cap:
            if playing is None:
                playing = sum(1 for g in self.games.values() if not g.over)
            if playing >= cap:
                raise BusyError(f"the server is full: {playing} games are in play; retry "
                                "later", retry_after=FULL_RETRY)
        wait = self.creations.delay(owner)
        if wait:
            raise BusyError(f"too many games created from your address; retry in "
                            f"{math.ceil(wait)}s", retry_after=wait)

    def get(self, code: str) -> LiveGame:
        """A game in memory (GameNotFoundError if it is not; see `find`)."""
        game = self.games.get(code)
        if game is None:
            raise GameNotFoundError(f"no game {code!r}")
        self._touch(game)
        return game

    async def find(self, code: str) -> LiveGame:
        """A game, read back from the store if it is finished and no longer in memory, or on
        a shared store, if it is not in memory (GameNotFoundError if there is none, or it
        cannot be read); on a shared store, caught up with the moves stored since."""
        if code not in self.games:
            row = await asyncio.to_thread(self.store.game, code)
            # An unfinished game not in memory of a server of its own is one left out as
            # damaged at start.
            if row is None or not (row.over or self.sharing is not None):
                raise GameNotFoundError(f"no game {code!r}")
            try:
                game = await asyncio.to_thread(self._read_back, row)
            except Exception:  # noqa: BLE001 - a damaged game is one we do not have
                log.exception("game %s could not be read back", code)
                raise GameNotFoundError(f"no game {code!r}") from None
            if code not in self.games:  # not read back meanwhile by another request
                self._add(game)
        known = self.games.get(code)
        if known is not None and self.sharing is not None:
            # The moves other servers stored since (for a game just read back: since its row
            # was read).
            await self.sharing.catch_up(known)
        return self.get(code)

    def _read_back(self, row: GameRow) -> LiveGame:
        """A stored game as it stood when `row` was read (see `restore`), its agents built
        again. Moves stored after the row was read (another server's, on a shared store) are
        left for `catch_up`: replaying them here would disagree with the row's ply and make a
        sound game look damaged."""
        moves = self.store.moves(row.code)
        if self.sharing is not None:  # alone on its store, a longer list is a damaged game
            moves = [m for m in moves if m.ply <= row.ply]
        return restore(row, moves, seat_agents(self.catalogue, row.seats, strict=False))

    def seat_of(self, code: str, token: str | None) -> Seat:
        """The seat a bearer token holds in game `code` (AuthError, ForbiddenError)."""
        return self.tokens.seat_of(code, token)

    # ------------------------------------------------------------------ memory
    def _add(self, game: LiveGame) -> None:
        self.games[game.code] = game
        self.tokens.add(game.code, game.row.token_hashes)
        if game.over:
            self._finished(game)

    def _finished(self, game: LiveGame) -> None:
        """`game` is over: from now on it may leave memory."""
        self.finished[game.code] = time.monotonic()
        self._evict()

    def _touch(self, game: LiveGame) -> None:
        if game.code in self.finished:
            self.finished[game.code] = time.monotonic()
            self.finished.move_to_end(game.code)

    def _evict(self) -> None:
        """Let finished games unused for the grace period, and the least recently used beyond
        the number kept, leave memory."""
        now = time.monotonic()
        while self.finished:
            code, used = next(iter(self.finished.items()))
            if len(self.finished) <= self.limits.finished_kept and \
                    now - used < self.limits.finished_grace:
                return
            del self.finished[code]
            game = self.games.pop(code, None)
            if game is not None:
                self.tokens.remove(game.row.token_hashes)

    async def _sweep(self) -> None:
        every = min(self.limits.finished_grace / 2, self.limits.idle_expiry / 4, 30.0)
        while True:
            await asyncio.sleep(every)
            self._evict()
            try:
                await self.expire_idle()
            except Exception:  # noqa: BLE001 - the sweeper must go on
                log.exception("expiring idle games failed")

    async def expire_idle(self, now: float | None = None) -> list[str]:
        """End every unfinished game this server runs that has not moved for `idle_expiry`
        seconds as of `now` (time.monotonic() by default; tests pass their own): the player
        to move forfeits, recorded as expired. The codes of the games ended."""
        now = time.monotonic() if now is None else now
        ended = []
        for game in list(self.games.values()):
            idle = now - game.moved_at
            if game.over or idle < self.limits.idle_expiry or not self._runs(game):
                continue
            if await self.turns.expire(game, idle):
                ended.append(game.code)
        return ended

    # ------------------------------------------------------------------ moves
    def legal_for(self, game: LiveGame, seat: Seat) -> list[tuple[Move, int]]:
        return moves.legal_for(game, seat)

    def unavailable_for(self, game: LiveGame, seat: Seat) -> list[tuple[Move, str, int | None]]:
        return moves.unavailable_for(game, seat)

    async def submit(self, game: LiveGame, seat: Seat, move_json: Any, ply: int
                     ) -> tuple[int, dict[str, Any]]:
        """An external seat's move, in its labels, at `ply` (moves already played). Returns the
        game's new ply and the state as the seat sees it right after the move. A stale ply's
        refusal says whether the move sent is the one recorded there."""
        move = moves.parse_move(seat, move_json)
        try:
            return await self.turns.play(game, seat, move, ply)
        except StoreError:
            # Another server stored a move at this ply first (a shared store).
            if self.sharing is not None:
                await self.sharing.catch_up(game)
            problem = ConflictError(f"stale ply: another move was stored as move {ply + 1} "
                                    "first")
        except ConflictError as exc:
            problem = exc
        if not 0 <= ply < game.row.ply:
            raise problem
        note = await moves.stale_note(game, self.store, seat, move, ply)
        raise ConflictError(f"{problem}; {note}") from None

    # ------------------------------------------------------------------ reading
    async def views(self, game: LiveGame, first: int, last: int, seat: Seat | None
                    ) -> list[tuple[int, dict[str, Any]]]:
        return await events.views(game, self.store, first, last, seat)

    async def listing(self, most: int) -> list[tuple[GameRow, LiveGame | None]]:
        """The newest `most` games' rows, newest first, each with its live game when it is in
        memory (a finished game read back from the store only when asked for by code). One
        bounded query: however many games are stored, `most` rows are read."""
        rows = await asyncio.to_thread(self.store.list_games, most)
        return [(row, self.games.get(row.code)) for row in rows]

    async def transcript(self, game: LiveGame, partial: bool = False,
                         operator: bool = False) -> list[dict[str, Any]]:
        return await export.transcript_lines(game, self.store, partial, operator)
