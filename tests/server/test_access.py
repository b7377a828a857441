"""Who may do what: 401 without a seat's token, 403 with another game's, 404 for an unknown
game, in that order and before the body is read; tokens kept only as hashes."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import legal, manager, stored_moves
from helpers.server_helpers import bearer, create, move_body


@pytest.mark.parametrize("method,path", [
    ("GET", "/moves"), ("POST", "/moves")])
@pytest.mark.parametrize("headers,params", [
    ({}, {}),
    ({"Authorization": "Bearer not-a-real-token"}, {}),
    ({"Authorization": "Basic dXNlcjpwYXNz"}, {}),
    ({"Authorization": "Bearer"}, {}),
    ({"Authorization": "Bearer "}, {}),
    ({}, {"token": "not-a-real-token"}),
])
def test_missing_or_bad_token_is_401(client: TestClient, method: str, path: str,
                                     headers: dict[str, str], params: dict[str, str]) -> None:
    code, tokens = create(client, "external", "external", seed=1)
    body = move_body(legal(client, code, tokens["1"])["moves"][0], 0)
    r = client.request(method, f"/games/{code}{path}", headers=headers, params=params,
                       json=body if method == "POST" else None)
    assert r.status_code == 401, r.text
    assert r.headers.get("www-authenticate") == "Bearer"
    assert r.json()["detail"]
    assert stored_moves(client, code) == []


@pytest.mark.parametrize("path", ["", "/moves", "/events"])
def test_bad_token_on_a_view_is_401(client: TestClient, path: str) -> None:
    code, _ = create(client, "external", "external", seed=1)
    r = client.get(f"/games/{code}{path}", headers=bearer("forged"))
    assert r.status_code == 401, r.text


@pytest.mark.parametrize("method,path", [
    ("GET", ""), ("GET", "/moves"), ("POST", "/moves"), ("GET", "/events")])
def test_token_of_another_game_is_403(client: TestClient, method: str, path: str) -> None:
    code, tokens = create(client, "external", "external", seed=1)
    other, other_tokens = create(client, "external", "external", seed=1)  # the same deal
    body = move_body(legal(client, code, tokens["1"])["moves"][0], 0)
    r = client.request(method, f"/games/{code}{path}", headers=bearer(other_tokens["1"]),
                       json=body if method == "POST" else None)
    assert r.status_code == 403, r.text
    assert stored_moves(client, code) == [] and stored_moves(client, other) == []


@pytest.mark.parametrize("method,path", [
    ("GET", ""), ("GET", "/moves"), ("POST", "/moves"), ("GET", "/events"),
    ("GET", "/transcript")])
def test_unknown_game_is_404(client: TestClient, method: str, path: str) -> None:
    _, tokens = create(client, "external", "external", seed=1)
    for headers in ({}, bearer(tokens["1"]), bearer("forged")):
        r = client.request(method, f"/games/NOSUCHGM{path}", headers=headers,
                           json={"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"},
                                 "ply": 0} if method == "POST" else None)
        assert r.status_code == 404, r.text
        assert "NOSUCHGM" in r.json()["detail"]


@pytest.mark.parametrize("content", [
    b"garbage", b'{"move": 5}', b'{"move": "SELECT_WONDER", "moveData": {}, "ply": -1}'])
def test_game_and_token_are_checked_before_the_body(client: TestClient, content: bytes) -> None:
    """Whatever the body holds: an unknown game is 404, no or a forged token 401, another
    game's token 403; only a seat of this game hears that its body is malformed (422)."""
    code, tokens = create(client, "external", "external", seed=1)
    _, other = create(client, "external", "external", seed=1)
    json_type = {"content-type": "application/json"}
    cases = [("NOSUCHGM", {}, 404), ("NOSUCHGM", bearer(tokens["1"]), 404),
             (code, {}, 401), (code, bearer("forged"), 401),
             (code, {"Authorization": "Basic eDp5"}, 401),
             (code, bearer(other["1"]), 403), (code, bearer(tokens["1"]), 422)]
    for game, headers, status in cases:
        r = client.post(f"/games/{game}/moves", content=content, headers={**json_type, **headers})
        assert r.status_code == status, (game, headers, r.status_code, r.text)
        assert r.json()["detail"]
        if status == 401:
            assert r.headers.get("www-authenticate") == "Bearer"
    assert manager(client).store.moves(code) == []


def test_the_database_is_wal_and_keeps_no_token_in_clear(client: TestClient, db: str) -> None:
    """Tokens are shown once, in the create response: the database holds only their hashes,
    and no later response repeats them."""
    import sqlite3

    r = client.post("/games", json={"player1": "external", "player2": "external", "seed": 3})
    body = r.json()
    tokens = list(body["tokens"].values())
    code = body["code"]
    auth = {"authorization": f"Bearer {tokens[0]}"}
    later = [client.get(f"/games/{code}", headers=auth).text,
             client.get(f"/games/{code}/moves", headers=auth).text,
             client.get(f"/games/{code}").text, client.get("/openapi.json").text]
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        dump = "\n".join(con.iterdump())
    for token in tokens:
        assert token not in dump
        assert all(token not in text for text in later)

