"""The turns nobody sends over HTTP: an agent seat thinks (on a thread of its own) and plays; an
external seat with a clock gets its fallback's move when its time is up; an agent that fails
gets its fallback's move too (or resigns, with fallback "forfeit").

Every move, sent or made here, goes through `Turns.play`, which applies it and then starts the
next player's turn."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from duel.agents.spec import make_agent
from duel.engine import GameState, Move, Seat
from duel.errors import BusyError, DuelError
from duel.match import agent_rng, decide
from server.live import LiveGame, to_move
from server.moves import apply_move
from server.store import Store

log = logging.getLogger("duel.server")
T = TypeVar("T")


def fallback_move(game: LiveGame, state: GameState, rng: random.Random
                  ) -> tuple[Move, dict[str, Any]]:
    """The move the game's fallback plays for a seat that failed or ran out of time (for
    "forfeit", a random move that is recorded as the resignation, never played)."""
    kind = game.row.options.get("fallback", "random")
    agent = make_agent("rule" if kind == "rule" else "random")
    move, _, _ = decide(agent, state, rng)
    return move, {"fallback": kind}


def forfeits(game: LiveGame) -> bool:
    return bool(game.row.options.get("fallback") == "forfeit")


class Turns:
    def __init__(self, store: Store, thinkers: int) -> None:
        self.store = store
        # Agents think on their own threads: a slow search or LLM call must never queue the
        # storage calls (asyncio's default pool) of every other game behind it.
        self.thinking = ThreadPoolExecutor(thinkers, thread_name_prefix="duel-agent")

    async def think(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` (an agent's decision) on the agents' threads."""
        return await asyncio.get_running_loop().run_in_executor(self.thinking, fn, *args)

    async def play(self, game: LiveGame, seat: Seat, move: Move, ply: int,
                   details: dict[str, Any] | None = None, seconds: float = 0.0,
                   forfeit: bool = False) -> tuple[int, dict[str, Any]]:
        """Apply a move (see `apply_move`), then start the next turn."""
        answer = await apply_move(game, self.store, seat, move, ply, details or {}, seconds,
                                  forfeit)
        self.schedule(game)
        return answer

    def schedule(self, game: LiveGame) -> None:
        """Start the turn of the player to move: its agent, or the clock of an external seat.
        The previous turn's task (its ply is played) is stopped, so `stop` finds every task."""
        previous = game.task
        if previous is not None and not previous.done() \
                and previous is not asyncio.current_task():
            previous.cancel()
        game.task = None
        if game.over:
            return
        seat = to_move(game.state)
        if seat in game.agents:
            game.task = asyncio.get_running_loop().create_task(self._agent_turn(game, seat))
        elif game.row.options.get("time_per_move"):
            game.task = asyncio.get_running_loop().create_task(self._clock(game, seat))

    def stop(self, games: Iterable[LiveGame]) -> None:
        for game in games:
            if game.task is not None:
                game.task.cancel()
        self.thinking.shutdown(wait=False, cancel_futures=True)

    async def _agent_turn(self, game: LiveGame, seat: Seat) -> None:
        ply = game.state.ply
        state = game.state
        rng = agent_rng(ply * 7919 + seat.player, seat)
        start = time.perf_counter()
        forfeit = False
        try:
            move, details, forfeit = await self.think(decide, game.agents[seat], state, rng)
        except Exception as exc:  # noqa: BLE001 - an agent failing must not stop the game
            log.warning("game %s: agent %s failed: %s", game.code, game.row.seats[seat.index],
                        exc)
            move, details = fallback_move(game, state, rng)
            details = {**details, "error": f"{type(exc).__name__}: {exc}"}
            forfeit = forfeits(game)
        try:
            await self.play(game, seat, move, ply, details, time.perf_counter() - start,
                            forfeit)
        except DuelError as exc:
            log.warning("game %s: agent move refused: %s", game.code, exc)

    async def _clock(self, game: LiveGame, seat: Seat) -> None:
        ply = game.state.ply
        await asyncio.sleep(float(game.row.options["time_per_move"]))
        if game.over or game.state.ply != ply:
            return
        move, details = fallback_move(game, game.state, agent_rng(ply, seat))
        try:
            await self.play(game, seat, move, ply, {**details, "timeout": True},
                            forfeit=forfeits(game))
        except DuelError:
            pass  # the bot moved at the last moment


class Searches:
    """The /agents/move searches running at once. More than `limit` are refused (BusyError), so
    a flood of searches cannot starve the agent seats of the games."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0

    @contextmanager
    def slot(self) -> Iterator[None]:
        if self.running >= self.limit:
            raise BusyError(f"busy: {self.running} agent moves are being searched; retry later",
                            retry_after=1)
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1
