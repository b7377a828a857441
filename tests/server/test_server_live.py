"""The server for real: `python -m duel.cli serve` in a subprocess on a free port.

Two external bots play a whole game over HTTP, each driven by its own event stream (no polling).
Then a crash test: several games played by concurrent clients, the server killed with SIGKILL
mid-stream and restarted on the same SQLite file; every acknowledged move must still be there,
in order, with at most one more per game (a move committed whose answer was lost).
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from helpers.live_server import Server, start
from helpers.server_helpers import (
    assert_valid_state,
    bearer,
    check_transcript,
    move_body,
    parse_sse,
)

from duel.engine import Move, swap_move

TIMEOUT = httpx.Timeout(30.0, read=60.0)


# ============================================================================ bots on streams
@dataclass
class Bot:
    url: str
    code: str
    seat: int
    token: str
    rng: random.Random
    events: list[dict[str, Any]] = field(default_factory=list)
    posted: list[int] = field(default_factory=list)  # statuses of its moves
    polls: int = 0
    error: BaseException | None = None
    connected: threading.Barrier | None = None  # both streams open before anyone moves

    def run(self, deadline: float) -> None:
        try:
            self._run(deadline)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc

    def _run(self, deadline: float) -> None:
        with httpx.Client(base_url=self.url, timeout=TIMEOUT) as http, http.stream(
                "GET", f"/games/{self.code}/events", params={"token": self.token}) as stream:
            assert stream.status_code == 200, stream.read()
            assert stream.headers["content-type"].startswith("text/event-stream")
            for event in parse_sse(stream.iter_lines()):
                assert time.monotonic() < deadline, f"seat {self.seat}: out of time"
                assert len(self.events) < 1000, f"seat {self.seat}: too many events"
                self.events.append(event)
                if self.connected is not None and len(self.events) == 1:
                    self.connected.wait(max(1.0, deadline - time.monotonic()))
                if event["event"] != "state":
                    continue
                state = json.loads(event["data"])
                if state["step"] == "GAME_END":
                    return
                if state["currentPlayerNumber"] != 2:  # a seat is always player2
                    continue
                self.polls += 1
                m = http.get(f"/games/{self.code}/moves", headers=bearer(self.token)).json()
                if not m["yourTurn"]:  # an event already overtaken by a newer one
                    continue
                r = http.post(f"/games/{self.code}/moves", headers=bearer(self.token),
                              json=move_body(self.rng.choice(m["moves"]), m["ply"]))
                self.posted.append(r.status_code)
                assert r.status_code == 200, r.text
            raise AssertionError(f"seat {self.seat}: the stream ended before the game did")


def test_two_bots_play_a_whole_game_over_event_streams(servers: list[Server],
                                                       tmp_path: Path) -> None:
    server = start(servers, tmp_path / "live.sqlite", tmp_path)
    r = httpx.post(server.url + "/games", json={"player1": "external", "player2": "external",
                                                "seed": 2024}, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    code, tokens = r.json()["code"], r.json()["tokens"]
    deadline = time.monotonic() + 120
    connected = threading.Barrier(2)
    bots = [Bot(server.url, code, seat, tokens[str(seat)], random.Random(seat),
                connected=connected) for seat in (1, 2)]
    threads = [threading.Thread(target=b.run, args=(deadline,), daemon=True) for b in bots]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, deadline - time.monotonic() + 5))
    assert not any(t.is_alive() for t in threads), "a bot is still playing"
    for b in bots:
        assert b.error is None, f"seat {b.seat}: {b.error!r}\n{server.log()}"
        ids = [int(e["id"]) for e in b.events]
        assert ids == sorted(set(ids)) and ids[0] == 0, ids
        for e in b.events:
            assert_valid_state(json.loads(e["data"]), f"seat {b.seat} event {e['id']}")
        assert set(b.posted) == {200}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        final = http.get(f"/games/{code}").json()
        assert final["step"] == "GAME_END"
        ply = http.get(f"/games/{code}/moves", headers=bearer(tokens["1"])).json()["ply"]
        assert sum(len(b.posted) for b in bots) == ply
        for b in bots:
            assert int(b.events[-1]["id"]) == ply
            last = json.loads(b.events[-1]["data"])
            assert last == http.get(f"/games/{code}", headers=bearer(b.token)).json()
        text = http.get(f"/games/{code}/transcript").text
    saved = check_transcript(text, tmp_path / "live.jsonl")
    assert len(saved.moves) == ply
    assert [m["player"] for m in saved.moves].count(1) == len(bots[0].posted)


# ============================================================================ kill -9
@dataclass
class Player:
    """One client thread playing both seats of one game, one request at a time."""

    url: str
    code: str
    tokens: dict[str, str]
    rng: random.Random
    acked: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (ply, true move)
    pending: dict[str, Any] | None = None  # the move sent and not yet answered
    finished: bool = False
    failure: BaseException | None = None

    def run(self, deadline: float, stop: threading.Event) -> None:
        try:
            with httpx.Client(base_url=self.url, timeout=TIMEOUT) as http:
                for _ in range(2000):
                    if stop.is_set() or time.monotonic() > deadline:
                        return
                    if not self._step(http):
                        self.finished = True
                        return
        except httpx.TransportError:
            return  # the server was killed under us
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failure = exc

    def _step(self, http: httpx.Client) -> bool:
        for seat in (1, 2):
            token = self.tokens[str(seat)]
            m = http.get(f"/games/{self.code}/moves", headers=bearer(token))
            assert m.status_code == 200, m.text
            moves = m.json()
            if not moves["yourTurn"]:
                continue
            choice = self.rng.choice(moves["moves"])
            move = Move.from_json({"move": choice["move"], "moveData": choice["moveData"]})
            true_move = (swap_move(move) if seat == 1 else move).to_json()
            self.pending = true_move
            r = http.post(f"/games/{self.code}/moves", headers=bearer(token),
                          json=move_body(choice, moves["ply"]))
            assert r.status_code == 200, r.text
            self.acked.append((r.json()["ply"], true_move))
            self.pending = None
            return True
        over = http.get(f"/games/{self.code}").json()["step"] == "GAME_END"
        assert over, "neither seat may move but the game is not over"
        return False


def finish(http: httpx.Client, code: str, tokens: dict[str, str], rng: random.Random) -> None:
    for _ in range(500):
        for seat in (1, 2):
            moves = http.get(f"/games/{code}/moves", headers=bearer(tokens[str(seat)])).json()
            if moves["yourTurn"]:
                r = http.post(f"/games/{code}/moves", headers=bearer(tokens[str(seat)]),
                              json=move_body(rng.choice(moves["moves"]), moves["ply"]))
                assert r.status_code == 200, r.text
                break
        else:
            assert http.get(f"/games/{code}").json()["step"] == "GAME_END"
            return
    raise AssertionError(f"game {code} did not end in 500 moves")


def test_acknowledged_moves_survive_kill_9(servers: list[Server], tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite"
    # Eight players polling from one address: a rate they do not meet (a 429's body read as a
    # view failed this test now and then; the limit has tests of its own).
    server = start(servers, db, tmp_path, "--rate", "2000", "--burst", "4000")
    games: list[tuple[str, dict[str, str]]] = []
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        for seed in range(4):
            r = http.post("/games", json={"player1": "external", "player2": "external",
                                          "seed": 500 + seed})
            assert r.status_code == 201, r.text
            games.append((r.json()["code"], r.json()["tokens"]))
    players = [Player(server.url, code, tokens, random.Random(i))
               for i, (code, tokens) in enumerate(games)]
    stop = threading.Event()
    deadline = time.monotonic() + 120
    threads = [threading.Thread(target=p.run, args=(deadline, stop), daemon=True)
               for p in players]
    for t in threads:
        t.start()
    try:
        # Kill while every client is still playing: after some moves each, well before the end.
        def acks() -> int:
            return min(len(p.acked) for p in players)
        limit = time.monotonic() + 60
        while acks() < 12 and time.monotonic() < limit and not any(
                p.failure or p.finished for p in players):
            time.sleep(0.01)
        assert not any(p.failure for p in players), [p.failure for p in players]
        assert acks() >= 1, f"no moves were acknowledged:\n{server.log()}"
        server.kill9()
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert not any(p.failure for p in players), [p.failure for p in players]
    # A snapshot taken after the kill: nothing can change what was acknowledged any more.
    acked = {p.code: list(p.acked) for p in players}
    pending = {p.code: p.pending for p in players}

    restarted = start(servers, db, tmp_path, "--rate", "2000", "--burst", "4000")
    rng = random.Random(99)
    with httpx.Client(base_url=restarted.url, timeout=TIMEOUT) as http:
        for code, tokens in games:
            mine = acked[code]
            assert [ply for ply, _ in mine] == list(range(1, len(mine) + 1))
            stored = http.get(f"/games/{code}/moves", headers=bearer(tokens["1"])).json()["ply"]
            assert len(mine) <= stored <= len(mine) + 1, (
                f"game {code}: {len(mine)} moves acknowledged, {stored} stored")
            if stored == len(mine) + 1:
                assert pending[code] is not None, "a move stored that nobody sent"
            # The game goes on after the restart, to its end; its transcript holds the
            # acknowledged moves first, in order, then at most the one unanswered move.
            finish(http, code, tokens, rng)
            text = http.get(f"/games/{code}/transcript").text
            saved = check_transcript(text, tmp_path / f"{code}.jsonl")
            assert [m["move"] for m in saved.moves[:len(mine)]] == [move for _, move in mine]
            if stored == len(mine) + 1:
                assert saved.moves[len(mine)]["move"] == pending[code]
