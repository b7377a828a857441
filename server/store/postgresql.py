"""The PostgreSQL store: the `Store` protocol on a database that several `duel serve`
processes share (`SharedStore`). Each move is one transaction that stores it only if the game
is still at the ply before it (the same move posted to two processes at once is applied
once), and tells every process through NOTIFY when it commits. Leases use the database's
clock, so the machines' clocks need not agree.

psycopg 3 is the driver and psycopg_pool keeps the connections (the store's methods run in
worker threads); both come with the `postgresql` extra."""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from duel.engine import Result
from duel.errors import StoreError, UsageError
from duel.records import MoveRecord
from server.store.rows import (
    MOVE_COLUMNS,
    NEWEST,
    ROW_COLUMNS,
    GameRow,
    game_row,
    move_record,
    result_columns,
)

try:
    import psycopg
    from psycopg_pool import ConnectionPool
except ImportError:  # pragma: no cover - only without the extra
    psycopg = None  # type: ignore[assignment]

log = logging.getLogger("duel.server")
CHANNEL = "duel_moves"
NOW = "extract(epoch from clock_timestamp())"
LISTEN_POLL = 0.25  # seconds between checks that the listener should stop
LISTEN_WAIT = 30.0  # seconds `listen` waits for the listener's first connection
POOL_SIZE = 8
CONNECT_TIMEOUT = 10  # seconds

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS games (
        code TEXT PRIMARY KEY,
        created DOUBLE PRECISION NOT NULL,
        seats TEXT NOT NULL,
        tokens TEXT NOT NULL,
        options TEXT NOT NULL,
        ply INTEGER NOT NULL,
        over BOOLEAN NOT NULL,
        view TEXT NOT NULL,
        needs_runner BOOLEAN NOT NULL,
        runner TEXT NOT NULL DEFAULT '',
        lease_until DOUBLE PRECISION NOT NULL DEFAULT 0,
        winner INTEGER,
        victory TEXT)""",
    # A database from before results were kept.
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS winner INTEGER",
    "ALTER TABLE games ADD COLUMN IF NOT EXISTS victory TEXT",
    # The lobby's listing reads the newest games only, through this index.
    "CREATE INDEX IF NOT EXISTS games_created ON games (created, code)",
    # Finding the unfinished games (at start, and the leases to take) must not read the
    # finished ones, however many there are.
    "CREATE INDEX IF NOT EXISTS games_unfinished ON games (created) WHERE NOT over",
    "CREATE INDEX IF NOT EXISTS games_runner ON games (runner) WHERE NOT over",
    """CREATE TABLE IF NOT EXISTS moves (
        code TEXT NOT NULL REFERENCES games(code),
        ply INTEGER NOT NULL,
        player INTEGER NOT NULL,
        step TEXT NOT NULL,
        move TEXT NOT NULL,
        price INTEGER NOT NULL,
        view_hash TEXT NOT NULL,
        seconds DOUBLE PRECISION NOT NULL,
        details TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, ply))""",
]
SCHEMA_LOCK = 72_101  # an advisory lock: two processes starting at once create the tables once


def needs_runner(row: GameRow) -> bool:
    """Whether some process must run the game's turns: it has an agent seat, or a clock."""
    return any(s != "external" for s in row.seats) or bool(row.options.get("time_per_move"))


