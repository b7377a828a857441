"""What every store shares: the stored game's row, the `Store` protocol the game manager needs
(and `SharedStore`, what several server processes on one database need), and the columns both
databases use for games and moves."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from duel.engine import Result, Seat
from duel.records import MoveRecord


@dataclass
class GameRow:
    code: str
    seats: list[str]  # agent spec, or "external"
    token_hashes: dict[Seat, str]  # external seat -> sha256 of its bearer token
    options: dict[str, Any]  # seed, deal (JSON), open_box, time_per_move, fallback
    ply: int
    over: bool
    created: float = 0.0  # seconds since the epoch
    # Once over: who won (1 or 2, 0 for a shared victory) and how (the Result's victory).
    # None while the game goes on, and for games finished before the store kept results.
    winner: int | None = None
    victory: str | None = None


def result_columns(result: Result | None) -> tuple[int | None, str | None]:
    """A result as the store keeps it: (winner, victory)."""
    if result is None:
        return None, None
    return (0 if result.winner is None else result.winner.player), result.victory


class Store(Protocol):
    """What the game manager needs from storage. `append_move` is atomic: the move and the
    game's new ply, end flag and view are stored together or not at all, and only if the game
    is still at the ply before the move (else StoreError).

    `writes_inline`: the server makes a move's write on the event loop's own thread instead of
    a worker thread's. True for a local SQLite file, whose commit takes a fraction of a
    millisecond: handed to a thread, the write waited for the GIL behind the busy loop at each
    of its sqlite3 calls, and under 50 bots a move's POST took 170 ms where its GET took 3
    (`duel bench server`). False for a database over the network."""

    writes_inline: bool

    def create_game(self, row: GameRow, view: dict[str, Any]) -> None: ...

    def games(self, unfinished: bool = False) -> list[GameRow]: ...

    def list_games(self, limit: int) -> list[GameRow]:
        """The newest `limit` games, newest first, read through an index on their creation
        time: the cost does not grow with the games stored."""
        ...

    def game(self, code: str) -> GameRow | None: ...

    def moves(self, code: str, after: int = 0) -> list[MoveRecord]:
        """The game's moves past ply `after`, in order."""
        ...

    def append_move(self, code: str, move: MoveRecord, view: dict[str, Any],
                    over: bool, result: Result | None = None, runner: bool = False) -> None:
        """`result`: the game's, when this move ends it (kept for listings). `runner`: the
        move is this process's as the game's runner (an agent seat's, or a clock's); a
        store several processes share stores it only while the game is still leased to this
        process (StoreError once another holds it), checked in the move's transaction."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class SharedStore(Store, Protocol):
    """A store several server processes share. Each process is one `holder`; a game whose
    agent seats or clock someone must run is leased to one holder at a time (its creator
    first), for `lease_seconds` at a time, renewed while the holder lives."""

    holder: str
    lease_seconds: float

    def claim(self, limit: int) -> list[str]:
        """Take the lease of up to `limit` unfinished games that need a runner and whose lease
        ran out (their holder died or let go); their codes."""
        ...

    def renew(self) -> set[str]:
        """Extend this holder's leases of unfinished games; the codes it still holds."""
        ...

    def release(self) -> None:
        """Let go of every lease this holder has, for another process to take at once."""
        ...

    def unfinished(self) -> int:
        """How many games are not over (every process's)."""
        ...

    def advance(self, seconds: float) -> None:
        """Move this store's clock on by `seconds` (tests: a lease runs out without a wait)."""
        ...

    def listen(self, moved: Callable[[str, int], None]) -> None:
        """Call `moved(code, ply)` (from another thread) after any process stores a move, and
        `moved("", 0)` after a lost connection to the database is back (moves may have been
        missed: catch up on everything)."""
        ...


ROW_COLUMNS = "code, seats, tokens, options, ply, over, created, winner, victory"
# The newest first; ties (one clock tick) by code, so a listing's order is the same each time.
NEWEST = "ORDER BY created DESC, code DESC"
RESULT_COLUMNS = [("winner", "INTEGER"), ("victory", "TEXT")]  # added after the first release
MOVE_COLUMNS = "ply, player, step, move, price, view_hash, seconds, details"


def move_record(ply: int, player: int, step: str, move: str, price: int, view_hash: str,
                seconds: float, details: str) -> MoveRecord:
    """A stored move (the columns of MOVE_COLUMNS) as its record."""
    return MoveRecord.from_json({"ply": ply, "player": player, "step": step,
                                 "move": json.loads(move), "price": price,
                                 "view_hash": view_hash, "seconds": seconds,
                                 "details": json.loads(details)})


def game_row(code: str, seats: str, tokens: str, options: str, ply: int, over: int,
             created: float, winner: int | None = None, victory: str | None = None) -> GameRow:
    return GameRow(code, json.loads(seats),
                   {Seat.of_player(int(k)): v for k, v in json.loads(tokens).items()},
                   json.loads(options), ply, bool(over), created, winner, victory)
