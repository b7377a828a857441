"""Hostile requests never get a 5xx, and never leave a traceback in the log: every endpoint fed
hostile agent specs, bodies, headers and queries; and the operator's own agents failing in
every way the probe found (a model file name too long or missing, an endpoint answering 401 or
404, the local model's extra missing, retries without end) give a 4xx or the seat's fallback,
with one line that names no path, no URL and nothing the endpoint said."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.fake_llm_server import FakeLLMServer, Scripted, error_reply
from helpers.hostile_inputs import (
    BROKEN_SPECS,
    HOSTILE_AUTH,
    HOSTILE_BODIES,
    HOSTILE_QUERIES,
    hostile_specs,
)
from helpers.play_helpers import WAIT, live, play_out
from helpers.server_helpers import create, wait_until

from duel.engine import new_game, seat_view
from duel.errors import LLMConfigError
from server.main import create_app

SECRET_DIR = "/srv/secret-models"


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every log record of the test; none may carry a traceback."""
    with caplog.at_level(logging.DEBUG):
        yield caplog
    tracebacks = [r.getMessage() for r in caplog.records
                  if r.exc_info or r.stack_info or "Traceback" in r.getMessage()]
    assert not tracebacks, tracebacks[:3]


def _check(r: Any, *hidden: str) -> None:
    """No 5xx; an error's detail is one line naming none of `hidden`."""
    assert r.status_code < 500, (r.request.method, r.request.url, r.status_code, r.text[:300])
    if r.status_code >= 400:
        text = r.text
        assert "Traceback" not in text
        detail = r.json()["detail"]
        if isinstance(detail, str):
            assert "\n" not in detail, detail
        for secret in hidden:
            assert secret not in text, (secret, text[:300])


def _paths(live_code: str, done_code: str) -> list[tuple[str, str]]:
    """Every route, on a real game, a finished one (its event stream ends) and made-up codes."""
    out = [("POST", "/games"), ("GET", "/agents"), ("POST", "/agents/move")]
    for code in (live_code, done_code, "NOSUCHGM", "..%2F..%2Fetc", "x" * 300):
        out += [("GET", f"/games/{code}"), ("GET", f"/games/{code}/moves"),
                ("POST", f"/games/{code}/moves"), ("GET", f"/games/{code}/transcript"),
                ("GET", f"/games/{code}/view")]
    out += [("GET", f"/games/{code}/events") for code in (done_code, "NOSUCHGM")]
    return out


def test_every_endpoint_survives_hostile_input(db: str, logs: pytest.LogCaptureFixture) -> None:
    state = seat_view(new_game(seed=1))
    with TestClient(create_app(db, rate=1e6, burst=10**6),
                    raise_server_exceptions=False) as client:
        live_code, _ = create(client, "external", "external", seed=1)
        done_code, _ = create(client, "random", "random", seed=2)
        wait_until(lambda: live(client, done_code).over, WAIT, "the agents' game")
        for spec in [*hostile_specs(9), *BROKEN_SPECS]:
            for body in ({"player1": spec, "player2": "external"},
                         {"player1": "external", "player2": spec}):
                r = client.post("/games", json=body)
                _check(r)
                assert r.status_code == 422, (spec, r.text)
            r = client.post("/agents/move", json={"agent": spec, "state": state})
            _check(r)
            assert r.status_code == 422, (spec, r.text)
        for method, path in _paths(live_code, done_code):
            for body in HOSTILE_BODIES:
                _check(client.request(method, path, content=body,
                                      headers={"content-type": "application/json"}))
            for auth in HOSTILE_AUTH:
                _check(client.request(method, path,
                                      headers={"authorization": auth.encode("latin-1")}))
            for query in HOSTILE_QUERIES:
                _check(client.request(method, f"{path}?{query}"))


