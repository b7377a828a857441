"""Creating games through the real app (FastAPI TestClient, lifespan included): codes and
tokens, seeds and explicit deals, the open-box option, every malformed body refused with 422, and
the published schemas in the OpenAPI document."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import live, manager, play, stored_moves
from helpers.server_helpers import assert_valid_state, bearer, create

from duel.engine import Deal, new_game
from duel.engine.codes import CODE_ALPHABET

# The db, client and test_agents fixtures live in conftest.py.


@pytest.mark.parametrize("seats,external", [
    (("external", "rule"), ["1"]),
    (("random", "external"), ["2"]),
    (("external", "external"), ["1", "2"]),
    (("rule", "mcts:iterations=20"), []),
])
def test_create_returns_a_code_and_a_token_per_external_seat(
        client: TestClient, seats: tuple[str, str], external: list[str]) -> None:
    r = client.post("/games", json={"player1": seats[0], "player2": seats[1], "seed": 11})
    assert r.status_code == 201, r.text
    body = r.json()
    assert sorted(body["tokens"]) == external
    assert len(set(body["tokens"].values())) == len(external)
    assert all(len(t) >= 16 for t in body["tokens"].values())
    assert isinstance(body["code"], str) and len(body["code"]) == 8
    assert set(body["code"]) <= set(CODE_ALPHABET)  # random, from the deal codes' alphabet
    assert body["state"]["code"] == body["code"]
    assert_valid_state(body["state"], "the created game's state")
    assert body["state"]["step"] == "WONDER_SELECTION"
    assert live(client, body["code"]).row.seats == list(seats)


def test_create_with_a_seed_or_an_explicit_deal(client: TestClient) -> None:
    a, _ = create(client, "external", "external", seed=123)
    b, _ = create(client, "external", "external", seed=123)
    assert a != b  # every game has its own code...
    assert live(client, a).state.deal == live(client, b).state.deal  # ...a seed fixes the deal
    assert live(client, a).state.deal == new_game(seed=123).deal
    deal = Deal.random(random.Random(99))
    c, _ = create(client, "external", "rule", deal=deal.to_json())
    assert live(client, c).state.deal == deal
    r = client.post("/games", json={"player1": "external", "player2": "rule", "seed": 1,
                                    "deal": deal.to_json()})
    assert r.status_code == 422 and "seed or a deal" in r.text
    bad = deal.to_json()
    bad["age1"] = bad["age1"][:-1] + [bad["age1"][0]]  # a card twice, one missing
    r = client.post("/games", json={"player1": "external", "player2": "rule", "deal": bad})
    assert r.status_code == 422 and r.json()["detail"]
    r = client.post("/games", json={"player1": "external", "player2": "rule",
                                    "deal": {"nonsense": True}})
    assert r.status_code == 422 and r.json()["detail"]


def test_open_box_option(client: TestClient) -> None:
    closed, closed_tokens = create(client, "external", "external", seed=4, open_box=False)
    opened, opened_tokens = create(client, "external", "external", seed=4)
    # The wonders out of the game show from the draft's second round on (during round 1 they
    # would name round 2's wonders by elimination): play round 1 the same way in both games.
    for i in range(4):
        for code, tokens in ((closed, closed_tokens), (opened, opened_tokens)):
            play(client, code, tokens[str(live(client, code).state.current_player)],
                 random.Random(i))
    shut, shown = client.get(f"/games/{closed}").json(), client.get(f"/games/{opened}").json()
    assert shut["tokensUnavailable"] == [] and shut["wondersUnavailable"] == []
    assert len(shown["tokensUnavailable"]) == 5 and len(shown["wondersUnavailable"]) == 4
    assert_valid_state(shut)
    assert live(client, closed).state.open_box is False


@pytest.mark.parametrize("body", [
    {"player1": "external"},
    {"player1": "external", "player2": "nosuchagent"},
    {"player1": "mcts:iterations=abc", "player2": "external"},
    {"player1": "mcts:bogus=1", "player2": "external"},
    {"player1": "external", "player2": "rule", "seed": -1},
    {"player1": "external", "player2": "rule", "seed": "seven"},
    {"player1": "external", "player2": "rule", "time_per_move": 0},
    {"player1": "external", "player2": "rule", "time_per_move": -3},
    {"player1": "external", "player2": "rule", "fallback": "resign"},
    {"player1": "external", "player2": "rule", "open_box": "maybe"},
    {"player1": "external", "player2": "rule", "extra": 1},
    {"player1": "x" * 301, "player2": "rule"},
    {"player1": 7, "player2": "rule"},
    [],
    "external",
])
def test_create_rejects_bad_bodies(client: TestClient, body: Any) -> None:
    r = client.post("/games", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]
    assert manager(client).games == {}


def test_create_rejects_non_json_bodies(client: TestClient) -> None:
    for content in (b"", b"{", b"player1=external", b"null"):
        r = client.post("/games", content=content, headers={"content-type": "application/json"})
        assert r.status_code == 422, (content, r.text)
    assert client.post("/games", json={"player1": "external", "player2": "rule"}
                       ).status_code == 201  # still serving


@pytest.mark.parametrize("path", ["/games", "/games/{code}/moves", "/agents/move"])
def test_undecodable_body_is_422(client: TestClient, path: str) -> None:
    """A body that is not UTF-8 is as malformed as any other: 422, like every other bad body
    (400 is not a documented answer of these endpoints)."""
    code, tokens = create(client, "external", "external", seed=1)
    r = client.post(path.format(code=code), content=b'{"player1": "\xff\xfe"}',
                    headers={"content-type": "application/json", **bearer(tokens["1"])})
    assert r.status_code == 422, f"{r.status_code} {r.text}"
    assert stored_moves(client, code) == []


def test_create_responses_validate_against_the_published_schemas(client: TestClient) -> None:
    """The OpenAPI document carries the published state and deal schemas."""
    doc = client.get("/openapi.json").json()
    text = json.dumps(doc)
    assert "visiblePyramid" in text and "wonderDraft" in text
    code, tokens = create(client, "external", "external", seed=70)
    assert_valid_state(client.get(f"/games/{code}", headers=bearer(tokens["1"])).json())


def test_the_interactive_docs_are_served(client: TestClient) -> None:
    r = client.get("/docs")
    assert r.status_code == 200 and "swagger" in r.text.lower()
    assert "/openapi.json" in r.text

