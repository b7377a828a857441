"""The `http:URL` agent against the real `duel serve` over real HTTP, and against a misbehaving
bot (a real HTTP server on loopback that answers badly on purpose): every attempt recorded, a
bad reply an illegal-move record and never a crash, the fallback or a resignation after the
last attempt. Only the operator may configure one: a request naming `http:` is refused."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.live_server import Server, start
from helpers.play_helpers import live, play
from helpers.server_helpers import bearer, check_transcript, create

from duel.agents.remote import HTTPAgent
from duel.agents.spec import make_agent
from duel.engine import Perspective, Seat, new_game, seat_view
from duel.errors import SpecError
from duel.match import agent_rng, decide, play_match
from server.main import create_app


@pytest.fixture
def remote(servers: list[Server], tmp_path: Path) -> Server:
    """A real `duel serve` whose POST /agents/move the http: agent asks."""
    return start(servers, tmp_path / "remote.db", tmp_path)


def test_a_whole_game_against_duel_serve(remote: Server) -> None:
    agent = make_agent(f"http:{remote.url},agent=rule")
    seen: list[dict[str, Any]] = []
    result = play_match(agent, "random", seed=4,
                        on_move=lambda r, b, a: seen.append(r.details) if r.seat == Seat.P1
                        else None)
    assert result.result is not None
    assert len(seen) > 15
    for details in seen:
        http = details["http"]
        assert http["legal_at_attempt"] == 1 and http["fallback"] is None
        [call] = http["calls"]
        assert call["category"] == "OK" and call["status"] == 200 and call["latency_s"] > 0
        assert json.loads(call["reply"])["move"]


def test_the_remote_agent_decides_as_it_would_locally(remote: Server) -> None:
    """The rule agent over HTTP and in process choose the same moves in the same positions."""
    state = new_game(11)
    http = make_agent(f"http://127.0.0.1:{remote.port},agent=rule")
    local = make_agent("rule")
    rng = random.Random(0)
    for _ in range(12):
        seat = Seat.of_index(state.current)
        mine = decide(local, state, agent_rng(0, seat))[0]
        theirs = decide(http, state, agent_rng(0, seat))[0]
        assert mine == theirs
        state = state.apply(rng.choice(state.legal_moves()))


# ---------------------------------------------------------------------------- a bad bot
Reply = tuple[Any, ...]  # (status, body, delay[, headers])


class Bot(ThreadingHTTPServer):
    """A user's bot on loopback that answers with `replies` in turn (status, body, delay and
    optionally headers), the last one from then on."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.requests: list[dict[str, Any]] = []
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Bot

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["content-length"]))
        self.server.requests.append({"path": self.path, "body": json.loads(body)})
        status, text, delay, *headers = self.server.replies[min(len(self.server.requests),
                                                                len(self.server.replies)) - 1]
        time.sleep(delay)
        data = text.encode()
        try:
            self.send_response(status)
            for name, value in (headers[0] if headers else {}).items():
                self.send_header(name, value)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (its timeout)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def bot() -> Iterator[Callable[[list[Reply]], Bot]]:
    started: list[Bot] = []

    def run(replies: list[Reply]) -> Bot:
        b = Bot(replies)
        threading.Thread(target=b.serve_forever, daemon=True).start()
        started.append(b)
        return b
    yield run
    for b in started:
        b.shutdown()
        b.server_close()


def _first_decision(spec: str) -> tuple[Any, list[Any]]:
    state = new_game(2)
    seen = Perspective.to_move(state)
    legal = seen.moves_out(state.legal_moves())
    agent = make_agent(spec)
    return agent.choose(seen.view(state), legal, random.Random(0)), legal


