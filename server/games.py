"""Live games: the engine state of every game, moves applied atomically, agent seats that move by
themselves, time limits for external seats, and change notifications for event streams."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import random
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from duel.agents.base import Agent, Decision
from duel.agents.mcts import MCTSAgent
from duel.agents.spec import make_agent
from duel.engine import (
    Deal,
    DuelError,
    GameState,
    Move,
    Result,
    Seat,
    new_game,
    seat_view,
)
from duel.engine.perspective import Perspective
from duel.errors import SpecError
from duel.match import agent_rng, decide
from duel.records import MoveRecord
from duel.transcripts import (
    header_line,
    move_line,
    prompt_of,
    replay_moves,
    result_line,
)
from server.store import GameRow, Store

log = logging.getLogger("duel.server")
EXTERNAL = "external"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
# Agent budgets the server accepts, in seats and from /agents/move: one request must not hold a
# thread (or fork processes) for ever.
MAX_SECONDS = 30.0
MAX_ITERATIONS = 200_000
MAX_WORKERS = max(1, os.cpu_count() or 1)
RECENT = 32  # past states kept per game, for event streams that fell behind
T = TypeVar("T")


class GameError(Exception):
    """An error with an HTTP status, raised by the manager, mapped by the routes."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(str(detail))
        self.status = status
        self.detail = detail


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_budget(agent: Agent) -> None:
    """Refuse (SpecError) an MCTS agent whose search would take too long or too many
    processes."""
    if isinstance(agent, MCTSAgent) and (agent.time > MAX_SECONDS
                                         or agent.iterations > MAX_ITERATIONS
                                         or getattr(agent, "workers", 1) > MAX_WORKERS):
        raise SpecError(f"mcts budget too large: at most time={MAX_SECONDS:g}, "
                        f"iterations={MAX_ITERATIONS} and workers={MAX_WORKERS}")


class UnavailableAgent:
    """Stands in for a seat's agent that cannot be built any more (after a restart: an API key
    gone from the environment, a model file removed). Every turn fails, so the game's fallback
    plays or forfeits for it, and the game goes on."""

    def __init__(self, spec: str, reason: str) -> None:
        self.spec = spec
        self.reason = reason

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        raise SpecError(f"agent {self.spec!r} is unavailable: {self.reason}")


@dataclass
class LiveGame:
    row: GameRow
    state: GameState
    agents: dict[int, Agent]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    forfeit: int | None = None
    task: asyncio.Task[None] | None = None
    recent: dict[int, GameState] = field(default_factory=dict)  # ply -> past state

    @property
    def code(self) -> str:
        return self.row.code

    @property
    def over(self) -> bool:
        return self.forfeit is not None or self.state.is_terminal()

    @property
    def result(self) -> Result | None:
        """The game's result once it is over (a forfeit included)."""
        if self.forfeit is not None:
            return Result.forfeited(Seat.of_player(self.forfeit), self.state.scores())
        return self.state.result()

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """A seat sees the state with itself as player2 (the prompt's convention); a spectator
        sees the true labels."""
        seen = Perspective.of_player(seat)
        view = seen.view(self.state)
        result = self.result
        if result is not None and result.forfeit is not None:
            view["step"] = "GAME_END"
            winner = seen.seat_out(result.forfeit.other)
            view[winner.key]["won"] = True
            view[winner.other.key]["won"] = False
        return view


