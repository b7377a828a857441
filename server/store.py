"""Storage behind one small interface. SQLite by default (one file, WAL); each move is one
transaction that stores the move and the game's new position together, so a crash never leaves
a half-applied move. PostgreSQL (server/store_pg.py) implements the same `Store` protocol, and
`SharedStore` besides: what several `duel serve` processes on one database need (leases on the
games whose agent seats or clocks they run, and word of the moves the others apply)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic_core import to_json

from duel.engine import Result, Seat
from duel.errors import StoreError
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

    def listen(self, moved: Callable[[str, int], None]) -> None:
        """Call `moved(code, ply)` (from another thread) after any process stores a move, and
        `moved("", 0)` after a lost connection to the database is back (moves may have been
        missed: catch up on everything)."""
        ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    code TEXT PRIMARY KEY,
    created REAL NOT NULL,
    seats TEXT NOT NULL,
    tokens TEXT NOT NULL,
    options TEXT NOT NULL,
    ply INTEGER NOT NULL,
    over INTEGER NOT NULL,
    view TEXT NOT NULL,
    winner INTEGER,
    victory TEXT
);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (over, created);
CREATE INDEX IF NOT EXISTS games_created ON games (created, code);
CREATE TABLE IF NOT EXISTS moves (
    code TEXT NOT NULL REFERENCES games(code),
    ply INTEGER NOT NULL,
    player INTEGER NOT NULL,
    step TEXT NOT NULL,
    move TEXT NOT NULL,
    price INTEGER NOT NULL,
    view_hash TEXT NOT NULL,
    seconds REAL NOT NULL,
    details TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (code, ply)
);
"""


_ROW = "code, seats, tokens, options, ply, over, created, winner, victory"
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


class SQLiteStore:
    writes_inline = True

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        # A database from before results were kept: add their columns before the schema's
        # indexes are made (CREATE TABLE IF NOT EXISTS leaves an existing table as it is).
        known = {r[1] for r in self._db.execute("PRAGMA table_info(games)")}
        if known:
            for name, kind in RESULT_COLUMNS:
                if name not in known:
                    self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")
        self._db.executescript(_SCHEMA)

    def create_game(self, row: GameRow, view: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO games (code, created, seats, tokens, options, ply, over, view, "
                "winner, victory) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.code, row.created or time.time(), json.dumps(row.seats),
                 json.dumps({str(k.player): v for k, v in row.token_hashes.items()}),
                 json.dumps(row.options), row.ply, int(row.over), json.dumps(view),
                 row.winner, row.victory))

    def games(self, unfinished: bool = False) -> list[GameRow]:
        """Every game (only those not over, if `unfinished`), oldest first."""
        where = "WHERE over = 0 " if unfinished else ""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_ROW} FROM games {where}ORDER BY created").fetchall()
        return [game_row(*row) for row in rows]

    def list_games(self, limit: int) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_ROW} FROM games {NEWEST} LIMIT ?",
                                    (limit,)).fetchall()
        return [game_row(*row) for row in rows]

    def game(self, code: str) -> GameRow | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_ROW} FROM games WHERE code = ?",
                                   (code,)).fetchone()
        return None if row is None else game_row(*row)

    def moves(self, code: str, after: int = 0) -> list[MoveRecord]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {MOVE_COLUMNS} FROM moves WHERE code = ? AND ply > ? ORDER BY ply",
                (code, after)).fetchall()
        return [move_record(*row) for row in rows]

    def append_move(self, code: str, move: MoveRecord, view: dict[str, Any], over: bool,
                    result: Result | None = None, runner: bool = False) -> None:
        """Insert the move and update the game in one transaction; the ply must be the next.
        (`runner` needs no check: one process has the file, and runs every game.)"""
        winner, victory = result_columns(result)
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                cur = self._db.execute(
                    "UPDATE games SET ply = ?, over = ?, view = ?, winner = ?, victory = ? "
                    "WHERE code = ? AND ply = ?",
                    (move.ply, int(over), to_json(view).decode(), winner, victory, code,
                     move.ply - 1))
                if cur.rowcount != 1:
                    raise StoreError(f"game {code} is not at ply {move.ply - 1}")
                self._db.execute(
                    "INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (code, move.ply, move.seat.player, move.step, json.dumps(move.move.to_json()),
                     move.price,
                     move.view_hash, move.seconds, json.dumps(move.details), time.time()))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()


def shown(url: str) -> str:
    """A storage URL fit to print: without its password."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    who, _, where = rest.rpartition("@")
    return f"{scheme}://{who.split(':')[0]}:***@{where}" if ":" in who else url


def open_store(url: str, lease_seconds: float = 15.0) -> Store:
    """`sqlite:///path/to/file.db` or a plain path (SQLite), or `postgresql://...` (a libpq
    URL; needs the `postgresql` extra). `lease_seconds`: see SharedStore."""
    if url.startswith("sqlite:///"):
        return SQLiteStore(url[len("sqlite:///"):])
    if url.startswith(("postgresql://", "postgres://")):
        from server.store_pg import PostgresStore

        return PostgresStore(url, lease_seconds)
    if "://" in url:
        raise StoreError(f"unsupported storage URL {url.split('://')[0]!r}://...; use "
                         "sqlite:///PATH, a path, or postgresql://USER@HOST:PORT/DATABASE")
    return SQLiteStore(url)