def test_bad_replies_are_recorded_attempts_then_the_fallback_plays(
        bot: Callable[[list[Reply]], Bot]) -> None:
    state = new_game(2)
    legal_json = [m.to_json() for m in Perspective.to_move(state).moves_out(state.legal_moves())]
    wrong = {"move": "DISCARD", "moveData": {"cardIndex": 3}}  # the draft: not legal
    b = bot([(200, "not json {", 0), (200, "[1, 2]", 0),
             (200, json.dumps({"move": "SELECT_WONDER", "moveData": {"wonder": "NOPE"}}), 0),
             (200, json.dumps(wrong), 0), (422, '{"detail": "agent not offered"}', 0),
             (500, "down", 0)])
    decision, legal = _first_decision(f"http:{b.url},agent=rule,max_attempts=6")
    http = decision.details["http"]
    assert [c["category"] for c in http["calls"]] == [
        "UNPARSABLE", "UNPARSABLE", "SCHEMA", "ILLEGAL", "REFUSED", "TRANSPORT"]
    assert "not legal" in http["calls"][3]["error"] and "SELECT_WONDER" in \
        http["calls"][3]["error"]
    assert http["calls"][4]["status"] == 422 and "HTTP 500" in http["calls"][5]["error"]
    assert http["legal_at_attempt"] is None and http["fallback"] == "random"
    assert decision.move in legal and not decision.forfeit
    assert decision.move.to_json() in legal_json
    # Every request carried the seat's view and the remote agent's name.
    assert {r["path"] for r in b.requests} == {"/agents/move"}
    assert all(r["body"]["agent"] == "rule" and r["body"]["state"]["step"] for r in b.requests)


def test_a_good_reply_after_a_bad_one_is_played(
        bot: Callable[[list[Reply]], Bot]) -> None:
    state = new_game(2)
    good = Perspective.to_move(state).moves_out(state.legal_moves())[2].to_json()
    b = bot([(200, "{}", 0), (200, json.dumps({**good, "details": {"x": 1}}), 0)])
    decision, legal = _first_decision(f"http:{b.url}")
    assert decision.move.to_json() == good
    assert decision.details["http"]["legal_at_attempt"] == 2
    assert decision.details["http"]["calls"][0]["category"] == "SCHEMA"


def test_a_slow_bot_times_out_and_the_seat_forfeits(
        bot: Callable[[list[Reply]], Bot]) -> None:
    b = bot([(200, "{}", 2.0)])
    start_t = time.monotonic()
    decision, _ = _first_decision(f"http:{b.url},timeout=0.3,max_attempts=2,fallback=forfeit")
    assert time.monotonic() - start_t < 1.9
    assert decision.forfeit
    calls = decision.details["http"]["calls"]
    assert [c["category"] for c in calls] == ["TRANSPORT", "TRANSPORT"]
    assert "Timeout" in calls[0]["error"]


def test_nobody_listening_is_a_transport_failure_not_a_crash(tmp_path: Path) -> None:
    from helpers.live_server import free_port

    decision, legal = _first_decision(f"http:http://127.0.0.1:{free_port()},fallback=rule,"
                                      "transport_retries=2,backoff=0.01")
    assert decision.move in legal
    http = decision.details["http"]
    assert http["fallback"] == "rule"
    # a refused connection is tried again with backoff before it spends the attempt
    assert [(c["attempt"], c["category"]) for c in http["calls"]] == \
        [(1, "TRANSPORT")] * 3 + [(2, "TRANSPORT")] * 3
    assert [c.get("retry_in_s") is not None for c in http["calls"][:3]] == [True, True, False]


def test_a_busy_server_is_waited_for_as_it_asks_and_spends_no_attempt(
        bot: Callable[[list[Reply]], Bot]) -> None:
    """429 and 503 with retry-after(-ms): waited for within busy_wait, then the reply plays."""
    state = new_game(2)
    good = Perspective.to_move(state).moves_out(state.legal_moves())[1].to_json()
    busy = '{"detail": "busy: 1 searches are running; retry later"}'
    b = bot([(429, busy, 0, {"retry-after-ms": "80"}), (503, busy, 0, {"retry-after": "0"}),
             (200, json.dumps(good), 0)])
    start_t = time.monotonic()
    decision, _ = _first_decision(f"http:{b.url},max_attempts=1,fallback=forfeit")
    assert time.monotonic() - start_t >= 0.08  # the server's word, not a zero-wait retry
    http = decision.details["http"]
    assert decision.move.to_json() == good and not decision.forfeit
    assert http["legal_at_attempt"] == 1 and http["attempts"] == 1
    assert [(c["attempt"], c["category"], c["status"]) for c in http["calls"]] == [
        (1, "TRANSPORT", 429), (1, "TRANSPORT", 503), (1, "OK", 200)]
    assert [c.get("retry_in_s") for c in http["calls"]] == [0.08, 0.0, None]
    from duel.agents.account import SeatAccount

    account = SeatAccount.of_decisions([decision.details])
    assert account.own == 1 and account.fallbacks == 0 and account.reasks == 0


