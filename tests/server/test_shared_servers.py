"""Several `duel serve` processes on one PostgreSQL database, for real (subprocesses, HTTP):
a game created on one is read and moved on another; event streams on every server see every
move, whichever server applied it; the same move posted to two servers at once is applied once;
a game's agent seat is run by one server at a time and taken over when that server dies."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient
from helpers.live_server import Server, start
from helpers.play_helpers import live, manager, play
from helpers.server_helpers import (
    assert_valid_state,
    bearer,
    check_transcript,
    create,
    move_body,
    wait_until,
)
from test_server_live import Bot

from server.main import create_app

TIMEOUT = httpx.Timeout(30.0, read=60.0)
LEASE = "3"  # seconds: a dead server's games pass on quickly


def two_servers(servers: list[Server], pg_url: str, tmp_path: Path,
                *options: str) -> tuple[Server, Server]:
    return (start(servers, pg_url, tmp_path, *options),  # type: ignore[arg-type]
            start(servers, pg_url, tmp_path, *options))  # type: ignore[arg-type]


def new_game(server: Server, p1: str = "external", p2: str = "external",
             seed: int = 7) -> tuple[str, dict[str, str]]:
    r = httpx.post(server.url + "/games", json={"player1": p1, "player2": p2, "seed": seed},
                   timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    return r.json()["code"], r.json()["tokens"]


def turn(server: Server, code: str, token: str) -> dict[str, Any]:
    r = httpx.get(f"{server.url}/games/{code}/moves", headers=bearer(token), timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def post(server: Server, code: str, token: str, move: dict[str, Any], ply: int
         ) -> httpx.Response:
    return httpx.post(f"{server.url}/games/{code}/moves", headers=bearer(token),
                      json=move_body(move, ply), timeout=TIMEOUT)


def test_a_game_created_on_one_server_is_read_and_moved_on_another(
        servers: list[Server], pg_url: str, tmp_path: Path) -> None:
    a, b = two_servers(servers, pg_url, tmp_path)
    code, tokens = new_game(a)
    assert httpx.get(f"{b.url}/games/{code}").json() == httpx.get(f"{a.url}/games/{code}").json()
    rng = random.Random(3)
    for i in range(12):  # alternate servers move by move, whoever is to move
        here, there = (a, b) if i % 2 else (b, a)
        seat = next(s for s in ("1", "2") if turn(here, code, tokens[s])["yourTurn"])
        m = turn(here, code, tokens[seat])
        r = post(here, code, tokens[seat], rng.choice(m["moves"]), m["ply"])
        assert r.status_code == 200, r.text
        # The other server answers with the move applied, at once.
        seen = httpx.get(f"{there.url}/games/{code}", headers=bearer(tokens[seat])).json()
        assert seen == r.json()["state"]
        assert turn(there, code, tokens["1"])["ply"] == i + 1
    for seat in ("1", "2"):
        assert httpx.get(f"{a.url}/games/{code}", headers=bearer(tokens[seat])).json() == \
            httpx.get(f"{b.url}/games/{code}", headers=bearer(tokens[seat])).json()
    # The lobby of either server lists it, at the ply reached on both.
    for server in (a, b):
        listed = httpx.get(f"{server.url}/games", timeout=TIMEOUT).json()["games"]
        assert [(g["code"], g["ply"]) for g in listed] == [(code, 12)]
    later, _ = new_game(b, seed=8)
    assert [g["code"] for g in httpx.get(f"{a.url}/games", timeout=TIMEOUT).json()["games"]
            ] == [later, code]


def test_bots_on_two_servers_play_over_event_streams(servers: list[Server], pg_url: str,
                                                     tmp_path: Path) -> None:
    """Each seat streams and moves on a server of its own: each sees the other's moves as
    events (every ply, none skipped) though another process applied them."""
    a, b = two_servers(servers, pg_url, tmp_path)
    code, tokens = new_game(a, seed=2025)
    deadline = time.monotonic() + 120
    connected = threading.Barrier(2)
    bots = [Bot(s.url, code, seat, tokens[str(seat)], random.Random(seat), connected=connected)
            for s, seat in ((a, 1), (b, 2))]
    threads = [threading.Thread(target=bot.run, args=(deadline,), daemon=True) for bot in bots]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, deadline - time.monotonic() + 5))
    assert not any(t.is_alive() for t in threads), "a bot is still playing"
    ply = turn(a, code, tokens["1"])["ply"]
    for bot in bots:
        assert bot.error is None, f"seat {bot.seat}: {bot.error!r}\n{a.log()}\n{b.log()}"
        ids = [int(e["id"]) for e in bot.events]
        assert ids == list(range(ply + 1)), ids  # every ply once, in order
        for e in bot.events:
            assert_valid_state(json.loads(e["data"]), f"seat {bot.seat} event {e['id']}")
        assert set(bot.posted) == {200}
    assert sum(len(bot.posted) for bot in bots) == ply
    for s in (a, b):
        text = httpx.get(f"{s.url}/games/{code}/transcript", timeout=TIMEOUT).text
        assert len(check_transcript(text, tmp_path / "shared.jsonl").moves) == ply


def send_together(together: threading.Barrier, answers: list[httpx.Response], server: Server,
                  code: str, token: str, move: dict[str, Any], ply: int) -> None:
    together.wait()
    answers.append(post(server, code, token, move, ply))


def test_the_same_move_posted_to_two_servers_at_once_is_applied_once(
        servers: list[Server], pg_url: str, tmp_path: Path) -> None:
    a, b = two_servers(servers, pg_url, tmp_path)
    code, tokens = new_game(a, seed=11)
    rng = random.Random(11)
    for ply in range(8):
        seat = next(s for s in ("1", "2") if turn(a, code, tokens[s])["yourTurn"])
        m = turn(a, code, tokens[seat])
        assert m["ply"] == ply
        move = rng.choice(m["moves"])
        answers: list[httpx.Response] = []
        together = threading.Barrier(2)
        threads = [threading.Thread(target=send_together, args=(
            together, answers, s, code, tokens[seat], move, ply)) for s in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
        refused = next(r for r in answers if r.status_code == 409)
        assert f"already applied as move {ply + 1}" in refused.text, refused.text
    with psycopg.connect(pg_url) as conn:
        stored = conn.execute("SELECT ply FROM moves WHERE code = %s ORDER BY ply",
                              (code,)).fetchall()
    assert [p for (p,) in stored] == list(range(1, 9))


def test_the_cap_on_games_in_play_counts_every_server_s(servers: list[Server], pg_url: str,
                                                        tmp_path: Path) -> None:
    a, b = two_servers(servers, pg_url, tmp_path, "--max-live-games", "1")
    new_game(a)
    r = httpx.post(b.url + "/games", json={"player1": "external", "player2": "external"},
                   timeout=TIMEOUT)
    assert r.status_code == 429 and "full" in r.json()["detail"], r.text


def runner_pid(pg_url: str, code: str) -> int:
    """The process id of the server holding the game's lease (holder: host:pid:nonce)."""
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT runner FROM games WHERE code = %s", (code,)).fetchone()
    assert row is not None
    return int(row[0].split(":")[-2])