class GameManager:
    def __init__(self, store: Store, thinkers: int = 4) -> None:
        self.store = store
        self.games: dict[str, LiveGame] = {}
        self.tokens: dict[str, tuple[str, int]] = {}  # token hash -> (code, seat)
        # Agents think on their own threads: a slow search or LLM call must never queue the
        # storage calls (asyncio's default pool) of every other game behind it.
        self.thinking = ThreadPoolExecutor(thinkers, thread_name_prefix="duel-agent")
        # /agents/move requests thinking or waiting at once; more are refused with 429, so a
        # flood of searches cannot starve the agent seats of the games.
        self.asking = 0
        self.max_asking = thinkers

    async def think(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` (an agent's decision) on the agents' threads."""
        return await asyncio.get_running_loop().run_in_executor(self.thinking, fn, *args)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load every stored game; resume agent seats whose turn it is. A game that cannot be
        restored is logged and left out; it never stops the server from starting."""
        for row in await asyncio.to_thread(self.store.games):
            try:
                moves = await asyncio.to_thread(self.store.moves, row.code)
                game = self._restore(row, moves)
            except Exception:  # noqa: BLE001 - one damaged game must not take the others down
                log.exception("game %s could not be restored; it is left out", row.code)
                continue
            self.games[row.code] = game
            for seat, h in row.token_hashes.items():
                self.tokens[h] = (row.code, seat)
            self._schedule(game)

    async def stop(self) -> None:
        for game in self.games.values():
            if game.task is not None:
                game.task.cancel()
        self.thinking.shutdown(wait=False, cancel_futures=True)

    def _restore(self, row: GameRow, moves: list[MoveRecord]) -> LiveGame:
        game = LiveGame(row, _start(row), self._agents(row.seats, strict=False))
        lines = [m.to_json() for m in moves]
        for step in replay_moves(game.state, lines):
            game.recent[step.before.ply] = step.before
            game.state = step.after
        if moves and moves[-1].is_forfeit:
            game.forfeit = moves[-1].seat.player
        _trim(game)
        if game.state.ply + (1 if game.forfeit else 0) != row.ply:
            raise RuntimeError(f"game {row.code}: stored ply {row.ply} but moves replay to "
                               f"{game.state.ply}")
        return game

    @staticmethod
    def _agents(seats: list[str], strict: bool = True) -> dict[int, Agent]:
        """The seats' agents. `strict` (a new game): a bad spec or budget raises SpecError.
        Otherwise (a restored game) an agent that cannot be built is replaced by one that
        always fails, so the game's fallback takes over its turns."""
        agents: dict[int, Agent] = {}
        for i, spec in enumerate(seats):
            if spec == EXTERNAL:
                continue
            try:
                agent = make_agent(spec)
                check_budget(agent)
            except SpecError as exc:
                if strict:
                    raise
                log.warning("seat %d: agent %r unavailable (%s); its fallback plays", i + 1,
                            spec, exc)
                agent = UnavailableAgent(spec, str(exc))
            agents[i + 1] = agent
        return agents

    # ------------------------------------------------------------------ games
    async def create(self, seats: list[str], seed: int | None, deal_json: dict[str, Any] | None,
                     open_box: bool, time_per_move: float | None, fallback: str
                     ) -> tuple[LiveGame, dict[str, str]]:
        agents = self._agents(seats)  # raises SpecError for a bad spec
        if deal_json is not None:
            deal = Deal.from_json(deal_json)
        else:
            deal = Deal.random(random.Random(seed if seed is not None
                                             else secrets.randbits(63)))
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        while code in self.games:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        tokens = {str(i + 1): secrets.token_urlsafe(24)
                  for i, spec in enumerate(seats) if spec == EXTERNAL}
        row = GameRow(code, seats, {int(s): token_hash(t) for s, t in tokens.items()},
                      {"seed": seed, "deal": deal.to_json(), "open_box": open_box,
                       "time_per_move": time_per_move, "fallback": fallback}, 0, False,
                      time.time())
        state = new_game(deal=deal, open_box=open_box, code=code)
        game = LiveGame(row, state, agents)
        await asyncio.to_thread(self.store.create_game, row, seat_view(state))
        self.games[code] = game
        for s, t in tokens.items():
            self.tokens[token_hash(t)] = (code, int(s))
        self._schedule(game)
        return game, tokens

    def get(self, code: str) -> LiveGame:
        game = self.games.get(code)
        if game is None:
            raise GameError(404, f"no game {code!r}")
        return game

    def seat_of(self, code: str, token: str | None) -> int:
        """The seat a bearer token holds in game `code` (401 unknown token, 403 other game)."""
        if not token:
            raise GameError(401, "missing bearer token")
        found = self.tokens.get(token_hash(token))
        if found is None:
            raise GameError(401, "unknown token")
        if found[0] != code:
            raise GameError(403, "this token belongs to another game")
        return found[1]

    # ------------------------------------------------------------------ moves
    def legal_for(self, game: LiveGame, seat: int) -> list[tuple[Move, int]]:
        """The seat's legal moves with prices, in its labels (it is player2); [] if not its
        turn."""
        if game.over or game.state.current_player != seat:
            return []
        seen = Perspective.of_player(seat)
        return [(seen.move_out(m), p) for m, p in game.state.priced_moves()]

    async def submit(self, game: LiveGame, seat: int, move_json: Any, ply: int
                     ) -> tuple[int, dict[str, Any]]:
        """An external seat's move, in its labels, at `ply` (moves already played). Returns the
        game's new ply and the state as the seat sees it right after the move."""
        try:
            move = Move.from_json(move_json)
        except DuelError as exc:
            raise GameError(422, {"error": "malformed move", "reason": str(exc)}) from None
        move = Perspective.of_player(seat).move_in(move)
        try:
            return await self._apply(game, seat, move, ply, {}, 0.0)
        except GameError as exc:
            if exc.status == 409 and 0 <= ply < game.row.ply:
                exc.detail = await self._stale_detail(game, seat, move, ply, str(exc.detail))
            raise

    async def _stale_detail(self, game: LiveGame, seat: int, move: Move, ply: int,
                            detail: str) -> str:
        """A stale ply's refusal, saying whether the move sent is the one recorded at that ply
        (a retry whose first answer was lost: the move was applied, once)."""
        rows = await asyncio.to_thread(self.store.moves, game.code)
        if ply < len(rows) and rows[ply].seat.player == seat and not rows[ply].is_forfeit:
            if rows[ply].move == move:
                return f"{detail}; this move was already applied as move {ply + 1}"
        return f"{detail}; move {ply + 1} was another move"

    async def _apply(self, game: LiveGame, seat: int, move: Move, ply: int,
                     details: dict[str, Any], seconds: float, forfeit: bool = False
                     ) -> tuple[int, dict[str, Any]]:
        async with game.lock:
            state = game.state
            if game.over:
                raise GameError(409, "the game is over")
            if ply != state.ply:
                raise GameError(409, f"stale ply: {ply} moves were sent as played, the game has "
                                     f"{state.ply}")
            if state.current_player != seat:
                raise GameError(409, f"not your turn: player {state.current_player} is to move")
            seen = Perspective.of_player(seat)
            if move not in state.legal_moves():
                legal = [m.to_json() for m in seen.moves_out(state.legal_moves())]
                raise GameError(422, {"error": "illegal move",
                                      "move": seen.move_out(move).to_json(),
                                      "reason": seen.text_out(state.why_illegal(move)),
                                      "legal": legal})
            record = MoveRecord.decided(state, move, seconds, details, forfeit)
            after = state if forfeit else state.apply(move)
            over = forfeit or after.is_terminal()
            await asyncio.to_thread(self.store.append_move, game.code, record,
                                    seat_view(after), over)
            game.row.ply = record.ply
            game.row.over = over
            if forfeit:
                game.forfeit = seat
            else:
                game.recent[state.ply] = state
                game.state = after
                _trim(game)
            answer = (game.row.ply, game.view_for(seat))
        async with game.changed:
            game.changed.notify_all()
        self._schedule(game)
        return answer

    # ------------------------------------------------------------------ agents and clocks
    def _schedule(self, game: LiveGame) -> None:
        """Start the turn of the player to move: its agent, or the clock of an external seat.
        The previous turn's clock (its ply is played) is stopped, so `stop` finds every task."""
        previous = game.task
        if previous is not None and not previous.done() \
                and previous is not asyncio.current_task():
            previous.cancel()
        game.task = None
        if game.over:
            return
        seat = game.state.current_player
        if seat in game.agents:
            game.task = asyncio.get_running_loop().create_task(self._agent_turn(game, seat))
        elif game.row.options.get("time_per_move"):
            game.task = asyncio.get_running_loop().create_task(self._clock(game, seat))

    async def _agent_turn(self, game: LiveGame, seat: int) -> None:
        ply = game.state.ply
        state = game.state
        rng = agent_rng(ply * 7919 + seat, Seat.of_player(seat))
        start = time.perf_counter()
        forfeit = False
        try:
            move, details, forfeit = await self.think(decide, game.agents[seat], state, rng)
        except Exception as exc:  # noqa: BLE001 - an agent failing must not stop the game
            log.warning("game %s: agent %s failed: %s", game.code, game.row.seats[seat - 1], exc)
            move, details = self._fallback_move(game, state, rng)
            details = {**details, "error": f"{type(exc).__name__}: {exc}"}
            forfeit = game.row.options.get("fallback") == "forfeit"
        try:
            await self._apply(game, seat, move, ply, details, time.perf_counter() - start,
                              forfeit)
        except GameError as exc:
            log.warning("game %s: agent move refused: %s", game.code, exc)

    def _fallback_move(self, game: LiveGame, state: GameState, rng: random.Random
                       ) -> tuple[Move, dict[str, Any]]:
        kind = game.row.options.get("fallback", "random")
        agent = make_agent("rule" if kind == "rule" else "random")
        move, _, _ = decide(agent, state, rng)
        return move, {"fallback": kind}

    async def _clock(self, game: LiveGame, seat: int) -> None:
        ply = game.state.ply
        await asyncio.sleep(float(game.row.options["time_per_move"]))
        if game.over or game.state.ply != ply:
            return
        kind = game.row.options.get("fallback", "random")
        move, details = self._fallback_move(game, game.state, agent_rng(ply, Seat.of_player(seat)))
        try:
            await self._apply(game, seat, move, ply, {**details, "timeout": True}, 0.0,
                              forfeit=kind == "forfeit")
        except GameError:
            pass  # the bot moved at the last moment

    # ------------------------------------------------------------------ event streams
    async def views(self, game: LiveGame, first: int, last: int, seat: int | None
                    ) -> list[tuple[int, dict[str, Any]]]:
        """The state after each of the plies first..last as `seat` sees it (after a forfeit,
        the last "ply" is the resignation). Past states come from the recent ones, else from a
        replay of the stored moves."""
        out: list[tuple[int, dict[str, Any]]] = []
        replayed: dict[int, GameState] | None = None
        for ply in range(first, last + 1):
            if ply == game.row.ply:
                out.append((ply, game.view_for(seat)))
                continue
            state = game.state if game.state.ply == ply else game.recent.get(ply)
            if state is None:
                if replayed is None:
                    replayed = await self._replay(game)
                state = replayed.get(ply)
            if state is not None:
                out.append((ply, Perspective.of_player(seat).view(state)))
        return out

    async def _replay(self, game: LiveGame) -> dict[int, GameState]:
        rows = await asyncio.to_thread(self.store.moves, game.code)
        start = _start(game.row)
        states = {0: start}
        for step in replay_moves(start, [m.to_json() for m in rows]):
            states[step.after.ply] = step.after
        return states

    # ------------------------------------------------------------------ transcripts
    async def transcript(self, game: LiveGame, partial: bool = False) -> list[dict[str, Any]]:
        """The game's transcript lines (what TranscriptWriter writes for the same game);
        `partial` allows an unfinished game (no result line)."""
        if not game.over and not partial:
            raise GameError(409, "the transcript is ready once the game is over")
        records = await asyncio.to_thread(self.store.moves, game.code)
        options = game.row.options
        header = header_line(options.get("seed"), Deal.from_json(options["deal"]), game.code,
                             options["open_box"],
                             [(spec, prompt_of(game.agents.get(i + 1)))
                              for i, spec in enumerate(game.row.seats)],
                             game.row.created or time.time())
        lines = [header, *(move_line(r) for r in records)]
        result = game.result
        if result is not None:
            lines.append(result_line(result, records))
        return lines


def _start(row: GameRow) -> GameState:
    """A stored game's first position."""
    return new_game(deal=Deal.from_json(row.options["deal"]), open_box=row.options["open_box"],
                    code=row.code)


def _trim(game: LiveGame) -> None:
    for ply in [p for p in game.recent if p < game.state.ply - RECENT]:
        del game.recent[ply]
