"""Live games: the engine state of every game, moves applied atomically, agent seats that move by
themselves, time limits for external seats, and change notifications for event streams."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from duel.agents.base import Agent
from duel.agents.spec import make_agent
from duel.engine import (
    Deal,
    DuelError,
    GameState,
    Move,
    new_game,
    relabel_move,
    relabel_text,
    seat_view,
)
from duel.match import agent_rng, decide
from duel.transcripts import FORMAT_VERSION, view_hash
from server.store import GameRow, MoveRow, Store

log = logging.getLogger("duel.server")
EXTERNAL = "external"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"


class GameError(Exception):
    """An error with an HTTP status, raised by the manager, mapped by the routes."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(str(detail))
        self.status = status
        self.detail = detail


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class LiveGame:
    row: GameRow
    state: GameState
    agents: dict[int, Agent]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    forfeit: int | None = None
    task: asyncio.Task[None] | None = None

    @property
    def code(self) -> str:
        return self.row.code

    @property
    def over(self) -> bool:
        return self.forfeit is not None or self.state.is_terminal()

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """A seat sees the state with itself as player2 (the prompt's convention); a spectator
        sees the true labels."""
        view = seat_view(self.state, as_player2=seat)
        if self.forfeit is not None:
            view["step"] = "GAME_END"
            winner = 3 - self.forfeit
            label = 3 - winner if seat == 1 else winner
            view[f"player{label}"]["won"] = True
            view[f"player{3 - label}"]["won"] = False
        return view


