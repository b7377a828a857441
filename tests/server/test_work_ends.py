"""Work follows its requester: a search whose client hung up is stopped and its share freed at
once, and a server killed with SIGKILL (no cleanup runs) leaves no fork server, search worker
or root-parallel search process behind: each dies with its parent (duel/orphans.py)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import httpx
from helpers.live_server import Server, start

from duel.engine import Perspective, new_game

STATE = Perspective.of_player(1).view(new_game(seed=3))


def _descendants(pid: int) -> set[int]:
    """Every live process under `pid` (by parent links in /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _children(pid: int) -> set[int]:
    return {p for p in _descendants(pid) if _parent(p) == pid}


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _ask(server: Server, agent: str) -> int:
    r = httpx.post(server.url + "/agents/move", json={"agent": agent, "state": STATE},
                   timeout=60)
    return r.status_code


def test_a_dropped_agents_move_frees_its_search_at_once(servers: list[Server],
                                                         tmp_path: Path) -> None:
    server = start(servers, tmp_path / "db.sqlite", tmp_path, "--searches-per-caller", "1")
    body = json.dumps({"agent": "mcts:time=25", "state": STATE}).encode()
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.sendall(b"POST /agents/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                 b"application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    deadline = time.monotonic() + 60
    while _ask(server, "rule") != 429:  # the search holds the address's one share
        assert time.monotonic() < deadline, "the search never started"
        time.sleep(0.1)
    # Its worker is running: a process below the fork server (the server's own children are
    # the fork server and the resource tracker).
    while not (searching := _descendants(server.proc.pid) - _children(server.proc.pid)):
        assert time.monotonic() < deadline, "the search's worker never started"
        time.sleep(0.1)
    sock.close()
    dropped = time.monotonic()
    while _ask(server, "rule") != 200:
        assert time.monotonic() - dropped < 10, "the dropped search kept its share"
        time.sleep(0.05)
    # Its worker was killed, not left searching (a new one serves the next search). The share
    # is freed as the request ends and the kill follows it: on a loaded machine, moments later.
    while all(_alive(p) for p in searching):
        assert time.monotonic() - dropped < 10, "the dropped search's worker kept running"
        time.sleep(0.05)


def test_nothing_outlives_a_killed_server(servers: list[Server], tmp_path: Path) -> None:
    server = start(servers, tmp_path / "db.sqlite", tmp_path, "--searches-per-caller", "2")
    asking = [threading.Thread(target=_ask, args=(server, spec), daemon=True)
              for spec in ("mcts:time=25", "mcts:time=25,workers=2")]
    for t in asking:
        t.start()
    deadline = time.monotonic() + 60
    while len(_descendants(server.proc.pid)) < 5:  # fork server, tracker, 2 workers, trees
        assert time.monotonic() < deadline, _descendants(server.proc.pid)
        time.sleep(0.1)
    time.sleep(0.5)
    left = _descendants(server.proc.pid)
    server.kill9()
    killed = time.monotonic()
    while any(_alive(p) for p in left):
        assert time.monotonic() - killed < 10, [p for p in left if _alive(p)]
        time.sleep(0.02)