@pytest.fixture
def failing_endpoints() -> Iterator[dict[str, FakeLLMServer]]:
    """LLM endpoints that refuse the key (401), know no such model (404), fail (500) or send
    back what is not JSON; each reply quotes something the callers must never see."""
    replies = {"refused": lambda body: error_reply(401), "missing": lambda body: error_reply(404),
               "failing": lambda body: error_reply(500),
               "garbled": lambda body: Scripted(None, raw=b"scripted <html> not JSON")}
    servers = {name: FakeLLMServer(responder=reply) for name, reply in replies.items()}
    for server in servers.values():
        server.__enter__()
    try:
        yield servers
    finally:
        for server in servers.values():
            server.__exit__()


def _operator_agents(endpoints: dict[str, FakeLLMServer]) -> dict[str, str]:
    once = "transport_retries=0,max_attempts=1"
    return {
        "long": "dqn:" + "d" * 290,
        "gone": f"dqn:{SECRET_DIR}/model.onnx",
        "refused": f"llm:compat:m@{endpoints['refused'].url}/v1,{once}",
        "missing": f"llm:compat:m@{endpoints['missing'].url}/v1,{once}",
        "garbled": f"llm:compat:m@{endpoints['garbled'].url}/v1,{once}",
        "endless": f"llm:compat:m@{endpoints['failing'].url}/v1,transport_retries=1000000,"
                   "backoff=0",
        "local": "llm:local",
    }


@pytest.fixture
def no_local_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a server installed without the `local` extra."""
    def missing(self: Any) -> None:
        raise LLMConfigError(f"install the local extra (missing llama_cpp in {SECRET_DIR})")

    monkeypatch.setattr("duel.agents.llm.servers.local.LocalServer.check_installed", missing)


def test_operator_agents_that_fail_answer_in_one_safe_line(
        db: str, failing_endpoints: dict[str, FakeLLMServer], no_local_extra: None,
        logs: pytest.LogCaptureFixture) -> None:
    agents = _operator_agents(failing_endpoints)
    hidden = [SECRET_DIR, "d" * 50, "scripted", "127.0.0.1",
              *(str(s.httpd.server_address[1]) for s in failing_endpoints.values())]
    state = seat_view(new_game(seed=3))
    with TestClient(create_app(db, agents=agents), raise_server_exceptions=False) as client:
        for name in agents:
            r = client.post("/agents/move", json={"agent": name, "state": state})
            _check(r, *hidden)
            if name == "garbled":  # its one attempt failed: the agent's fallback played
                calls = r.json()["details"]["llm"]["calls"]
                assert r.status_code == 200 and calls[0]["error"] == "malformed response"
                continue
            assert r.status_code == 422, (name, r.text)
            assert f"agent '{name}'" in r.json()["detail"]
        for name in ("long", "gone"):  # cannot be built: a new game is refused
            r = client.post("/games", json={"player1": name, "player2": "external"})
            _check(r, *hidden)
            assert r.status_code == 422 and "cannot be used" in r.text
    assert "127.0.0.1" in logs.text and SECRET_DIR in logs.text  # the operator's log has it


@pytest.mark.parametrize("name", ["refused", "missing", "garbled", "local"])
def test_an_operator_seat_that_fails_is_played_by_its_fallback(
        db: str, tmp_path: Path, failing_endpoints: dict[str, FakeLLMServer],
        no_local_extra: None, logs: pytest.LogCaptureFixture, name: str) -> None:
    """The game goes on; its transcript, public once the game is over, tells why in safe
    words."""
    agents = _operator_agents(failing_endpoints)
    with TestClient(create_app(db, agents=agents), raise_server_exceptions=False) as client:
        code, tokens = create(client, name, "external", seed=4, fallback="random")
        play_out(client, code, tokens, random.Random(4))
        transcript = client.get(f"/games/{code}/transcript")
        assert transcript.status_code == 200
    for secret in (SECRET_DIR, "scripted", "127.0.0.1"):
        assert secret not in transcript.text
    assert ("failed" if name != "garbled" else "malformed response") in transcript.text