def test_a_server_busy_past_the_wait_falls_back_then_stops_the_game(
        bot: Callable[[list[Reply]], Bot]) -> None:
    """Busy past busy_wait spends the attempt; `stop_after` such fallbacks in a row stop the
    game with one line naming the seat and the cause, rather than play on its behalf."""
    from duel.errors import SeatFailedError

    b = bot([(429, '{"detail": "busy"}', 0, {"retry-after": "0"})])
    spec = f"http:{b.url},busy_wait=0.05,max_attempts=1,stop_after=2"
    moves: list[Any] = []
    with pytest.raises(SeatFailedError, match=r"2 moves in a row .*\(busy: HTTP 429") as exc:
        play_match(spec, "random", seed=3, on_move=lambda r, b_, a: moves.append(r))
    assert spec in str(exc.value) and "\n" not in str(exc.value)
    assert len([m for m in moves if m.seat is Seat.P1]) == 1  # one fallback played, not two
    first = moves[0].details["http"]
    assert first["fallback"] == "random" and "gave up" in first["calls"][-1]["error"]
    # with stop_after=0 it plays on, and the account says whose moves they were
    result = play_match(f"http:{b.url},busy_wait=0,max_attempts=1,stop_after=0", "random",
                        seed=3)
    mine = result.summary().account(Seat.P1)
    assert mine is not None and mine.moves > 15 and mine.own == 0
    assert mine.fallbacks == mine.moves and mine.causes == {"busy": mine.moves}
    assert mine.brief() == f"{mine.moves} of {mine.moves} moves were fallbacks (busy " \
                           f"{mine.moves})"


@pytest.mark.parametrize("spec, message", [
    ("http:", "needs a URL"),
    ("http:ftp://x", r"not an http\(s\) URL"),
    ("http:http://127.0.0.1:1,timeout=0", "timeout must be > 0"),
    ("http:http://127.0.0.1:1,fallback=pass", "fallback must be one of"),
    ("http:http://127.0.0.1:1,colour=red", "unknown parameter 'colour'"),
])
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_agent(spec)


def test_the_agent_option_takes_a_remote_spec_with_semicolons() -> None:
    agent = make_agent("http:http://127.0.0.1:1/,agent=mcts:time=1;c=0.5")
    assert isinstance(agent, HTTPAgent)
    assert agent.agent == "mcts:time=1,c=0.5" and agent.url == "http://127.0.0.1:1/agents/move"
    assert agent.spec == "http:http://127.0.0.1:1/,agent=mcts:time=1;c=0.5"
    assert make_agent("http://127.0.0.1:1").spec == "http://127.0.0.1:1"


# ---------------------------------------------------------------------------- the server
@pytest.mark.parametrize("spec", ["http:http://127.0.0.1:9", "http://127.0.0.1:9",
                                  "http:http://127.0.0.1:9,agent=rule", " http:x"])
def test_a_request_cannot_create_an_http_agent(client: TestClient, spec: str) -> None:
    r = client.post("/games", json={"player1": "external", "player2": spec})
    assert r.status_code == 422 and "not offered" in r.text, r.text
    r = client.post("/agents/move", json={"agent": spec, "state": seat_view(new_game(1))})
    assert r.status_code == 422 and "not offered" in r.text, r.text


