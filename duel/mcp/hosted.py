"""A game `duel mcp` hosts: the MCP client's seat against an opponent agent, in this process.

The engine holds the true state; the client's seat reaches it only through the tool set (its
view, `SeatStatus`). The opponent decides as in any match (`duel.match.decide`: its own view, its
generator from the seed and its seat). The game is written as it goes by the one transcript
writer, sealed (no deal, no seed: they hold every hidden card, and an MCP client may read
files) until the game is over, when the complete transcript replaces it.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from duel.agents.base import Agent
from duel.agents.tools.status import SeatStatus
from duel.engine import Deal, Move, Perspective, Result, Seat, new_game
from duel.engine.codes import random_code
from duel.errors import ConflictError, IllegalMoveError
from duel.match import agent_rng, decide, take
from duel.records import MoveRecord
from duel.transcripts import (
    TranscriptWriter,
    default_path,
    header_line,
    prompt_of,
    seal,
)

log = logging.getLogger("duel.mcp")
CLIENT_SPEC = "mcp"  # the client's seat in transcripts: a player over MCP


class HostedGame:
    """One game: `seat` is the client's, `opponent` plays the other. Every method may be
    called from any thread; one lock orders them. `play` returns once the opponent has
    answered (or the game is over)."""

    def __init__(self, gid: str, seat: Seat, opponent: Agent, seed: int,
                 transcripts: Path | None, open_box: bool = True, code: str | None = None,
                 deal: Deal | None = None, client_spec: str = CLIENT_SPEC) -> None:
        self.id = gid
        self.seat = seat
        self.opponent = opponent
        self.seed = seed
        # A random code, as the server gives its games: the deal's own code is a hash of every
        # hidden card, and an MCP client could match it against the deals of likely seeds.
        code = code or random_code(secrets.SystemRandom())
        self.state = new_game(seed, deal=deal, open_box=open_box, code=code)
        self.seen = Perspective(seat)
        self.rng = agent_rng(seed, seat.other)
        self.records: list[MoveRecord] = []
        self.result: Result | None = None
        self.lock = threading.Lock()
        self.turn_started = time.perf_counter()
        specs = [client_spec, opponent.spec] if seat is Seat.P1 else [opponent.spec, client_spec]
        prompts = [None, prompt_of(opponent)] if seat is Seat.P1 else [prompt_of(opponent), None]
        self.header = header_line(seed, self.state.deal, self.state.code, open_box,
                                  list(zip(specs, prompts, strict=True)), time.time())
        self.path: Path | None = None
        self._writer: TranscriptWriter | None = None
        if transcripts is not None:
            self.path = default_path(self.state.code, str(transcripts))
            self._writer = TranscriptWriter(self.path, seal(self.header))

    # ------------------------------------------------------------------ the Table protocol
    def status(self) -> SeatStatus:
        with self.lock:
            return self._status()

    def _status(self) -> SeatStatus:
        return SeatStatus(self.seat, self.seen.view(self.state), self.state.ply,
                          self.result is not None, self.result)

    def play(self, move: Move, details: dict[str, Any]) -> tuple[SeatStatus, list[str]]:
        """The client's `move` (in its labels: it is player2), then the opponent's moves until
        the client is to move again or the game is over. ConflictError if the client is not
        to move; IllegalMoveError (changing nothing) if the move is not legal."""
        with self.lock:
            if self.result is not None:
                raise ConflictError("the game is over")
            if self.state.current != self.seat.index:
                raise ConflictError("it is not your turn")
            true_move = self.seen.move_in(move)
            if true_move not in self.state.legal_moves():
                raise IllegalMoveError(self.seen.text_out(self.state.why_illegal(true_move)))
            seconds = time.perf_counter() - self.turn_started
            played = [self._record(true_move, seconds, details)]
            played += self._opponent_moves()
            return self._status(), played

    # ------------------------------------------------------------------ the game
    def start(self) -> list[str]:
        """The opponent's moves before the client's first (the client plays player 2)."""
        with self.lock:
            return self._opponent_moves()

    def _record(self, move: Move, seconds: float, details: dict[str, Any],
                resigned: bool = False) -> str:
        """Play and record one decision of the player to move; the move in the client's
        words (its view's previousMove)."""
        t = take(self.state, move, seconds, details, resigned, str(details.get("reason", "")))
        self.records.append(t.record)
        if self._writer is not None:
            self._writer.record(t.record)
        self.state = t.after
        if t.result is not None:
            self._finish(t.result)
        if resigned:
            return f"Player {self.seen.seat_out(t.record.seat).player} resigned"
        return str(self.seen.view(self.state)["previousMove"])

    def _opponent_moves(self) -> list[str]:
        played: list[str] = []
        while self.result is None and self.state.current != self.seat.index:
            start = time.perf_counter()
            try:
                move, details, resigned = decide(self.opponent, self.state, self.rng)
            except Exception as exc:  # noqa: BLE001 - the opponent's failure ends its game
                log.warning("game %s: the opponent %s failed: %s: %s", self.id,
                            self.opponent.spec, type(exc).__name__, exc)
                reason = f"the opponent could not move ({type(exc).__name__})"
                played.append(self._record(self.state.legal_moves()[0],
                                           time.perf_counter() - start, {"reason": reason},
                                           resigned=True))
                break
            played.append(self._record(move, time.perf_counter() - start, details, resigned))
        self.turn_started = time.perf_counter()
        return played

    def _finish(self, result: Result) -> None:
        """The game is over: the complete transcript (deal included) replaces the sealed one."""
        self.result = result
        self._write_complete(result)

    def _write_complete(self, result: Result | None) -> None:
        if self._writer is None or self.path is None:
            return
        self._writer.close()
        tmp = self.path.with_name(self.path.name + ".tmp")
        writer = TranscriptWriter(tmp, self.header)
        for record in self.records:
            writer.record(record)
        if result is not None:
            writer.finish(result)
        else:
            writer.close()
        os.replace(tmp, self.path)
        self._writer = None

    def close(self) -> None:
        """The server stops: an unfinished game's transcript gets its deal (nobody can go on
        playing it), so that it can be replayed."""
        with self.lock:
            if self.result is None:
                self._write_complete(None)

    def detach(self) -> None:
        """This process lets go of a game kept in a folder (`kept.py`): another process goes on
        with it, so its transcript stays sealed."""
        with self.lock:
            if self._writer is not None:
                self._writer.close()

    # ------------------------------------------------------------------ kept across processes
    def snapshot(self) -> dict[str, Any]:
        """What `restore` needs to go on with this game in another process: the deal's seed,
        the moves as decided, the opponent's generator and the transcript's place."""
        with self.lock:
            rng = self.rng.getstate()
            return {"id": self.id, "seat": self.seat.player, "seed": self.seed,
                    "code": self.state.code, "open_box": self.state.open_box,
                    "header": self.header, "path": str(self.path) if self.path else None,
                    "moves": [{"move": r.move.to_json(), "seconds": r.seconds,
                               "details": r.details, "resigned": r.is_forfeit}
                              for r in self.records],
                    "rng": [rng[0], list(rng[1]), rng[2]],
                    "turn_wall": time.time() - (time.perf_counter() - self.turn_started)}

    @staticmethod
    def restore(snap: dict[str, Any], opponent: Agent) -> HostedGame:
        """The game of `snapshot`, its moves replayed (the opponent is not asked again) and
        its transcript rewritten in place, still sealed until the game is over."""
        game = HostedGame(snap["id"], Seat.of_player(snap["seat"]), opponent, snap["seed"],
                          None, snap["open_box"], code=snap["code"])
        game.header = snap["header"]
        if snap["path"] is not None:
            game.path = Path(snap["path"])
            game._writer = TranscriptWriter(game.path, seal(game.header))
        for m in snap["moves"]:
            details = {k: v for k, v in m["details"].items() if k != "forfeit"}
            game._record(Move.from_json(m["move"]), m["seconds"], details, m["resigned"])
        version, internal, gauss = snap["rng"]
        game.rng.setstate((version, tuple(internal), gauss))
        game.turn_started = time.perf_counter() - (time.time() - snap["turn_wall"])
        return game
