"""The SQLite store, the default (one file, WAL): each move is one transaction that stores the
move and the game's new position together, so a crash never leaves a half-applied move."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from typing import Any

from pydantic_core import to_json

from duel.engine import Result
from duel.errors import StoreError
from duel.records import MoveRecord
from server.store.rows import (
    MOVE_COLUMNS,
    NEWEST,
    RESULT_COLUMNS,
    ROW_COLUMNS,
    GameRow,
    game_row,
    move_record,
    result_columns,
)

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
                f"SELECT {ROW_COLUMNS} FROM games {where}ORDER BY created").fetchall()
        return [game_row(*row) for row in rows]

    def list_games(self, limit: int) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute(f"SELECT {ROW_COLUMNS} FROM games {NEWEST} LIMIT ?",
                                    (limit,)).fetchall()
        return [game_row(*row) for row in rows]

    def game(self, code: str) -> GameRow | None:
        with self._lock:
            row = self._db.execute(f"SELECT {ROW_COLUMNS} FROM games WHERE code = ?",
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