def test_an_operator_configured_http_seat_plays_a_whole_game(remote: Server, db: str,
                                                             tmp_path: Path) -> None:
    agents = {"bot": f"http:{remote.url},agent=rule"}
    with TestClient(create_app(db, agents=agents, admin_token="op-secret")) as c:
        # Reaching out is the operator's: the admin token is needed for that seat.
        r = c.post("/games", json={"player1": "external", "player2": "bot"})
        assert r.status_code == 401, r.text
        r = c.post("/games", json={"player1": "external", "player2": "bot", "seed": 5},
                   headers=bearer("op-secret"))
        assert r.status_code == 201, r.text
        code, token = r.json()["code"], r.json()["tokens"]["1"]
        rng = random.Random(5)
        while not live(c, code).over:
            try:
                play(c, code, token, rng)
            except AssertionError:
                if live(c, code).over:
                    break
                raise
        t = check_transcript(c.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")
    bot_moves = [m for m in t.moves if m["player"] == 2]
    assert len(bot_moves) > 15
    for m in bot_moves:
        http = m["details"]["http"]
        assert http["legal_at_attempt"] == 1 and "agent" not in http  # the operator's spec
        assert http["calls"][0]["category"] == "OK"
    assert remote.url not in json.dumps(t.header) + json.dumps(bot_moves)


def test_an_operator_http_seat_whose_remote_is_down_falls_back(db: str, tmp_path: Path) -> None:
    from helpers.live_server import free_port

    url = f"http://127.0.0.1:{free_port()}"
    with TestClient(create_app(db, agents={"bot": f"http:{url},max_attempts=1,"
                                                  "transport_retries=0"})) as c:
        code, tokens = create(c, "bot", "external", seed=3)
        play(c, code, tokens["2"], random.Random(1))  # the bot moved first, by its fallback
        moves = c.app.state.manager.store.moves(code)  # type: ignore[attr-defined]
        first = moves[0].details["http"]
        assert first["fallback"] == "random" and first["calls"][0]["category"] == "TRANSPORT"
        assert url not in json.dumps(first) and "127.0.0.1" not in json.dumps(first)


def test_bench_strength_plays_a_baseline_server(remote: Server, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`duel bench strength --baseline URL`: the MCTS against that server's MCTS at the same
    time per move (through the http: agent), then against rule; each pairing's games kept."""
    from duel.cli import main

    out_dir = tmp_path / "strength"
    assert main(["bench", "strength", "--baseline", remote.url, "--games", "2", "--time",
                 "0.02", "--jobs", "1", "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert f"mcts:time=0.02 vs http:{remote.url},agent=mcts:time=0.02" in out
    assert "wins at least 65%" in out and "wins at least 97%" in out
    assert out.count("95% CI") >= 2
    for name in ("baseline", "rule"):
        lines = (out_dir / name / "games.jsonl").read_text().splitlines()
        assert len(lines) == 2
    # No seat fell back or resigned: every game ended by the rules.
    for line in (out_dir / "baseline" / "games.jsonl").read_text().splitlines():
        assert json.loads(line)["victory"] in ("civilian", "military", "science")


def test_a_tournament_says_on_its_headline_whose_moves_were_fallbacks(
        bot: Callable[[list[Reply]], Bot], tmp_path: Path) -> None:
    """The headline and the per-seat lines count the opponent's fallbacks; games.jsonl has
    the same counts; a win over a seat that never moved is not a clean win."""
    from duel.runs.tournament import run

    b = bot([(429, '{"detail": "busy"}', 0, {"retry-after": "0"})])
    opponent = f"http:{b.url},busy_wait=0,max_attempts=1,stop_after=0"
    standings = run("rule", opponent, 2, seed=1, out=str(tmp_path / "t"), progress=False)
    report = standings.report()
    _, theirs = standings.accounts()
    assert theirs is not None and theirs.moves > 30 and theirs.fallbacks == theirs.moves
    headline = report.splitlines()[1]
    assert headline.endswith(f"(opponent: {theirs.moves} of {theirs.moves} moves were "
                             f"fallbacks (busy {theirs.moves}))"), headline
    assert f"{opponent}'s moves: 0 of {theirs.moves} moves its own, 0 re-asks, " \
           f"{theirs.moves} fallbacks, 0 forfeits (why: busy {theirs.moves})" in report
    assert "rule's moves: " in report
    lines = [json.loads(x) for x in (tmp_path / "t" / "games.jsonl").read_text().splitlines()]
    seats = [("2" if g["player1"] == "rule" else "1") for g in lines]
    assert sum(g["accounts"][s]["fallbacks"] for g, s in zip(lines, seats, strict=True)) == \
        theirs.fallbacks


def test_bench_strength_voids_a_baseline_that_did_not_search(
        bot: Callable[[list[Reply]], Bot], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A baseline whose moves were not its server's search (here: replies that are no move,
    so it forfeits) voids the comparison: said on a line, and the command fails."""
    from duel.bench.strength import takes_at_once
    from duel.cli import main

    b = bot([(200, "{}", 0)])
    assert main(["bench", "strength", "--baseline", b.url, "--games", "2", "--time", "0.01",
                 "--jobs", "1"]) == 2
    captured = capsys.readouterr()
    assert "VOID: not every baseline move was its server's search" in captured.out
    assert "forfeit" in captured.out and "comparison is void" in captured.err
    busy = bot([(429, '{"detail": "busy"}', 0, {"retry-after": "1"})])
    assert takes_at_once(busy.url, "mcts:time=0.01", 2) is False
    assert takes_at_once(b.url, "mcts:time=0.01", 2) is True
