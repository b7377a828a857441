"""Agents are the operator's: no request can make the server call out, read a file or spend its
keys (a loopback listener hears nothing from any request-supplied spec), while the agents the
operator configured are used by name, reach the endpoints configured for them, answer to the
operator's token when one is set, and are built from the configuration of the day after a
restart."""

from __future__ import annotations

import json
import logging
import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.fake_llm_server import FakeLLMServer, openai_reply
from helpers.hostile_inputs import hostile_specs
from helpers.listener import Listener
from helpers.play_helpers import WAIT, live, play, stored_moves
from helpers.server_helpers import bearer, create, wait_until

from duel.engine import GameState, Perspective, new_game, seat_view
from server.main import create_app
from server.settings import Limits
from server.store import GameRow, SQLiteStore

OPENAI_KEY = "sk-server-openai-SENTINEL"
ANTHROPIC_KEY = "sk-server-anthropic-SENTINEL"
COMPAT_KEY = "sk-server-compat-SENTINEL"


@pytest.fixture(autouse=True)
def _server_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's environment holds keys, as a real deployment's would."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("DUEL_COMPAT_API_KEY", COMPAT_KEY)


def _mover_move(state: GameState) -> dict[str, Any]:
    """A legal move of the player to move, as the agent (always player2) writes it."""
    return Perspective.to_move(state).moves_out(state.legal_moves())[0].to_json()


def test_no_request_supplied_spec_reaches_out(db: str) -> None:
    """Every such spec is refused with 422 naming what is offered, in POST /games (either
    seat) and POST /agents/move; the listener hears nothing, and no key shows in an answer."""
    state = seat_view(new_game(seed=1))
    with Listener() as listener, TestClient(create_app(db, rate=1e6, burst=10**6)) as client:
        answers = []
        for spec in hostile_specs(listener.port):
            answers += [client.post("/games", json={"player1": spec, "player2": "external"}),
                        client.post("/games", json={"player1": "external", "player2": spec}),
                        client.post("/agents/move", json={"agent": spec, "state": state})]
        for r in answers:
            assert r.status_code == 422, r.text
            detail = r.json()["detail"]
            assert "offered: random, rule, mcts, dqn" in detail, detail
            assert "SENTINEL" not in r.text
        time.sleep(0.5)  # anything launched in the background would have connected by now
        assert listener.connections == []
        assert client.app.state.manager.games == {}  # type: ignore[attr-defined]


def test_probing_for_files_learns_nothing(client: TestClient) -> None:
    """`dqn:/etc/shadow` (a file that exists) and `dqn:/nonexistent` get the same answer."""
    state = seat_view(new_game(seed=2))
    answers = {}
    for path in ("/etc/shadow", "/nonexistent", "/etc", "/etc/hostname"):
        for url, body in (("/games", {"player1": f"dqn:{path}", "player2": "external"}),
                          ("/agents/move", {"agent": f"dqn:{path}", "state": state})):
            r = client.post(url, json=body)
            answers[(url, path)] = (r.status_code, r.text.replace(path, "PATH"))
    for url in ("/games", "/agents/move"):
        assert len({answers[(url, p)] for p in ("/etc/shadow", "/nonexistent", "/etc",
                                                "/etc/hostname")}) == 1, answers
        assert answers[(url, "/etc/shadow")][0] == 422


def test_a_request_may_set_only_the_public_parameters(client: TestClient) -> None:
    state = seat_view(new_game(seed=3))
    for spec in ("mcts:iterations=20,c=0.5,rollout=uniform,seed=1,margin=0.1,build_bias=0.5",
                 "mcts:time=0.05,workers=1", "mcts:iterations=20,tree=age", "dqn", "random",
                 "rule"):
        r = client.post("/agents/move", json={"agent": spec, "state": state})
        assert r.status_code == 200, (spec, r.text)
    r = client.post("/agents/move", json={"agent": "mcts:tree=forest", "state": state})
    assert r.status_code == 422 and "tree must be 'game' or 'age'" in r.text
    r = client.post("/agents/move", json={"agent": "dqn:model.onnx", "state": state})
    assert r.status_code == 422 and "dqn takes no parameters here" in r.text


def test_an_operator_agent_is_called_at_its_endpoint_with_its_key(db: str) -> None:
    """The compat agent the operator configured, by name: its endpoint gets the call, with the
    compat key; the loopback listener (any other host) hears nothing."""
    state = new_game(seed=4)
    with FakeLLMServer() as fake, Listener() as listener:
        fake.enqueue(openai_reply(tool_args=json.dumps(_mover_move(state))))
        agents = {"bot": f"llm:compat:test-model@{fake.url}/v1,transport_retries=0"}
        with TestClient(create_app(db, agents=agents)) as client:
            r = client.post("/agents/move", json={"agent": "bot", "state": seat_view(state)})
            assert r.status_code == 200, r.text
            assert r.json()["details"]["llm"]["calls"][0]["category"] == "OK"
        assert len(fake.requests) == 1
        headers = {k.lower(): v for k, v in fake.requests[0]["headers"].items()}
        assert headers["authorization"] == f"Bearer {COMPAT_KEY}"
        assert listener.connections == []


