"""A loopback server answers only to loopback names (DNS rebinding: a page of another site
whose name now points at 127.0.0.1 makes the browser send that name as Host), and `duel play`
seats its configured agent for its own token alone."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from server.guard.hosts import LOOPBACK_NAMES, allowed_hosts, host_name, is_loopback
from server.main import create_app


@pytest.mark.parametrize(("header", "name"), [
    ("localhost:8000", "localhost"), ("LOCALHOST.", "localhost"), ("[::1]:80", "[::1]"),
    ("127.0.0.1", "127.0.0.1"), ("evil.example:8000", "evil.example"), ("", ""),
    ("::1", "::1"), ("[::1", "[::1")])
def test_host_names_are_read_without_their_port(header: str, name: str) -> None:
    assert host_name(header) == name


def test_who_is_loopback() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.8.9.1", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "10.0.0.1", "::", "example.org"))
    assert allowed_hosts("127.0.0.1") == frozenset(LOOPBACK_NAMES)
    assert allowed_hosts("0.0.0.0") is None  # a public server checks only names it is given
    assert allowed_hosts("0.0.0.0", ["Duel.Example.org"]) == {"duel.example.org"}
    assert "duel.lan" in (allowed_hosts("::1", ["duel.lan:8000"]) or ())


@pytest.fixture
def loopback(db: str) -> TestClient:
    with TestClient(create_app(db, allowed_hosts=allowed_hosts("127.0.0.1", ["duel.lan"])),
                    base_url="http://127.0.0.1:8000") as c:
        yield c


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1:8000", "127.0.0.2", "[::1]:8000",
                                  "Localhost", "duel.lan:1234"])
def test_loopback_names_are_answered(loopback: TestClient, host: str) -> None:
    for path in ("/agents", "/", "/games", "/openapi.json", "/docs"):
        r = loopback.get(path, headers={"host": host})
        assert r.status_code == 200, (host, path, r.text)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example",
                                  "localhost.evil.example", "0.0.0.0", "10.0.0.5:8000", ""])
def test_other_names_are_refused(loopback: TestClient, host: str) -> None:
    for method, path in (("GET", "/agents"), ("POST", "/games"), ("GET", "/"),
                         ("POST", "/agents/move")):
        r = loopback.request(method, path, headers={"host": host},
                             json={"player1": "external", "player2": "random"})
        assert r.status_code == 421, (host, path, r.status_code)
        assert "does not answer to the host name" in r.json()["detail"]
    # Nothing was created by the refused requests.
    assert loopback.get("/games", headers={"host": "localhost"}).json()["games"] == []


def test_duel_play_seats_its_agent_for_its_own_token_only(db: str) -> None:
    """`duel play`'s server: its configured agent (any kind, even a search the public would
    be offered) needs the token `duel play` holds; a page that reached the port without it
    gets 401."""
    agents = {"mcts-deep": "mcts:time=1,c=0.9"}
    app = create_app(db, agents=agents, admin_token="play-token",
                     allowed_hosts=allowed_hosts("127.0.0.1"), agents_all_restricted=True)
    with TestClient(app, base_url="http://127.0.0.1:9") as c:
        body = {"player1": "external", "player2": "mcts-deep"}
        assert c.post("/games", json=body).status_code == 401
        assert c.post("/games", json=body,
                      headers={"Authorization": "Bearer guess"}).status_code == 403
        r = c.post("/games", json=body, headers={"Authorization": "Bearer play-token"})
        assert r.status_code == 201, r.text
        assert c.post("/games", json={"player1": "external", "player2": "rule"}).status_code == 201
