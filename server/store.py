"""Storage behind one small interface. SQLite by default (one file, WAL); each move is one
transaction that stores the move and the game's new position together, so a crash never leaves
a half-applied move. Another backend (PostgreSQL) implements the same `Store` protocol."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

from duel.engine import Seat
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


class Store(Protocol):
    """What the game manager needs from storage. `append_move` is atomic: the move and the
    game's new ply, end flag and view are stored together or not at all, and only if the game
    is still at the ply before the move (else StoreError)."""

    def create_game(self, row: GameRow, view: dict[str, Any]) -> None: ...

    def games(self, unfinished: bool = False) -> list[GameRow]: ...

    def game(self, code: str) -> GameRow | None: ...

    def moves(self, code: str) -> list[MoveRecord]: ...

    def append_move(self, code: str, move: MoveRecord, view: dict[str, Any],
                    over: bool) -> None: ...

    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    code TEXT PRIMARY KEY,
    created REAL NOT NULL,
    seats TEXT NOT NULL,
    tokens TEXT NOT NULL,
    options TEXT NOT NULL,
    ply INTEGER NOT NULL,
    over INTEGER NOT NULL,
    view TEXT NOT NULL
);
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


_ROW = "code, seats, tokens, options, ply, over, created"


def _game_row(code: str, seats: str, tokens: str, options: str, ply: int, over: int,
              created: float) -> GameRow:
    return GameRow(code, json.loads(seats),
                   {Seat.of_player(int(k)): v for k, v in json.loads(tokens).items()},
                   json.loads(options), ply, bool(over), created)


class SQLiteStore:
    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def create_game(self, row: GameRow, view: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (row.code, row.created or time.time(), json.dumps(row.seats),
                 json.dumps({str(k.player): v for k, v in row.token_hashes.items()}),
                 json.dumps(row.options), row.ply, int(row.over), json.dumps(view)))

    def games(self, unfinished: bool = False) -> list[GameRow]:
        """Every game (only those not over, if `unfinished`), oldest first."""
        where = "WHERE over = 0 " if unfinished else ""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_ROW} FROM games {where}ORDER BY created").fetchall()
        return [_game_row(*row) for row in rows]

    def game(self, code: str) -> GameRow | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_ROW} FROM games WHERE code = ?",
                                   (code,)).fetchone()
        return None if row is None else _game_row(*row)

    def moves(self, code: str) -> list[MoveRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT ply, player, step, move, price, view_hash, seconds, details FROM moves "
                "WHERE code = ? ORDER BY ply", (code,)).fetchall()
        return [MoveRecord.from_json({"ply": ply, "player": player, "step": step,
                                      "move": json.loads(move), "price": price,
                                      "view_hash": vh, "seconds": seconds,
                                      "details": json.loads(details)})
                for ply, player, step, move, price, vh, seconds, details in rows]

    def append_move(self, code: str, move: MoveRecord, view: dict[str, Any], over: bool) -> None:
        """Insert the move and update the game in one transaction; the ply must be the next."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                cur = self._db.execute(
                    "UPDATE games SET ply = ?, over = ?, view = ? WHERE code = ? AND ply = ?",
                    (move.ply, int(over), json.dumps(view), code, move.ply - 1))
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


def open_store(url: str) -> Store:
    """`sqlite:///path/to/file.db`, or a plain path. Other schemes are for later backends."""
    if url.startswith("sqlite:///"):
        return SQLiteStore(url[len("sqlite:///"):])
    if "://" in url:
        raise StoreError(f"unsupported storage URL {url!r}; use sqlite:///PATH")
    return SQLiteStore(url)