def test_the_operator_token_guards_the_agents_that_spend_keys(db: str) -> None:
    closed = "llm:compat:m@http://127.0.0.1:9/v1,transport_retries=0,max_attempts=1"
    agents = {"bot": closed, "deep": "mcts:iterations=20"}
    state = seat_view(new_game(seed=5))
    # The games' MCTS seats below search for this same caller: room for them and for the
    # last request, so the caps on concurrent searches do not answer in the token's place.
    limits = Limits(searches=8, searches_per_caller=8)
    with TestClient(create_app(db, agents=agents, admin_token="op-secret",
                               limits=limits)) as client:
        for body in ({"player1": "bot", "player2": "external"},
                     {"player1": "external", "player2": "bot"}):
            r = client.post("/games", json=body)
            assert r.status_code == 401 and "operator" in r.text, r.text
            assert client.post("/games", json=body, headers=bearer("nope")).status_code == 403
        assert client.app.state.manager.games == {}  # type: ignore[attr-defined]
        r = client.post("/games", json={"player1": "external", "player2": "bot"},
                        headers=bearer("op-secret"))
        assert r.status_code == 201, r.text
        basic = {"Authorization": "Basic Zm9vOmJhcg=="}  # a proxy's, not the operator's
        assert client.post("/games", json={"player1": "external", "player2": "bot"},
                           headers=basic).status_code == 401
        # Built-ins and the operator's local agents need no token (another scheme is no token).
        for seats in (("deep", "external"), ("rule", "mcts:iterations=5")):
            for headers in ({}, basic):
                r = client.post("/games", json={"player1": seats[0], "player2": seats[1]},
                                headers=headers)
                assert r.status_code == 201, r.text
        move = {"agent": "bot", "state": state}
        assert client.post("/agents/move", json=move).status_code == 401
        assert client.post("/agents/move", json=move, headers=bearer("nope")).status_code == 403
        r = client.post("/agents/move", json=move, headers=bearer("op-secret"))
        assert r.status_code == 200 and r.json()["details"]["llm"]["fallback"] == "random"
        assert client.post("/agents/move", json={**move, "agent": "deep"}).status_code == 200


def test_get_agents_lists_the_offer_without_specs(db: str) -> None:
    agents = {"gpt": "llm:openai:gpt-4o-mini,base_url=http://10.1.2.3:8080/v1",
              "mine": "dqn:/srv/models/secret-model.onnx"}
    with TestClient(create_app(db, agents=agents, admin_token="t")) as client:
        r = client.get("/agents")
    assert r.status_code == 200
    offer = {a["name"]: a for a in r.json()["agents"]}
    assert list(offer) == ["random", "rule", "mcts", "dqn", "gpt", "mine"]
    assert set(offer["mcts"]["params"]) == {"iterations", "time", "c", "rollout", "epsilon",
                                            "build_bias", "margin", "seed", "workers", "tree"}
    assert offer["mcts"]["params"]["time"]["max"] == 30
    assert offer["dqn"]["params"] == {} and offer["random"]["params"] == {}
    assert offer["gpt"]["kind"] == "llm" and offer["gpt"]["operator_only"] is True
    assert offer["mine"]["kind"] == "dqn" and offer["mine"]["operator_only"] is False
    for secret in ("10.1.2.3", "8080", "secret-model", "/srv", "base_url", "gpt-4o-mini"):
        assert secret not in r.text


def test_a_name_no_longer_configured_leaves_the_seat_to_its_fallback(
        db: str, caplog: pytest.LogCaptureFixture) -> None:
    """After a restart a seat's agent is built from the configuration of the day: a name gone
    from it plays by the fallback, logged, and its old endpoint is never called."""
    with FakeLLMServer() as fake:
        agents = {"bot": f"llm:compat:test-model@{fake.url}/v1,transport_retries=0"}
        with TestClient(create_app(db, agents=agents)) as first:
            code, tokens = create(first, "external", "bot", seed=6, fallback="rule")
        with caplog.at_level(logging.WARNING, "duel.server"), \
                TestClient(create_app(db)) as second:
            play(second, code, tokens["1"], random.Random(6))
            wait_until(lambda: live(second, code).state.ply >= 3, WAIT, "the fallback's picks")
            theirs = [r for r in stored_moves(second, code) if r.seat.player == 2]
        assert fake.requests == []
    assert theirs and all(r.details["fallback"] == "rule" for r in theirs)
    assert all("unknown agent 'bot'" in r.details["error"] for r in theirs)
    assert "'bot'" in caplog.text and "fallback" in caplog.text


def test_a_stored_spec_that_reaches_out_is_never_run_after_a_restart(db: str) -> None:
    """A game stored by an older server with a request's LLM spec in a seat: restored, its seat
    plays by the fallback; the spec's endpoint hears nothing."""
    with Listener() as listener:
        spec = f"llm:compat:m@http://127.0.0.1:{listener.port}/v1"
        state = new_game(seed=7)
        store = SQLiteStore(db)
        try:
            store.create_game(GameRow("Old00001", [spec, "external"], {}, {
                "seed": 7, "deal": state.deal.to_json(), "open_box": True,
                "time_per_move": None, "fallback": "random"}, 0, False), seat_view(state))
        finally:
            store.close()
        with TestClient(create_app(db)) as client:
            wait_until(lambda: stored_moves(client, "Old00001"), WAIT, "the fallback's move")
            row = stored_moves(client, "Old00001")[0]
        time.sleep(0.3)
        assert listener.connections == []
    assert row.details["fallback"] == "random" and "not offered" in row.details["error"]
