"""Nothing private leaks: a token is read in one spelling only (the Authorization header, or a
query pair named exactly `token`), no spelling of it reaches any log line, and an agent's details
(search statistics, LLM replies) exists only once its move is played (test_play_privacy.py
checks that nothing of it shows before)."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote_plus

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, live, play_out, stored_moves
from helpers.server_helpers import bearer, create, wait_until

from server.deps import TOKEN_MAX, query_token
from server.guard.log_redaction import RedactTokens
from server.main import create_app

SECRET = "s3cr3t-T0ken_x"

# Query names that decode to `token` (or nearly) without being spelled so.
DISGUISED = ["%74oken", "tok%65n", "%74%6F%6B%65%6E", "%2574oken", "TOKEN", "Token", "+token",
             "token%20", "%2574%256F%256B%2565%256E"]


def _queries(token: str) -> list[str]:
    return ([f"{name}={token}" for name in DISGUISED]
            + [f"x=1&{name}={token}&y=2" for name in DISGUISED[:3]]
            + [f"token={token}", f"x=1;token={token}", f"token={token}&token={token}"])


# ---------------------------------------------------------------------------- one spelling
@pytest.mark.parametrize("name", ["%74oken", "tok%65n", "%74%6F%6B%65%6E", "toke%6E"])
def test_a_disguised_token_name_is_refused(name: str) -> None:
    with pytest.raises(Exception, match="spelled 'token'"):
        query_token(f"x=1&{name}=abc".encode())
    assert query_token(b"x=1&token=a%2Bb") == "a+b"
    assert query_token(b"TOKEN=abc&%2574oken=abc") is None  # other names, never read as it


def test_the_server_reads_a_token_in_one_spelling_only(client: TestClient) -> None:
    """A name that decodes to `token` without being spelled so (or a second `token`) is
    refused; any other name is not a token: a spectator's view, and 401 where a seat is needed.
    Only `token=` itself is read."""
    code, tokens = create(client, "external", "external", seed=1)
    token = tokens["1"]
    seat = client.get(f"/games/{code}", headers=bearer(token)).json()
    public = client.get(f"/games/{code}").json()
    assert seat != public
    for query in _queries(token):
        names = [unquote_plus(pair.partition("=")[0]) for pair in query.split("&")]
        if query == f"token={token}":
            assert client.get(f"/games/{code}?{query}").json() == seat
        elif "token" in names:
            for path in ("", "/moves", "/events"):
                r = client.get(f"/games/{code}{path}?{query}")
                assert r.status_code == 401, (query, path, r.text)
        else:  # (an event stream would stay open: its spectator view is the state's)
            assert client.get(f"/games/{code}?{query}").json() == public, query
            assert client.get(f"/games/{code}/moves?{query}").status_code == 401, query


# ---------------------------------------------------------------------------- logs
def test_no_spelling_of_a_token_survives_the_log_filter() -> None:
    for query in _queries(SECRET):
        record = logging.LogRecord(
            "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
            ("127.0.0.1:5", "GET", f"/games/AbCd/events?{query}", "1.1", 200), None)
        assert RedactTokens().filter(record)
        assert SECRET not in record.getMessage(), query
    record = logging.LogRecord("duel.server", logging.INFO, __file__, 1,
                               f"GET /x?a=1&%74oken={SECRET}&b=2", None, None)
    RedactTokens().filter(record)
    assert record.getMessage() == "GET /x?a=1&%74oken=***&b=2"


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def served(db: str) -> Iterator[tuple[str, _Lines]]:
    """The app behind a real uvicorn (in a thread, access log on), and every line its loggers
    write."""
    lines = _Lines()
    loggers = [logging.getLogger(n) for n in ("uvicorn.access", "uvicorn.error", "duel.server")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(lines)
    config = uvicorn.Config(create_app(db), host="127.0.0.1", port=0, log_config=None,
                            log_level="info", access_log=True)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, WAIT, "uvicorn to start")
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}", lines
    finally:
        server.should_exit = True
        thread.join(WAIT)
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(lines)
            lg.setLevel(level)


def test_a_token_never_reaches_uvicorn_s_access_log(served: tuple[str, _Lines]) -> None:
    url, lines = served
    with httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/games", json={"player1": "external", "player2": "external"})
        code, token = r.json()["code"], r.json()["tokens"]["1"]
        queries = _queries(token)
        for query in queries:
            http.get(f"/games/{code}?{query}")
    deadline = time.monotonic() + WAIT
    while sum(f"/games/{code}?" in line for line in lines.lines) < len(queries):
        assert time.monotonic() < deadline, lines.lines
        time.sleep(0.05)
    assert not [line for line in lines.lines if token in line]


# ---------------------------------------------------------------------------- agent details
def _frames(page: str) -> list[dict[str, Any]]:
    data = json.loads(page.split("const GAME = ")[1].split(";\n")[0])
    return list(data["frames"])


def test_agent_details_are_public_once_the_move_is_played(client: TestClient) -> None:
    """The issue's rule: a move's details (here MCTS statistics, in true labels) show to
    players and spectators as soon as the move is played, in the view page and the partial
    transcript; the whole transcript waits for the end."""
    code, tokens = create(client, "mcts:iterations=30", "external", seed=9)
    wait_until(lambda: stored_moves(client, code), WAIT, "the MCTS seat's first pick")
    for headers in ({}, bearer(tokens["2"])):
        page = client.get(f"/games/{code}/view", headers=headers)
        assert page.status_code == 200
        records = [f["record"] for f in _frames(page.text) if f["record"]]
        assert records and all("iterations" in r["details"] for r in records), records
    partial = client.get(f"/games/{code}/transcript", params={"partial": "true"})
    moves = [json.loads(ln) for ln in partial.text.splitlines()][1:]
    assert moves and all("top" in m["details"] for m in moves), moves
    assert client.get(f"/games/{code}/transcript").status_code == 409
    play_out(client, code, tokens, random.Random(9))
    wait_until(lambda: live(client, code).over, WAIT, "the end")
    page = client.get(f"/games/{code}/view").text
    mcts = [f["record"] for f in _frames(page) if f["record"] and f["record"]["player"] == 1]
    assert mcts and all("iterations" in r["details"] for r in mcts)
    since = client.get(f"/games/{code}/transcript", params={"since": 5}).text.splitlines()
    assert json.loads(since[0])["type"] == "header"
    assert [json.loads(ln)["ply"] for ln in since[1:-1]][0] == 5


def test_a_query_token_over_the_documented_length_is_no_token(client: TestClient) -> None:
    """The OpenAPI document gives the query's token at most TOKEN_MAX characters; the server
    reads the raw query itself, so it holds to that itself: 401, naming the limit."""
    code, _ = create(client, "external", "external", seed=1)
    assert query_token(b"token=" + b"t" * TOKEN_MAX) == "t" * TOKEN_MAX
    r = client.get(f"/games/{code}/moves?token=" + "t" * (TOKEN_MAX + 1))
    assert r.status_code == 401, r.text
    assert f"over {TOKEN_MAX} characters" in r.json()["detail"]


def test_no_token_reaches_the_log_at_any_level(servers: list[Any], tmp_path: Any) -> None:
    """A real `duel serve` at its most verbose level allowed (debug; trace is refused): the
    seat tokens it hands out, sent back in the header and the query, and the operator's token,
    never appear in its log."""
    from helpers.live_server import start

    (tmp_path / "admin").write_text("operator-s3cret-token\n")
    server = start(servers, tmp_path / "db.sqlite", tmp_path, "--admin-token-file",
                   str(tmp_path / "admin"), "--log-level", "debug")
    url = server.url
    created = httpx.post(url + "/games", json={"player1": "external", "player2": "external"},
                         headers={"Authorization": "Bearer operator-s3cret-token"},
                         timeout=30).json()
    code, tokens = created["code"], created["tokens"]
    for token in tokens.values():
        httpx.get(f"{url}/games/{code}", headers={"Authorization": f"Bearer {token}"},
                  timeout=30)
        httpx.get(f"{url}/games/{code}/moves?token={token}", timeout=30)
        httpx.get(f"{url}/games/{code}/moves?%74oken={token}", timeout=30)
        with httpx.stream("GET", f"{url}/games/{code}/events?token={token}", timeout=30) as s:
            next(s.iter_lines())
    httpx.get(f"{url}/games/{code}/transcript?partial=true",
              headers={"Authorization": "Bearer operator-s3cret-token"}, timeout=30)
    server.stop()
    log = server.log_path.read_text(errors="replace")
    assert "GET /games/" in log or "HTTP" in log, log[-2000:]  # the log did get requests
    for secret in [*tokens.values(), "operator-s3cret-token"]:
        assert secret not in log