class GameManager:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.games: dict[str, LiveGame] = {}
        self.tokens: dict[str, tuple[str, int]] = {}  # token hash -> (code, seat)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load every stored game; resume agent seats whose turn it is."""
        for row in await asyncio.to_thread(self.store.games):
            moves = await asyncio.to_thread(self.store.moves, row.code)
            game = self._restore(row, moves)
            self.games[row.code] = game
            for seat, h in row.token_hashes.items():
                self.tokens[h] = (row.code, seat)
            self._schedule(game)

    async def stop(self) -> None:
        for game in self.games.values():
            if game.task is not None:
                game.task.cancel()

    def _restore(self, row: GameRow, moves: list[MoveRow]) -> LiveGame:
        state = new_game(deal=Deal.from_json(row.options["deal"]),
                         open_box=row.options["open_box"], code=row.code)
        game = LiveGame(row, state, self._agents(row.seats))
        for m in moves:
            if m.details.get("forfeit"):
                game.forfeit = m.player
                break
            game.state = game.state.apply(Move.from_json(m.move))
        if game.state.ply + (1 if game.forfeit else 0) != row.ply:
            raise RuntimeError(f"game {row.code}: stored ply {row.ply} but moves replay to "
                               f"{game.state.ply}")
        return game

    @staticmethod
    def _agents(seats: list[str]) -> dict[int, Agent]:
        return {i + 1: make_agent(spec) for i, spec in enumerate(seats) if spec != EXTERNAL}

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
        tokens = {str(i + 1): secrets.token_urlsafe(24)
                  for i, spec in enumerate(seats) if spec == EXTERNAL}
        row = GameRow(code, seats, {int(s): token_hash(t) for s, t in tokens.items()},
                      {"seed": seed, "deal": deal.to_json(), "open_box": open_box,
                       "time_per_move": time_per_move, "fallback": fallback}, 0, False)
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
        flip = seat == 1
        return [(relabel_move(m) if flip else m, p) for m, p in game.state.priced_moves()]

    async def submit(self, game: LiveGame, seat: int, move_json: Any, ply: int) -> None:
        """An external seat's move, in its labels, at `ply` (moves already played)."""
        try:
            move = Move.from_json(move_json)
        except DuelError as exc:
            raise GameError(422, {"error": "malformed move", "reason": str(exc)}) from None
        if seat == 1:
            move = relabel_move(move)
        await self._apply(game, seat, move, ply, {}, 0.0)

    async def _apply(self, game: LiveGame, seat: int, move: Move, ply: int,
                     details: dict[str, Any], seconds: float, forfeit: bool = False) -> None:
        async with game.lock:
            state = game.state
            if game.over:
                raise GameError(409, "the game is over")
            if ply != state.ply:
                raise GameError(409, f"stale ply: {ply} moves were sent as played, the game has "
                                     f"{state.ply}")
            if state.current_player != seat:
                raise GameError(409, f"not your turn: player {state.current_player} is to move")
            flip = seat == 1
            if move not in state.legal_moves():
                legal = [(relabel_move(m) if flip else m).to_json() for m in state.legal_moves()]
                shown = relabel_move(move) if flip else move
                raise GameError(422, {"error": "illegal move", "move": shown.to_json(),
                                      "reason": _labels(state.why_illegal(move), flip),
                                      "legal": legal})
            record = MoveRow(state.ply + 1, seat, state.step_name, move.to_json(),
                             state.price(move), view_hash(seat_view(state, as_player2=seat)),
                             round(seconds, 4), {**details, "forfeit": True} if forfeit
                             else details)
            after = state if forfeit else state.apply(move)
            over = forfeit or after.is_terminal()
            await asyncio.to_thread(self.store.append_move, game.code, record,
                                    seat_view(after), over)
            game.row.ply = record.ply
            game.row.over = over
            if forfeit:
                game.forfeit = seat
            else:
                game.state = after
        async with game.changed:
            game.changed.notify_all()
        self._schedule(game)

    # ------------------------------------------------------------------ agents and clocks
    def _schedule(self, game: LiveGame) -> None:
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
        rng = agent_rng(ply * 7919 + seat, seat)
        start = time.perf_counter()
        forfeit = False
        try:
            move, details, forfeit = await asyncio.to_thread(decide, game.agents[seat], state,
                                                             rng)
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
        move, details = self._fallback_move(game, game.state, agent_rng(ply, seat))
        try:
            await self._apply(game, seat, move, ply, {**details, "timeout": True}, 0.0,
                              forfeit=kind == "forfeit")
        except GameError:
            pass  # the bot moved at the last moment

    # ------------------------------------------------------------------ transcripts
    async def transcript(self, game: LiveGame, partial: bool = False) -> list[dict[str, Any]]:
        """The game's transcript lines; `partial` allows an unfinished game (no result line)."""
        if not game.over and not partial:
            raise GameError(409, "the transcript is ready once the game is over")
        moves = await asyncio.to_thread(self.store.moves, game.code)
        from duel import __version__
        from duel.agents.llm.accounting import llm_totals
        from duel.engine import RULES_VERSION

        header = {"type": "header", "format_version": FORMAT_VERSION, "duel_version": __version__,
                  "rules_version": RULES_VERSION, "seed": game.row.options.get("seed"),
                  "code": game.code, "deal": game.row.options["deal"],
                  "options": {"open_box": game.row.options["open_box"]},
                  "players": {str(i + 1): {"spec": spec, "prompt": _prompt(game.agents.get(i + 1))}
                              for i, spec in enumerate(game.row.seats)}}
        lines: list[dict[str, Any]] = [header]
        for m in moves:
            lines.append({"type": "move", "ply": m.ply, "player": m.player, "step": m.step,
                          "move": m.move, "price": m.price, "view_hash": m.view_hash,
                          "seconds": m.seconds, "details": m.details})
        final = game.state
        if not game.over:
            return lines
        if game.forfeit is not None:
            winner: int | str = 3 - game.forfeit
            victory = "forfeit"
        else:
            result = final.result()
            assert result is not None
            winner, victory = result["winner"], result["victory"]  # type: ignore[assignment]
        lines.append({"type": "result", "winner": winner, "victory": victory,
                      "scores": {"player1": final.score(0), "player2": final.score(1)},
                      "moves": len(moves), "seconds": round(sum(m.seconds for m in moves), 3),
                      "forfeit": game.forfeit,
                      "totals": {str(s): llm_totals(m.details for m in moves if m.player == s)
                                 for s in (1, 2)}})
        return lines


def _prompt(agent: Agent | None) -> dict[str, str] | None:
    variant = getattr(agent, "variant", None)
    return None if variant is None else {"name": variant.name, "hash": variant.hash}


def _labels(text: str, flip: bool) -> str:
    return relabel_text(text) if flip else text