def test_an_agent_seat_runs_on_one_server_and_passes_on_when_it_dies(
        servers: list[Server], pg_url: str, tmp_path: Path) -> None:
    a, b = two_servers(servers, pg_url, tmp_path, "--lease", LEASE)
    code, tokens = new_game(a, "external", "random", seed=5)
    rng = random.Random(5)

    def play_until(server: Server, plies: int) -> int:
        """The external seat plays on `server` whenever it is its turn, until `plies` moves
        are played or the game ends; the game's ply."""
        while True:
            m = wait_until(lambda: (lambda t: t if t["yourTurn"] or t["ply"] >= plies
                                    or httpx.get(f"{server.url}/games/{code}").json()["step"]
                                    == "GAME_END" else None)(turn(server, code, tokens["1"])),
                           60, "the external seat's turn (the agent moves)")
            if not m["yourTurn"]:
                return int(m["ply"])
            r = post(server, code, tokens["1"], rng.choice(m["moves"]), m["ply"])
            assert r.status_code == 200, r.text

    # The creator runs the agent seat while it lives, whichever server the bot plays on, and
    # no other server tries its moves (a second runner's moves would be refused, and logged).
    assert play_until(b, 10) >= 10
    assert runner_pid(pg_url, code) == a.proc.pid
    assert "agent move refused" not in a.log() + b.log()
    a.kill9()
    # The agent seat moves again once the other server took the game over.
    ply = play_until(b, 400)
    assert httpx.get(f"{b.url}/games/{code}").json()["step"] == "GAME_END", b.log()
    text = httpx.get(f"{b.url}/games/{code}/transcript", timeout=TIMEOUT).text
    assert len(check_transcript(text, tmp_path / "takeover.jsonl").moves) == ply


@pytest.fixture(autouse=True)
def _needs_postgres(pg_url: str) -> None:
    """Every test here needs the cluster (skips, saying why, without one)."""


def test_bench_server_runs_two_servers_on_postgresql(pg_url: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from duel.cli import main

    assert main(["bench", "server", "--clients", "4", "--seconds", "2", "--db", pg_url,
                 "--servers", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 server(s)" in out and "0 errors" in out, out
    assert "postgresql://duel@127.0.0.1" in out


def test_a_game_read_back_while_another_server_moves_is_not_taken_for_damaged(
        pg_url: str) -> None:
    """A server reads a game's row, another server stores a move, then the first reads the
    moves: the game is read back as the row says and caught up, not refused as damaged (that
    gap made a server answer 404 for a live game when the same move was posted to both)."""
    with TestClient(create_app(pg_url)) as a, TestClient(create_app(pg_url)) as b:
        code, tokens = create(a, "external", "external", seed=5)
        row = manager(b).store.game(code)  # b reads the row first ...
        assert row is not None and row.ply == 0
        play(a, code, tokens["1"], random.Random(5))  # ... a stores move 1 ...
        game = manager(b)._read_back(row)  # ... b reads the moves
        assert game.state.ply == 0 and game.row.ply == 0
        assert live(b, code).state.ply == 1  # and a request catches up
        r = b.get(f"/games/{code}/moves", headers=bearer(tokens["1"]))
        assert r.status_code == 200 and r.json()["ply"] == 1
