"""SIGTERM stops a real `duel serve` within 5 s even with searches running in its seats and on
/agents/move and an event stream open; its worker processes go with it; and after a restart on
the same database the agent seat whose turn it was thinks again and the game goes on."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest
from helpers.live_server import Server, start
from helpers.server_helpers import wait_until

from duel.engine import Perspective, new_game

PROC = Path("/proc")


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    out = set()
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.add(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = (PROC / str(pid) / "stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has finished; only its parent has yet to reap it


def stored(db: Path, code: str) -> tuple[int, list[str]]:
    """The game's stored ply and its moves' details (read beside the server: SQLite WAL)."""
    with sqlite3.connect(db) as conn:
        (ply,) = conn.execute("SELECT ply FROM games WHERE code = ?", (code,)).fetchone()
        details = [d for (d,) in conn.execute(
            "SELECT details FROM moves WHERE code = ? ORDER BY ply", (code,))]
    return ply, details


@pytest.mark.skipif(not PROC.is_dir(), reason="reads the process tree from /proc")
def test_sigterm_stops_the_server_within_5s_and_the_agent_turn_resumes(
        servers: list[Server], tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    # Room for both searches below (one caller: this test's address).
    server = start(servers, db, tmp_path, "--searches", "2", "--searches-per-caller", "2")
    http = httpx.Client(base_url=server.url, timeout=60)
    r = http.post("/games", json={"player1": "mcts:time=30", "player2": "mcts:time=30",
                                  "seed": 30})
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    # Work in flight when the signal comes: an /agents/move search and an open event stream.
    state = Perspective.of_player(1).view(new_game(seed=31))
    asked: list[BaseException | int] = []

    def ask() -> None:
        try:
            asked.append(httpx.post(server.url + "/agents/move", timeout=60, json={
                "agent": "mcts:time=30", "state": state}).status_code)
        except httpx.HTTPError as exc:
            asked.append(exc)

    def listen() -> None:
        try:
            with httpx.stream("GET", f"{server.url}/games/{code}/events", timeout=60) as s:
                for _ in s.iter_lines():
                    pass
        except httpx.HTTPError:
            pass

    threads = [threading.Thread(target=f, daemon=True) for f in (ask, listen)]
    for t in threads:
        t.start()
    # The seat's search and the request's: two worker processes, the fork server's children
    # (the server's own children are the fork server and multiprocessing's resource tracker).
    def searching() -> set[int]:
        below = descendants(server.proc.pid)
        return below - children(server.proc.pid)

    workers = wait_until(lambda: len(searching()) >= 2 and descendants(server.proc.pid), 60,
                         "the searches' worker processes")
    assert stored(db, code)[0] == 0 and not asked, "a 30 s search answered early"

    start_stop = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    try:
        server.proc.wait(5)
    except Exception:  # noqa: BLE001 - reported with the log
        pytest.fail(f"the server did not stop within 5 s of SIGTERM:\n{server.log()}")
    took = time.monotonic() - start_stop
    # uvicorn ends by raising the signal it caught again, once it has stopped.
    assert server.proc.returncode in (0, -signal.SIGTERM), server.log()
    assert "Traceback" not in server.log(), server.log()
    wait_until(lambda: not any(alive(p) for p in workers), 10, "the worker processes to end")
    for t in threads:
        t.join(10)
    assert asked == [429], asked  # told the server is stopping, not left hanging
    http.close()
    assert stored(db, code)[0] == 0, "a move was stored by a search the signal stopped"

    # On restart the seat to move thinks again (with a 1 s deadline here) and the game goes on.
    start(servers, db, tmp_path, "--search-deadline", "1")
    wait_until(lambda: stored(db, code)[0] >= 2, 60, "the agents' moves after the restart")
    details = stored(db, code)[1]
    assert all('"fallback"' not in d and '"iterations"' in d for d in details), details
    assert took < 5
