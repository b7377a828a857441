"""Limits: request bodies (413), the rate limit per address or seat token (429), tokens kept out
of the access log, agent search budgets, agents thinking apart from storage, and /agents/move
searches refused when all are busy (429)."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, live, manager, play, stored_moves
from helpers.server_helpers import GatedAgent, bearer, create, from_address, wait_until

from duel.agents.base import RandomAgent
from duel.agents.spec import AgentKind, Param
from duel.engine import Perspective, new_game, seat_view
from duel.errors import SpecError
from server.guard.log_redaction import RedactTokens
from server.guard.middleware import MAX_BODY
from server.guard.rate_limit import MAX_BUCKETS, RateLimiter
from server.main import create_app
from server.work.search_budget import MAX_ITERATIONS, MAX_SECONDS, MAX_WORKERS, check_budget


@pytest.mark.parametrize("path", ["/games", "/games/{code}/moves", "/agents/move"])
def test_oversized_body_is_413(client: TestClient, path: str) -> None:
    code, tokens = create(client, "external", "external", seed=1)
    url = path.format(code=code)
    padding = " " * (MAX_BODY + 1)
    r = client.post(url, content=b"{}" + padding.encode(), headers={
        "content-type": "application/json", **bearer(tokens["1"])})
    assert r.status_code == 413, r.text
    assert "bytes" in r.json()["detail"]
    # Exactly the limit is not too large (the body is then checked as usual).
    r = client.post(url, content=b"{}" + b" " * (MAX_BODY - 2), headers={
        "content-type": "application/json", **bearer(tokens["1"])})
    assert r.status_code == 422, r.text
    assert stored_moves(client, code) == []


def test_oversized_chunked_body_is_413(client: TestClient) -> None:
    """A body sent without Content-Length (chunked) must be limited too."""
    body = json.dumps({"player1": "random", "player2": "random", "seed": 1}).encode()

    def chunks() -> Iterator[bytes]:
        yield body
        for _ in range(MAX_BODY // 1024 + 8):
            yield b" " * 1024

    r = client.post("/games", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413, (
        f"a {len(body) + (MAX_BODY // 1024 + 8) * 1024}-byte chunked body got "
        f"{r.status_code}: {r.text[:200]}")


def test_rate_limit_is_429(db: str) -> None:
    with TestClient(create_app(db, rate=0.01, burst=3)) as c:
        statuses = [c.get("/games/NOSUCHGAME").status_code for _ in range(5)]
        assert statuses[:3] == [404, 404, 404]
        assert statuses[3:] == [429, 429]
        r = c.post("/games", json={"player1": "external", "player2": "rule"})
        assert r.status_code == 429
        assert r.headers["retry-after"] == "1"
        assert r.json()["detail"] == "rate limit exceeded"
        assert manager(c).games == {}


def test_made_up_tokens_do_not_escape_the_rate_limit(db: str) -> None:
    with TestClient(create_app(db, rate=0.01, burst=3)) as c:
        statuses = [c.get("/games/NOSUCHGAME", headers=bearer(f"forged-{i}")).status_code
                    for i in range(6)]
        assert statuses == [404, 404, 404, 429, 429, 429]
        statuses = [c.get("/games/NOSUCHGAME", params={"token": f"forged-{i}"}).status_code
                    for i in range(2)]
        assert statuses == [429, 429]


def test_a_seat_token_buys_no_bucket_of_its_own(db: str) -> None:
    """Seat tokens are free for the asking (`POST /games`), so the allowance is the address's:
    a token adds none; another address has its own."""
    with TestClient(create_app(db, rate=0.01, burst=4)) as c:
        r = c.post("/games", json={"player1": "external", "player2": "external", "seed": 1})
        assert r.status_code == 201, r.text
        code, tokens = r.json()["code"], r.json()["tokens"]
        assert [c.get(f"/games/{code}").status_code for _ in range(4)] == [200, 200, 200, 429]
        for seat in ("1", "2"):
            r = c.get(f"/games/{code}/moves", headers=bearer(tokens[seat]))
            assert r.status_code == 429, seat
        with from_address(c, "10.0.0.7"):
            statuses = [c.get(f"/games/{code}/moves", headers=bearer(tokens["1"])).status_code
                        for _ in range(5)]
        assert statuses == [200, 200, 200, 200, 429]


def test_the_rate_limiter_forgets_idle_clients() -> None:
    limiter = RateLimiter(rate=1e9, burst=2)
    for i in range(3 * MAX_BUCKETS):
        assert limiter.allow(f"client-{i}")
    assert len(limiter.buckets) <= MAX_BUCKETS
    busy = RateLimiter(rate=1e-9, burst=1)
    for i in range(MAX_BUCKETS + 10):
        busy.allow(f"client-{i}")
    assert len(busy.buckets) <= MAX_BUCKETS


def test_tokens_are_kept_out_of_the_access_log() -> None:
    """uvicorn's access log prints the query string, where event streams carry their token."""
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/games/AbCd/events?token=s3cr3t-T0ken_x&x=1", "1.1", 200), None)
    assert RedactTokens().filter(record)
    line = record.getMessage()
    assert "s3cr3t" not in line and "token=***&x=1" in line
    create_app(":memory:")
    assert any(isinstance(f, RedactTokens) for f in logging.getLogger("uvicorn.access").filters)