class PostgresStore:
    writes_inline = False

    def __init__(self, url: str, lease_seconds: float = 15.0) -> None:
        if psycopg is None:
            raise UsageError("PostgreSQL needs its driver: pip install -e '.[postgresql]'")
        self.url = url
        self.lease_seconds = lease_seconds
        # Seconds this store adds to the database's clock: 0, but for tests, which move a
        # store's time on (`advance`) instead of sleeping through a lease.
        self.clock_offset = 0.0
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._stopping = threading.Event()
        self._listener: threading.Thread | None = None
        try:
            # One connection first: a wrong URL fails at once, not after the pool's timeout.
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                    for statement in _SCHEMA:
                        conn.execute(statement)
        except psycopg.Error as exc:
            raise StoreError(f"cannot reach the PostgreSQL database: "
                             f"{type(exc).__name__}: {_first_line(exc)}") from None
        self._pool = ConnectionPool(url, min_size=1, max_size=POOL_SIZE, open=True,
                                    kwargs={"autocommit": True}, timeout=30.0)

    # ------------------------------------------------------------------ Store
    def create_game(self, row: GameRow, view: dict[str, Any]) -> None:
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO games (code, created, seats, tokens, options, ply, over, view, "
                "winner, victory, needs_runner, runner, lease_until) VALUES (%s, %s, %s, %s, "
                f"%s, %s, %s, %s, %s, %s, %s, %s, {NOW} + %s)",
                (row.code, row.created or time.time(), json.dumps(row.seats),
                 json.dumps({str(k.player): v for k, v in row.token_hashes.items()}),
                 json.dumps(row.options), row.ply, row.over, json.dumps(view), row.winner,
                 row.victory, needs_runner(row), self.holder,
                 self.clock_offset + self.lease_seconds))

    def games(self, unfinished: bool = False) -> list[GameRow]:
        where = "WHERE NOT over " if unfinished else ""
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT {ROW_COLUMNS} FROM games {where}ORDER BY created"
                                ).fetchall()
        return [game_row(*r) for r in rows]

    def list_games(self, limit: int) -> list[GameRow]:
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT {ROW_COLUMNS} FROM games {NEWEST} LIMIT %s",
                                (limit,)).fetchall()
        return [game_row(*r) for r in rows]

    def game(self, code: str) -> GameRow | None:
        with self._pool.connection() as conn:
            row = conn.execute(f"SELECT {ROW_COLUMNS} FROM games WHERE code = %s",
                               (code,)).fetchone()
        return None if row is None else game_row(*row)

    def moves(self, code: str, after: int = 0) -> list[MoveRecord]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {MOVE_COLUMNS} FROM moves WHERE code = %s AND ply > %s ORDER BY ply",
                (code, after)).fetchall()
        return [move_record(*r) for r in rows]

    def append_move(self, code: str, move: MoveRecord, view: dict[str, Any], over: bool,
                    result: Result | None = None, runner: bool = False) -> None:
        """The move and the game's new ply in one transaction, only if the game is at the ply
        before it and, for a `runner`'s move, still leased to this holder (a server that
        stalled past its lease cannot store an agent's move once another server runs the
        game); the row's lock makes a second writer of that ply wait, then find the ply taken
        (StoreError). Every listener hears of it once the transaction commits."""
        winner, victory = result_columns(result)
        with self._pool.connection() as conn, conn.transaction():
            cur = conn.execute(
                "UPDATE games SET ply = %s, over = %s, view = %s, winner = %s, victory = %s "
                "WHERE code = %s AND ply = %s AND (NOT %s OR runner = %s)",
                (move.ply, over, json.dumps(view), winner, victory, code, move.ply - 1,
                 runner, self.holder))
            if cur.rowcount != 1:
                row = conn.execute("SELECT ply, runner FROM games WHERE code = %s",
                                   (code,)).fetchone()
                if row is not None and row[0] == move.ply - 1 and runner:
                    raise StoreError(f"game {code} is run by another server now ({row[1]}); "
                                     "its agent move was not stored")
                raise StoreError(f"game {code} is not at ply {move.ply - 1}")
            conn.execute(
                "INSERT INTO moves VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (code, move.ply, move.seat.player, move.step, json.dumps(move.move.to_json()),
                 move.price, move.view_hash, move.seconds, json.dumps(move.details),
                 time.time()))
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{code}:{move.ply}"))

    def close(self) -> None:
        self._stopping.set()
        if self._listener is not None:
            self._listener.join(LISTEN_POLL * 3)
        self._pool.close()

    # ------------------------------------------------------------------ SharedStore
    def claim(self, limit: int) -> list[str]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"UPDATE games SET runner = %s, lease_until = {NOW} + %s WHERE code IN ("
                "SELECT code FROM games WHERE NOT over AND needs_runner AND lease_until < "
                f"{NOW} + %s ORDER BY created LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING code",
                (self.holder, self.clock_offset + self.lease_seconds, self.clock_offset,
                 limit)).fetchall()
        return [r[0] for r in rows]

    def renew(self) -> set[str]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"UPDATE games SET lease_until = {NOW} + %s WHERE runner = %s AND NOT over "
                "RETURNING code", (self.clock_offset + self.lease_seconds,
                                   self.holder)).fetchall()
        return {r[0] for r in rows}

    def advance(self, seconds: float) -> None:
        """Move this store's clock on by `seconds` (tests: a lease runs out without a wait)."""
        self.clock_offset += seconds

    def release(self) -> None:
        with self._pool.connection() as conn:
            conn.execute("UPDATE games SET lease_until = 0 WHERE runner = %s AND NOT over",
                         (self.holder,))

    def unfinished(self) -> int:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT count(*) FROM games WHERE NOT over").fetchone()
        return int(row[0]) if row else 0

    def listen(self, moved: Callable[[str, int], None]) -> None:
        """Start listening; returns once the listener hears (or after LISTEN_WAIT seconds, the
        listener going on trying to connect)."""
        listening = threading.Event()
        self._listener = threading.Thread(target=self._listen, args=(moved, listening),
                                          daemon=True, name="duel-listen")
        self._listener.start()
        listening.wait(LISTEN_WAIT)

    def _listen(self, moved: Callable[[str, int], None], listening: threading.Event) -> None:
        """Hear every process's moves on a connection of its own, for as long as the store is
        open; a lost connection is made again (and `moved("", 0)` says moves may be missed)."""
        first = True
        while not self._stopping.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    listening.set()
                    if not first:
                        moved("", 0)
                    first = False
                    while not self._stopping.is_set():
                        for note in conn.notifies(timeout=LISTEN_POLL):
                            code, _, ply = note.payload.rpartition(":")
                            if ply.isdigit():
                                moved(code, int(ply))
            except psycopg.Error as exc:
                if self._stopping.is_set():
                    return
                log.warning("lost the database's notifications (%s); reconnecting",
                            _first_line(exc))
                self._stopping.wait(1.0)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else ""
