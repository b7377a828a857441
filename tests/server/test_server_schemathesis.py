"""Property-based API tests: schemathesis generates requests from the app's own OpenAPI schema
and checks that the server never answers 5xx and that every answer conforms to the schema
(status code, content type, body).

Generated path codes almost never name a real game, so each operation on `/games/{code}...` is
also replayed against real games: an unfinished external-vs-external game (moves, state, legal
moves) and a finished game (events, transcript; its event stream ends after one event). The
games are created before schemathesis starts, in the same SQLite file, so each schemathesis
lifespan (started per test, stopped at teardown) loads them back from storage.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from server.main import create_app

_DIR = Path(tempfile.mkdtemp(prefix="duel-schemathesis-"))
atexit.register(shutil.rmtree, _DIR, True)
DB = str(_DIR / "db.sqlite")


def _seed_games() -> dict[str, Any]:
    """An unfinished external-vs-external game and a finished rule-vs-random game."""
    with TestClient(create_app(DB)) as client:
        r = client.post("/games", json={"player1": "external", "player2": "external",
                                        "seed": 5})
        assert r.status_code == 201, r.text
        live = r.json()
        r = client.post("/games", json={"player1": "rule", "player2": "random", "seed": 6})
        assert r.status_code == 201, r.text
        done = r.json()["code"]
        deadline = time.monotonic() + 60
        app: Any = client.app
        while not app.state.manager.games[done].over:
            assert time.monotonic() < deadline, "the agent game did not finish"
            time.sleep(0.05)
    return {"live": live["code"], "tokens": live["tokens"], "done": done}


GAMES = _seed_games()
# A generous limiter: rate limiting is tested in test_server_api.py, here it would only add 429s.
app = create_app(DB, rate=1e6, burst=10**6)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)
CONFORMANCE = [not_a_server_error, status_code_conformance, content_type_conformance,
               response_schema_conformance]
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _run(case: schemathesis.Case, checks: list[Any]) -> None:
    """The generated request, then (for /games/{code}...) the same request against real games:
    the finished one for the event stream (it ends after the game-over event) and the
    transcript, the unfinished one, as a spectator and with a seat's token, for the rest."""
    case.validate_response(case.call(), checks=checks)
    if "{code}" not in case.path:
        return
    finished = case.path.endswith(("/events", "/transcript"))
    case.path_parameters = {**(case.path_parameters or {}),
                            "code": GAMES["done" if finished else "live"]}
    case.validate_response(case.call(), checks=checks)
    if not finished:
        seat = {"Authorization": f"Bearer {GAMES['tokens']['1']}"}
        case.validate_response(case.call(headers=seat), checks=checks, headers=seat)


@schema.parametrize()
@SETTINGS
def test_no_server_error(case: schemathesis.Case) -> None:
    """Bad input never crashes the server: no 5xx, whatever the body, path or query."""
    _run(case, [not_a_server_error])


@schema.parametrize()
@SETTINGS
def test_responses_conform_to_the_schema(case: schemathesis.Case) -> None:
    """Every answer is documented: its status code, content type and body."""
    _run(case, CONFORMANCE)


def test_schema_lists_every_endpoint() -> None:
    paths = {(p, m.upper()) for p, ops in schema.raw_schema["paths"].items() for m in ops}
    assert {("/games", "POST"), ("/games/{code}", "GET"), ("/games/{code}/moves", "GET"),
            ("/games/{code}/moves", "POST"), ("/games/{code}/events", "GET"),
            ("/games/{code}/transcript", "GET"), ("/agents/move", "POST")} <= paths


@pytest.fixture(scope="module", autouse=True)
def _cleanup() -> Any:
    yield
    shutil.rmtree(_DIR, ignore_errors=True)
