"""The turns nobody sends over HTTP: an agent seat thinks (see server/work/thinking.py: within its
deadline, in a worker process for a search) and plays; an external seat with a clock gets its
fallback's move when its time is up; an agent that fails or runs out of time gets its
fallback's move too (or resigns, with fallback "forfeit").

Every move, sent or made here, goes through `Turns.play`, which applies it and then starts the
next player's turn."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from duel.agents.spec import make_agent
from duel.engine import GameState, Move, Perspective, Seat
from duel.errors import DeadlineError, DuelError
from duel.match import agent_rng, agent_seed, decide, taken
from server.games.live import LiveGame, to_move
from server.games.moves import apply_move
from server.store import Store
from server.work.thinking import Thinker

log = logging.getLogger("duel.server")


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


def seat_seed(ply: int, seat: Seat) -> int:
    """The seed of a seat's generator at `ply`: an agent's decision, wherever it is made,
    depends on its view, its legal moves and this seed only."""
    return ply * 7919 + seat.player


class Turns:
    def __init__(self, store: Store, thinker: Thinker,
                 on_over: Callable[[LiveGame], None],
                 runs: Callable[[LiveGame], bool] = lambda game: True,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.store = store
        # How an external seat's clock waits out its time per move: asyncio's, or a test's
        # clock that strikes when the test says so.
        self.sleep = sleep
        self.thinker = thinker
        self.on_over = on_over  # told once when a game ends
        # Whether this server runs the game's turns (on a shared store, only its lease holder).
        self.runs = runs

    async def play(self, game: LiveGame, seat: Seat, move: Move, ply: int,
                   details: dict[str, Any] | None = None, seconds: float = 0.0,
                   forfeit: bool = False, runner: bool = False) -> tuple[int, dict[str, Any]]:
        """Apply a move (see `apply_move`; `runner`: an agent's or a clock's move, made
        here as the game's runner), then start the next turn."""
        answer = await apply_move(game, self.store, seat, move, ply, details or {}, seconds,
                                  forfeit, runner)
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
            self.on_over(game)
            return
        if not self.runs(game):
            return
        seat = to_move(game.state)
        if seat in game.agents:
            game.task = asyncio.get_running_loop().create_task(self._agent_turn(game, seat))
        elif game.row.options.get("time_per_move"):
            game.task = asyncio.get_running_loop().create_task(self._clock(game, seat))

    def stop(self, games: Iterable[LiveGame]) -> list[asyncio.Task[None]]:
        """Cancel every game's turn; the tasks cancelled, to wait for."""
        tasks = [g.task for g in games if g.task is not None and not g.task.done()]
        for task in tasks:
            task.cancel()
        return tasks

    async def decide(self, game: LiveGame, seat: Seat, state: GameState, seed: int
                     ) -> tuple[Move, dict[str, Any], bool]:
        """The seat's agent's move in `state` (true labels), its details and whether it
        resigns. The agent sees the view in which it is player2, as in matches."""
        seen = Perspective.to_move(state)
        spec = game.row.seats[seat.index]
        decision = await self.thinker.choose(
            game.agents[seat], spec, seen.view(state), seen.moves_out(state.legal_moves()),
            agent_seed(seed, seat), game.owner, queue=True)
        return taken(state, decision, spec)

    async def _agent_turn(self, game: LiveGame, seat: Seat) -> None:
        ply = game.state.ply
        state = game.state
        seed = seat_seed(ply, seat)
        start = time.perf_counter()
        forfeit = False
        try:
            move, details, forfeit = await self.decide(game, seat, state, seed)
        except DeadlineError as exc:
            log.warning("game %s: agent %s out of time: %s", game.code,
                        game.row.seats[seat.index], exc)
            move, details = fallback_move(game, state, agent_rng(seed, seat))
            details = {**details, "timeout": True, "error": str(exc)}
            forfeit = forfeits(game)
        except Exception as exc:  # noqa: BLE001 - an agent failing must not stop the game
            log.warning("game %s: agent %s failed: %s", game.code, game.row.seats[seat.index],
                        exc)
            move, details = fallback_move(game, state, agent_rng(seed, seat))
            details = {**details, "error": f"{type(exc).__name__}: {exc}"}
            forfeit = forfeits(game)
        try:
            await self.play(game, seat, move, ply, details, time.perf_counter() - start,
                            forfeit, runner=True)
        except DuelError as exc:
            log.warning("game %s: agent move refused: %s", game.code, exc)

    async def expire(self, game: LiveGame, idle: float) -> bool:
        """End `game`, idle for `idle` seconds: its turn (an agent's pending decision, a clock)
        is stopped and the player to move forfeits, recorded as expired (`details.expired`);
        its moves are kept and its transcript is complete. False if it moved meanwhile."""
        ply = game.state.ply
        if game.task is not None and not game.task.done():
            game.task.cancel()
        seat = to_move(game.state)
        move = game.state.legal_moves()[0]  # recorded with the resignation, never played
        try:
            await self.play(game, seat, move, ply, {"expired": True, "idle_seconds": round(idle)},
                            forfeit=True, runner=True)
        except DuelError:
            return False  # it moved (or ended) meanwhile
        log.info("game %s expired after %.0f s without a move; %s forfeits", game.code, idle,
                 seat)
        return True

    async def _clock(self, game: LiveGame, seat: Seat) -> None:
        ply = game.state.ply
        await self.sleep(float(game.row.options["time_per_move"]))
        if game.over or game.state.ply != ply:
            return
        move, details = fallback_move(game, game.state, agent_rng(ply, seat))
        try:
            await self.play(game, seat, move, ply, {**details, "timeout": True},
                            forfeit=forfeits(game), runner=True)
        except DuelError:
            pass  # the bot moved at the last moment