@pytest.mark.parametrize("spec", [f"mcts:time={MAX_SECONDS * 10:g}",
                                  "mcts:iterations=100000000", "mcts:workers=512"])
def test_agent_seats_have_a_bounded_budget(client: TestClient, spec: str) -> None:
    r = client.post("/games", json={"player1": spec, "player2": "external"})
    assert r.status_code == 422 and "budget" in r.text, r.text
    assert manager(client).games == {}
    r = client.post("/agents/move", json={"agent": spec, "state": seat_view(new_game(seed=1))})
    assert r.status_code == 422 and "budget" in r.text, r.text


@pytest.mark.parametrize("spec", ["rule", "random", "mcts", f"mcts:time={MAX_SECONDS:g}",
                                  f"mcts:iterations={MAX_ITERATIONS}",
                                  f"mcts:workers={MAX_WORKERS},c=0.5", "nosuchagent:x=1",
                                  "llm:openai:gpt-4o"])
def test_budgets_within_the_limits_pass(spec: str) -> None:
    check_budget(spec)  # an unknown kind is left for make_agent to name


def test_the_budget_is_read_from_any_kind_s_search_parameters(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Not from an agent's class: a kind declaring `time` or `iterations` is held to them."""
    kind = AgentKind("deep", "a search (tests)", {"time": Param(float, 0.0, ""),
                                                   "iterations": Param(int, 0, "")},
                     RandomAgent)
    monkeypatch.setattr("server.work.search_budget.kinds", lambda: {"deep": kind})
    check_budget(f"deep:time={MAX_SECONDS:g}")
    with pytest.raises(SpecError, match=r"deep budget too large \(iterations=200001\)"):
        check_budget(f"deep:iterations={MAX_ITERATIONS + 1}")
    with pytest.raises(SpecError, match="unknown parameter 'workers'"):
        check_budget("deep:workers=2")


def test_thinking_agents_never_hold_up_other_games(client: TestClient,
                                                   test_agents: None) -> None:
    """Many agent seats deep in thought (held at their gate) must not queue the moves of other
    games: agents think on their own threads, storage calls run on others."""
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        held = [create(client, "testgate", "external", seed=i)[0] for i in range(10)]
        code, tokens = create(client, "external", "external", seed=50)
        rng = random.Random(50)
        start = time.monotonic()
        for _ in range(6):
            play(client, code, tokens[str(live(client, code).state.current_player)], rng)
        assert time.monotonic() - start < 20, "moves waited for the agents' thinking"
        assert all(live(client, c).state.ply == 0 for c in held)
    finally:
        gate.set()
    wait_until(lambda: all(live(client, c).state.ply == 1 for c in held), WAIT,
               "the held agents' moves")
    GatedAgent.gates.remove(gate)


def test_agents_move_refuses_when_its_searches_are_all_busy(client: TestClient,
                                                             test_agents: None) -> None:
    """A flood of /agents/move searches is refused with 429 (not queued for ever in front of
    the games' agent seats)."""
    m = manager(client)
    m.searches.limit = 1
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    state = new_game(seed=3)
    body = {"agent": "testgate", "state": Perspective.of_player(1).view(state)}
    answers: list[int] = []
    asker = threading.Thread(target=lambda: answers.append(
        client.post("/agents/move", json=body).status_code), daemon=True)
    try:
        asker.start()
        wait_until(lambda: m.searches.running == 1, WAIT, "the first search")
        r = client.post("/agents/move", json={**body, "agent": "random"})
        assert r.status_code == 429 and r.headers["retry-after"] == "1", r.text
        assert "busy" in r.json()["detail"]
    finally:
        gate.set()
    asker.join(WAIT)
    GatedAgent.gates.remove(gate)
    assert answers == [200] and m.searches.running == 0
    assert client.post("/agents/move", json={**body, "agent": "random"}).status_code == 200

