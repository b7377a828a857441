"""The REST game server through its real app (FastAPI TestClient, lifespan included): every
endpoint and error code, seat security, idempotent moves, hidden cards, event streams,
transcripts, clocks and fallbacks, agent failures and restarts on the same SQLite file."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient
from server_helpers import (
    GatedAgent,
    assert_no_leak,
    assert_valid_state,
    bearer,
    check_transcript,
    create,
    footer,
    hidden_card_ids,
    move_body,
    parse_sse,
    wait_until,
)

from duel.engine import (
    CARD_NAMES,
    Deal,
    GameState,
    Move,
    new_game,
    seat_view,
    swap_move,
)
from duel.engine.perspective import Perspective
from duel.records import MoveRecord
from server.games import GameManager, LiveGame
from server.main import MAX_BODY, create_app
from server.store import SQLiteStore

CLOSED_PORT_LLM = "llm:compat:test-model@http://127.0.0.1:9/v1,transport_retries=0,backoff=0.01"
WAIT = 60.0  # generous: another CPU-heavy job shares this machine


# ============================================================================ helpers
# The db, client and test_agents fixtures live in conftest.py.


def manager(client: TestClient) -> GameManager:
    app: Any = client.app
    return cast(GameManager, app.state.manager)


def live(client: TestClient, code: str) -> LiveGame:
    return manager(client).games[code]


def stored_moves(client: TestClient, code: str) -> list[MoveRecord]:
    return manager(client).store.moves(code)


def legal(client: TestClient, code: str, token: str) -> dict[str, Any]:
    r = client.get(f"/games/{code}/moves", headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()


def wait_turn(client: TestClient, code: str, token: str) -> dict[str, Any]:
    """The seat's legal moves once it is its turn (fails if the game ends first)."""
    def ready() -> dict[str, Any] | None:
        assert not live(client, code).over, "the game ended while waiting for a turn"
        m = legal(client, code, token)
        return m if m["yourTurn"] else None
    return wait_until(ready, WAIT, "the seat's turn")


def play(client: TestClient, code: str, token: str, rng: random.Random) -> dict[str, Any]:
    """The seat plays a random legal move at its turn; returns the accepted response body."""
    m = wait_turn(client, code, token)
    r = client.post(f"/games/{code}/moves", headers=bearer(token),
                    json=move_body(rng.choice(m["moves"]), m["ply"]))
    assert r.status_code == 200, r.text
    return r.json()


def external_seat_to_move(client: TestClient, code: str, tokens: dict[str, str]) -> str | None:
    game = live(client, code)
    if game.over:
        return None
    return tokens.get(str(game.state.current_player))


def play_out(client: TestClient, code: str, tokens: dict[str, str], rng: random.Random,
             max_moves: int = 400) -> int:
    """Play every external seat at random until the game is over; returns the moves made."""
    made = 0
    for _ in range(max_moves):
        if wait_until(lambda: live(client, code).over or external_seat_to_move(
                client, code, tokens), WAIT, "a turn of an external seat or the end") is True:
            return made
        token = external_seat_to_move(client, code, tokens)
        if token is None:
            continue
        play(client, code, token, rng)
        made += 1
    raise AssertionError(f"game {code} not over after {max_moves} external moves")


def expected_moves(state: GameState, seat: int) -> list[dict[str, Any]]:
    """The seat's legal moves with prices, in its labels (it is player2)."""
    if state.current_player != seat or state.is_terminal():
        return []
    return [{**(swap_move(m) if seat == 1 else m).to_json(), "price": p}
            for m, p in state.priced_moves()]


def face_down_slot(state: GameState) -> int | None:
    for slot, card in enumerate(state.pyramid):
        if card >= 0 and not (state.face_up >> slot) & 1:
            return slot
    return None


# ============================================================================ the checks themselves
def test_the_leak_check_sees_hidden_cards() -> None:
    """The leak check must catch a face-down or removed card shown by name."""
    rng = random.Random(0)
    state = new_game(seed=0)
    while state.step_name == "WONDER_SELECTION":
        state = state.apply(rng.choice(state.legal_moves()))
    view = seat_view(state)
    assert_no_leak(view, state)
    slot = face_down_slot(state)
    assert slot is not None
    leaky = json.loads(json.dumps(view))
    leaky["visiblePyramid"][str(slot)]["cardName"] = CARD_NAMES[state.pyramid[slot]]
    with pytest.raises(AssertionError):
        assert_no_leak(leaky, state)
    with pytest.raises(AssertionError):
        assert_no_leak({"reason": f"card {CARD_NAMES[state.deal.removed2[0]]} is gone"}, state)
    assert CARD_NAMES[state.pyramid[slot]] not in json.dumps(view)


# ============================================================================ creating games
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


# ============================================================================ reading games
def test_seat_and_spectator_views(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=21)
    rng = random.Random(1)
    for _ in range(12):  # the wonder draft and a few cards
        state = live(client, code).state
        seat1 = client.get(f"/games/{code}", headers=bearer(tokens["1"])).json()
        seat2 = client.get(f"/games/{code}", params={"token": tokens["2"]}).json()
        public = client.get(f"/games/{code}").json()
        assert seat1 == Perspective.of_player(1).view(state)
        assert seat2 == Perspective.of_player(2).view(state)
        assert public == seat_view(state)
        for view, who in ((seat1, "seat 1"), (seat2, "seat 2"), (public, "spectator")):
            assert_valid_state(view, who)
            assert_no_leak(view, state, who)
        # The seat to move always sees itself as player2, the player to move.
        mover = state.current_player
        assert (seat1, seat2)[mover - 1]["currentPlayerNumber"] == 2
        assert (seat1, seat2)[2 - mover]["currentPlayerNumber"] == 1
        assert public["currentPlayerNumber"] == mover
        play(client, code, tokens[str(mover)], rng)


def test_legal_moves_with_prices(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=8)
    rng = random.Random(2)
    for _ in range(20):
        state = live(client, code).state
        for seat in (1, 2):
            m = legal(client, code, tokens[str(seat)])
            assert m["ply"] == state.ply
            assert m["yourTurn"] == (state.current_player == seat)
            assert m["moves"] == expected_moves(state, seat)
            assert_no_leak(m, state, f"/moves of seat {seat}")
        play(client, code, tokens[str(state.current_player)], rng)
    r = client.get(f"/games/{code}/moves")
    assert r.status_code == 401  # a spectator has no moves


# ============================================================================ moves
def test_a_move_is_applied_and_returned(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=3)
    m = legal(client, code, tokens["1"])
    r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                    json=move_body(m["moves"][0], 0))
    assert r.status_code == 200, r.text
    body = r.json()
    state = live(client, code).state
    assert body["ply"] == 1 == state.ply
    assert body["state"] == Perspective.of_player(1).view(state)
    assert_valid_state(body["state"])
    assert [row.move.to_json() for row in stored_moves(client, code)] == [
        {"move": m["moves"][0]["move"], "moveData": m["moves"][0]["moveData"]}]
    assert legal(client, code, tokens["2"])["yourTurn"]


def test_seat_1_moves_are_relabelled(client: TestClient) -> None:
    """CHOOSE_STARTING_PLAYER names a player: seat 1 names it in its own labels."""
    code, tokens = create(client, "external", "external", seed=30)
    rng = random.Random(30)
    for _ in range(200):
        game = live(client, code)
        if game.state.step_name == "CHOOSE_STARTING_PLAYER" or game.over:
            break
        play(client, code, tokens[str(game.state.current_player)], rng)
    state = live(client, code).state
    assert state.step_name == "CHOOSE_STARTING_PLAYER", "no age change in 200 moves"
    seat = state.current_player
    token = tokens[str(seat)]
    me = {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": 2}}  # "me"
    moves = legal(client, code, token)["moves"]
    assert {"move": me["move"], "moveData": me["moveData"], "price": 0} in moves
    r = client.post(f"/games/{code}/moves", headers=bearer(token),
                    json={**me, "ply": state.ply})
    assert r.status_code == 200, r.text
    assert stored_moves(client, code)[-1].move.player_number == seat


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


def test_a_seat_cannot_move_for_the_other_seat(client: TestClient, test_agents: None) -> None:
    code, tokens = create(client, "external", "external", seed=2)
    # Seat 1 is to move; seat 2 tries seat 1's move.
    m = legal(client, code, tokens["1"])
    for move in m["moves"]:
        r = client.post(f"/games/{code}/moves", headers=bearer(tokens["2"]),
                        json=move_body(move, 0))
        assert r.status_code == 409, r.text
        assert "not your turn" in r.json()["detail"]
    assert stored_moves(client, code) == []
    assert live(client, code).state.ply == 0
    # Nor for an agent seat while the agent thinks (held at its gate).
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        agent_game, agent_tokens = create(client, "testgate", "external", seed=2)
        state = live(client, agent_game).state
        for move in state.legal_moves():
            r = client.post(f"/games/{agent_game}/moves", headers=bearer(agent_tokens["2"]),
                            json={**move.to_json(), "ply": 0})
            assert r.status_code == 409 and "not your turn" in r.json()["detail"]
        assert stored_moves(client, agent_game) == []
        gate.set()
        wait_until(lambda: stored_moves(client, agent_game), WAIT, "the agent's move")
        assert [r.seat.player for r in stored_moves(client, agent_game)] == [1]
    finally:
        gate.set()
        GatedAgent.gates.remove(gate)


def test_out_of_turn_stale_and_replayed_moves(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=5)
    m = legal(client, code, tokens["1"])
    request = move_body(m["moves"][0], 0)
    assert client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                       json={**request, "ply": 1}).status_code == 409  # a future ply
    r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]), json=request)
    assert r.status_code == 200, r.text
    # The same request again (a client retrying after a lost response) is refused...
    for _ in range(3):
        again = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]), json=request)
        assert again.status_code == 409, again.text
        assert "ply" in again.json()["detail"] or "turn" in again.json()["detail"]
    # ...and the game has exactly one new move.
    assert len(stored_moves(client, code)) == 1
    assert live(client, code).state.ply == 1
    # Out of turn: seat 1 again with the right ply.
    m1 = legal(client, code, tokens["1"])
    assert m1 == {"ply": 1, "yourTurn": False, "moves": []}
    r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                    json=move_body(m["moves"][1], 1))
    assert r.status_code == 409 and "not your turn" in r.json()["detail"]
    # Seat 2 replaying seat 2's stale ply after it moved.
    m2 = legal(client, code, tokens["2"])
    req2 = move_body(m2["moves"][0], 1)
    assert client.post(f"/games/{code}/moves", headers=bearer(tokens["2"]),
                       json=req2).status_code == 200
    assert client.post(f"/games/{code}/moves", headers=bearer(tokens["2"]),
                       json=req2).status_code == 409
    assert len(stored_moves(client, code)) == 2
    r = client.post(f"/games/{code}/moves", headers=bearer(tokens["2"]),
                    json={**req2, "ply": -1})
    assert r.status_code == 422


def test_concurrent_identical_requests_are_applied_once(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=6)
    request = move_body(legal(client, code, tokens["1"])["moves"][0], 0)
    statuses: list[int] = []
    barrier = threading.Barrier(6)

    def send() -> None:
        barrier.wait(10)
        statuses.append(client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                                    json=request).status_code)

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert sorted(statuses) == [200] + [409] * 5
    assert len(stored_moves(client, code)) == 1 and live(client, code).state.ply == 1


def test_illegal_move_is_422_with_the_reason_and_the_legal_moves(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=7)
    state = live(client, code).state
    available = {m.wonder for m in state.legal_moves()}
    absent = next(w for w in ("THE_SPHINX", "THE_PYRAMIDS", "PIRAEUS", "THE_COLOSSUS",
                              "THE_GREAT_LIBRARY") if w not in available)
    for move in ({"move": "SELECT_WONDER", "moveData": {"wonder": absent}},
                 {"move": "DISCARD", "moveData": {"cardIndex": 3}},
                 {"move": "CHOOSE_PROGRESS_TOKEN", "moveData": {"progressToken": "LAW"}}):
        r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                        json={**move, "ply": 0})
        assert r.status_code == 422, r.text
        detail = r.json()["detail"]
        assert detail["error"] == "illegal move"
        assert detail["move"] == move
        assert isinstance(detail["reason"], str) and detail["reason"]
        assert detail["legal"] == [{"move": m["move"], "moveData": m["moveData"]}
                                   for m in expected_moves(state, 1)]
    assert stored_moves(client, code) == []


@pytest.mark.parametrize("body", [
    {"move": "FLY_TO_THE_MOON", "moveData": {}, "ply": 0},
    {"move": "SELECT_WONDER", "moveData": {}, "ply": 0},
    {"move": "SELECT_WONDER", "moveData": {"wonder": "NOT_A_WONDER"}, "ply": 0},
    {"move": "SELECT_WONDER", "moveData": {"wonder": 12}, "ply": 0},
    {"move": "DISCARD", "moveData": {"cardIndex": "3"}, "ply": 0},
    {"move": "DISCARD", "moveData": {"cardIndex": 99}, "ply": 0},
    {"move": "DISCARD", "moveData": {"cardIndex": -1}, "ply": 0},
    {"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS", "cardIndex": 1}, "ply": 0},
    {"move": "SELECT_WONDER", "ply": 0},
    {"move": "SELECT_WONDER", "moveData": [], "ply": 0},
    {"moveData": {"wonder": "PIRAEUS"}, "ply": 0},
    {"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"}},
    {"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"}, "ply": "zero"},
    {"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"}, "ply": 0, "extra": True},
    {"move": "X" * 65, "moveData": {}, "ply": 0},
    [{"move": "SELECT_WONDER"}],
    None,
])
def test_malformed_move_is_422(client: TestClient, body: Any) -> None:
    code, tokens = create(client, "external", "external", seed=9)
    r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]), json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]
    assert stored_moves(client, code) == []
    assert legal(client, code, tokens["1"])["yourTurn"]  # the game goes on


def test_illegal_move_reason_uses_the_callers_labels(client: TestClient) -> None:
    """Seat 1 sees itself as player2 everywhere (views, legal moves, the echoed move); the
    reason of a refused move must name the players the same way."""
    code, tokens = create(client, "external", "external", seed=12)
    rng = random.Random(12)
    for _ in range(40):  # the draft, then until seat 1 is to play a card
        state = live(client, code).state
        if state.step_name == "PLAY_CARD" and state.current_player == 1:
            break
        play(client, code, tokens[str(state.current_player)], rng)
    state = live(client, code).state
    assert state.step_name == "PLAY_CARD" and state.current_player == 1
    view = client.get(f"/games/{code}", headers=bearer(tokens["1"])).json()
    theirs = next(iter(view["player1"]["wonders"]))  # seat 1 sees the opponent as player1
    slot = state.accessible_slots()[0]
    r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                    json={"move": "CONSTRUCT_WONDER",
                          "moveData": {"cardIndex": slot, "wonder": theirs}, "ply": state.ply})
    assert r.status_code == 422, r.text
    reason = r.json()["detail"]["reason"]
    assert "player 2's wonders" in reason, (
        f"seat 1 is player2 in its view, but the reason says: {reason!r}")


# ============================================================================ limits, 404
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


# ============================================================================ whole games
@pytest.mark.parametrize("agent,external_seat", [
    ("rule", 1), ("random", 2), ("mcts:iterations=50", 1), ("rule", 2)])
def test_external_against_agent_full_game(client: TestClient, tmp_path: Path, agent: str,
                                          external_seat: int) -> None:
    seats = ["external", agent] if external_seat == 1 else [agent, "external"]
    code, tokens = create(client, *seats, seed=40 + external_seat)
    token = tokens[str(external_seat)]
    rng = random.Random(external_seat)
    assert client.get(f"/games/{code}/transcript").status_code == 409
    def turn_or_end() -> dict[str, Any] | bool | None:
        if live(client, code).over:
            return True
        m = legal(client, code, token)
        return m if m["yourTurn"] else None

    for _ in range(200):
        m = wait_until(turn_or_end, WAIT, "the external seat's turn")
        if m is True:
            break
        view = client.get(f"/games/{code}", headers=bearer(token)).json()
        public = client.get(f"/games/{code}").json()
        after = live(client, code).state
        for obj, what in ((view, "seat view"), (public, "public view"), (m, "/moves")):
            assert_no_leak(obj, after, what)
        assert_valid_state(view, "seat view")
        assert_valid_state(public, "public view")
        assert view["currentPlayerNumber"] == 2
        r = client.post(f"/games/{code}/moves", headers=bearer(token),
                        json=move_body(rng.choice(m["moves"]), m["ply"]))
        assert r.status_code == 200, r.text
        assert_valid_state(r.json()["state"], "accepted move's state")
    game = live(client, code)
    assert game.over and game.state.is_terminal()
    view = client.get(f"/games/{code}", headers=bearer(token)).json()
    assert view["step"] == "GAME_END"
    result = game.state.result()
    assert result is not None
    winner = result.winner_label
    assert view["player2"]["won"] == (winner == external_seat)
    assert view["player1"]["won"] == (winner == 3 - external_seat)
    assert legal(client, code, token) == {"ply": game.state.ply, "yourTurn": False, "moves": []}
    r = client.get(f"/games/{code}/transcript")
    assert r.status_code == 200
    t = check_transcript(r.text, tmp_path / "game.jsonl")
    assert len(t.moves) == game.state.ply
    assert t.header["players"][str(external_seat)]["spec"] == "external"
    assert t.header["players"][str(3 - external_seat)]["spec"] == agent
    assert footer(t)["winner"] == winner


def test_agents_play_a_whole_game_by_themselves(client: TestClient, tmp_path: Path) -> None:
    code, tokens = create(client, "rule", "random", seed=3)
    assert tokens == {}
    wait_until(lambda: live(client, code).over, WAIT, "the agents' game to end")
    public = client.get(f"/games/{code}").json()
    assert public["step"] == "GAME_END"
    assert_valid_state(public)
    t = check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")
    assert len(t.moves) == live(client, code).state.ply


def test_no_view_leaks_a_face_down_card(client: TestClient) -> None:
    """A whole external-vs-external game: at every ply, every view, the legal moves of both
    seats, the accepted move's answer and the refusals of moves aimed at face-down cards show
    no hidden card."""
    code, tokens = create(client, "external", "external", seed=77)
    rng = random.Random(77)
    probes = 0
    for _ in range(200):
        game = live(client, code)
        if game.over:
            break
        state = game.state
        seat = state.current_player
        token = tokens[str(seat)]
        seen: list[tuple[Any, str]] = [
            (client.get(f"/games/{code}", headers=bearer(tokens["1"])).json(), "seat 1 view"),
            (client.get(f"/games/{code}", headers=bearer(tokens["2"])).json(), "seat 2 view"),
            (client.get(f"/games/{code}").json(), "public view"),
            (legal(client, code, tokens["1"]), "seat 1 moves"),
            (legal(client, code, tokens["2"]), "seat 2 moves"),
        ]
        slot = face_down_slot(state) if state.step_name == "PLAY_CARD" else None
        if slot is not None:
            for kind in ("CONSTRUCT_BUILDING", "DISCARD"):
                r = client.post(f"/games/{code}/moves", headers=bearer(token), json={
                    "move": kind, "moveData": {"cardIndex": slot}, "ply": state.ply})
                assert r.status_code == 422, r.text
                seen.append((r.json(), f"refusal of {kind} at face-down slot {slot}"))
                probes += 1
        m = seen[2 + seat][0]
        r = client.post(f"/games/{code}/moves", headers=bearer(token),
                        json=move_body(rng.choice(m["moves"]), m["ply"]))
        assert r.status_code == 200, r.text
        for obj, what in seen:
            assert_no_leak(obj, state, what)
        # The answer shows the state after the move (which may have turned cards face up).
        assert_no_leak(r.json(), live(client, code).state, "accepted move")
        assert hidden_card_ids(state) >= hidden_card_ids(live(client, code).state)
    assert live(client, code).over
    assert probes > 10


# ============================================================================ events
def _collect_events(client: TestClient, code: str, token: str | None,
                    out: list[dict[str, Any]], errors: list[BaseException]) -> None:
    try:
        params = {"token": token} if token else {}
        with client.stream("GET", f"/games/{code}/events", params=params) as r:
            assert r.status_code == 200, r.read()
            assert r.headers["content-type"].startswith("text/event-stream")
            out.extend(parse_sse(r.iter_lines()))
    except BaseException as exc:  # noqa: BLE001 - reported by the test thread
        errors.append(exc)


def test_event_stream_one_event_per_change(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=13)
    seat_events: list[dict[str, Any]] = []
    public_events: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    readers = [threading.Thread(target=_collect_events, daemon=True,
                                args=(client, code, tokens["1"], seat_events, errors)),
               threading.Thread(target=_collect_events, daemon=True,
                                args=(client, code, None, public_events, errors))]
    for t in readers:
        t.start()
    states: dict[int, GameState] = {0: live(client, code).state}
    rng = random.Random(13)
    for _ in range(200):
        game = live(client, code)
        ply = game.state.ply

        def seen(ply: int = ply) -> bool:
            return bool(errors) or (any(e["id"] == str(ply) for e in seat_events)
                                    and any(e["id"] == str(ply) for e in public_events))

        wait_until(seen, WAIT, f"the events of ply {ply}")
        assert not errors, errors
        if game.over:
            break
        play(client, code, tokens[str(game.state.current_player)], rng)
        states[ply + 1] = live(client, code).state
    for t in readers:
        t.join(WAIT)
        assert not t.is_alive(), "the event stream did not end after the game-over event"
    assert not errors, errors
    final = live(client, code).state.ply
    assert [int(e["id"]) for e in seat_events] == list(range(final + 1))
    assert [int(e["id"]) for e in public_events] == list(range(final + 1))
    for events, seat in ((seat_events, 1), (public_events, None)):
        for e in events:
            assert e["event"] == "state"
            state = states[int(e["id"])]
            data = json.loads(e["data"])
            assert data == Perspective.of_player(seat).view(state)
            assert_valid_state(data, f"event {e['id']}")
            assert_no_leak(data, state, f"event {e['id']}")
        assert json.loads(events[-1]["data"])["step"] == "GAME_END"


def test_event_stream_of_an_agent_game_and_of_a_finished_game(client: TestClient) -> None:
    code, tokens = create(client, "external", "rule", seed=14)
    events: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    reader = threading.Thread(target=_collect_events, daemon=True,
                              args=(client, code, tokens["1"], events, errors))
    reader.start()
    wait_until(lambda: events or errors, WAIT, "the first event")
    play_out(client, code, tokens, random.Random(14))
    reader.join(WAIT)
    assert not reader.is_alive() and not errors, errors
    ids = [int(e["id"]) for e in events]
    assert ids == sorted(set(ids)) and ids[0] == 0 and ids[-1] == live(client, code).state.ply
    final = json.loads(events[-1]["data"])
    assert final == Perspective.of_player(1).view(live(client, code).state)
    for e in events:
        assert_valid_state(json.loads(e["data"]))
    # A finished game: one event, the final state, then the stream ends.
    again: list[dict[str, Any]] = []
    _collect_events(client, code, None, again, errors)
    assert not errors, errors
    assert len(again) == 1 and json.loads(again[0]["data"])["step"] == "GAME_END"


# ============================================================================ /agents/move
def _positions(seed: int, every: int = 7) -> list[GameState]:
    rng = random.Random(seed)
    state, out = new_game(seed=seed), []
    while not state.is_terminal():
        if state.ply % every == 0:
            out.append(state)
        state = state.apply(rng.choice(state.legal_moves()))
    return out


@pytest.mark.parametrize("agent", ["random", "rule", "mcts:iterations=30"])
def test_agents_move_returns_a_legal_move(client: TestClient, agent: str) -> None:
    for state in _positions(31)[:8]:
        seat = state.current_player
        view = Perspective.of_player(seat).view(state)
        r = client.post("/agents/move", json={"agent": agent, "state": view})
        assert r.status_code == 200, r.text
        body = r.json()
        move = Move.from_json({"move": body["move"], "moveData": body["moveData"]})
        true_move = swap_move(move) if seat == 1 else move
        assert true_move in state.legal_moves(), (agent, state.step_name, body)
        assert isinstance(body["details"], dict)


MISSING = object()


@pytest.mark.parametrize("changes,needle", [
    ({"agent": "nosuchagent"}, "unknown agent"),
    ({"agent": "mcts:time=1000"}, "budget"),
    ({"agent": "mcts:iterations=100000000"}, "budget"),
    ({"agent": "mcts:c=abc"}, "mcts"),
    ({"state": {"step": "PLAY_CARD"}}, "schema"),
    ({"state": "GAME"}, ""),
    ({"state": []}, ""),
    ({"extra": 1}, ""),
    ({"agent": 5}, ""),
    ({"agent": MISSING}, ""),
    ({"state": MISSING}, ""),
])
def test_agents_move_rejects_bad_input(client: TestClient, changes: dict[str, Any],
                                       needle: str) -> None:
    state = _positions(32)[3]
    body = {"agent": "rule", "state": Perspective.of_player(state.current_player).view(state),
            **changes}
    body = {k: v for k, v in body.items() if v is not MISSING}
    r = client.post("/agents/move", json=body)
    assert r.status_code == 422, r.text
    assert needle in json.dumps(r.json()["detail"])


def test_agents_move_at_game_end_is_422(client: TestClient) -> None:
    rng = random.Random(5)
    state = new_game(seed=5)
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_moves()))
    r = client.post("/agents/move", json={"agent": "rule", "state": seat_view(state)})
    assert r.status_code == 422 and "over" in r.text


def test_agents_move_never_crashes_on_altered_states(db: str) -> None:
    """States that pass the schema but are not positions of any game: 200 or 422, never 5xx."""
    rng = random.Random(2024)
    names = list(CARD_NAMES) + ["AGE_1_BACK", "AGE_2_BACK", "GUILD_BACK", "THE_SPHINX",
                                "PIRAEUS", "LAW", "THEOLOGY", "PLAY_CARD", "GAME_END",
                                "DESTROY_GREY", "CHOOSE_STARTING_PLAYER"]
    views = [Perspective.of_player(s.current_player).view(s) for s in _positions(3, every=3)]

    def leaves(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
        items = obj.items() if isinstance(obj, dict) else enumerate(obj) \
            if isinstance(obj, list) else None
        if items is None:
            yield path, obj
            return
        for k, v in items:
            yield from leaves(v, (*path, k))

    def altered(view: dict[str, Any]) -> dict[str, Any]:
        view = json.loads(json.dumps(view))
        for _ in range(rng.randint(1, 3)):
            path, value = rng.choice(list(leaves(view)))
            if not path:
                continue
            if isinstance(value, bool):
                new: Any = not value
            elif isinstance(value, int):
                new = rng.choice([0, 1, 2, 3, -1, 7, 19, 20, 99, value + 1, value - 1])
            elif isinstance(value, str):
                new = rng.choice(names)
            else:
                continue
            target = view
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = new
        return view

    statuses: dict[int, int] = {}
    with TestClient(create_app(db, rate=1e6, burst=10**6), raise_server_exceptions=False) as c:
        for _ in range(400):
            state = altered(rng.choice(views))
            r = c.post("/agents/move", json={"agent": rng.choice(["random", "rule"]),
                                             "state": state})
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            assert r.status_code in (200, 422), (r.status_code, r.text[:300],
                                                  json.dumps(state)[:2000])
    assert statuses.get(200) and statuses.get(422)


# ============================================================================ clocks, fallbacks
def test_slow_external_seat_gets_a_random_move(client: TestClient) -> None:
    code, tokens = create(client, "external", "rule", seed=15, time_per_move=1.0,
                          fallback="random")
    # Seat 1 sleeps through its first pick; the clock picks for it, then the rule seat picks
    # twice (the draft goes 1, 2, 2, 1).
    wait_until(lambda: len(stored_moves(client, code)) >= 3, WAIT, "a timed-out move")
    first = stored_moves(client, code)[0]
    assert first.seat.player == 1
    assert first.details == {"fallback": "random", "timeout": True}
    assert not live(client, code).over
    # The bot is back: a stale ply (the move the clock made for it) is refused, a move in
    # time is played as sent.
    for _attempt in range(3):
        m = wait_turn(client, code, tokens["1"])
        stale = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                            json=move_body(m["moves"][0], m["ply"] - 1))
        assert stale.status_code == 409
        r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                        json=move_body(m["moves"][-1], m["ply"]))
        if r.status_code == 200:
            break
        assert r.status_code == 409, r.text  # the clock struck first: try the next turn
    assert r.status_code == 200, r.text
    row = stored_moves(client, code)[m["ply"]]
    assert row.seat.player == 1 and "timeout" not in row.details
    # Asleep again: the clock keeps playing for it.
    wait_until(lambda: any(x.seat.player == 1 and x.details.get("timeout")
                           for x in stored_moves(client, code)[m["ply"] + 1:]),
               WAIT, "another timed-out move")


@pytest.mark.parametrize("external_seat", [1, 2])
def test_slow_external_seat_forfeits(client: TestClient, tmp_path: Path,
                                     external_seat: int) -> None:
    seats = ["external", "rule"] if external_seat == 1 else ["rule", "external"]
    code, tokens = create(client, *seats, seed=16, time_per_move=0.25, fallback="forfeit")
    token = tokens[str(external_seat)]
    wait_until(lambda: live(client, code).over, WAIT, "the forfeit")
    winner = 3 - external_seat
    mine = client.get(f"/games/{code}", headers=bearer(token)).json()
    public = client.get(f"/games/{code}").json()
    for view, who in ((mine, "seat view"), (public, "public view")):
        assert view["step"] == "GAME_END", who
        assert_valid_state(view, who)
    assert mine["player2"]["won"] is False and mine["player1"]["won"] is True
    assert public[f"player{winner}"]["won"] is True
    assert public[f"player{external_seat}"]["won"] is False
    assert legal(client, code, token)["yourTurn"] is False
    r = client.post(f"/games/{code}/moves", headers=bearer(token), json={
        "move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"},
        "ply": live(client, code).state.ply})
    assert r.status_code == 409 and "over" in r.text
    t = check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "f.jsonl")
    assert footer(t)["forfeit"] == external_seat
    assert footer(t)["winner"] == winner and footer(t)["victory"] == "forfeit"
    assert t.moves[-1]["details"]["forfeit"] is True and t.moves[-1]["details"]["timeout"]


@pytest.mark.parametrize("fallback", ["random", "rule"])
def test_a_failing_agent_falls_back_and_the_game_goes_on(
        client: TestClient, tmp_path: Path, test_agents: None, fallback: str) -> None:
    code, tokens = create(client, "testfail", "external", seed=17, fallback=fallback)
    play_out(client, code, tokens, random.Random(17))
    rows = stored_moves(client, code)
    theirs = [r for r in rows if r.seat.player == 1]
    assert theirs
    for row in theirs:
        assert row.details["fallback"] == fallback
        assert "RuntimeError" in row.details["error"]
    assert live(client, code).state.is_terminal()
    check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")


def test_a_failing_agent_with_forfeit_fallback_forfeits(
        client: TestClient, test_agents: None) -> None:
    """fallback=forfeit is "what plays when ... an agent seat fails": the failing seat
    resigns, it does not play a random move."""
    code, _ = create(client, "testfail", "external", seed=18, fallback="forfeit")
    wait_until(lambda: stored_moves(client, code), WAIT, "the failing agent's turn")
    public = client.get(f"/games/{code}").json()
    row = stored_moves(client, code)[0]
    assert public["step"] == "GAME_END" and public["player2"]["won"] is True, (
        f"the failing seat played {row.move} with details {row.details} instead of forfeiting")
    assert row.details.get("forfeit") is True


def test_llm_seat_on_a_closed_port_falls_back_and_the_game_goes_on(
        client: TestClient, tmp_path: Path) -> None:
    code, tokens = create(client, CLOSED_PORT_LLM, "external", seed=19)
    play_out(client, code, tokens, random.Random(19))
    theirs = [r for r in stored_moves(client, code) if r.seat.player == 1]
    assert theirs and all(r.details["llm"]["fallback"] == "random" for r in theirs)
    assert all(c["category"] == "TRANSPORT" for r in theirs for c in r.details["llm"]["calls"])
    check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")


def test_llm_seat_with_forfeit_fallback_resigns(client: TestClient, tmp_path: Path) -> None:
    code, tokens = create(client, CLOSED_PORT_LLM + ",fallback=forfeit", "external", seed=20)
    wait_until(lambda: live(client, code).over, WAIT, "the LLM seat to resign")
    view = client.get(f"/games/{code}", headers=bearer(tokens["2"])).json()
    assert view["step"] == "GAME_END" and view["player2"]["won"] is True
    t = check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")
    assert footer(t)["forfeit"] == 1 and footer(t)["winner"] == 2


# ============================================================================ restarts
def test_restart_resumes_the_game_and_the_agent_turn(db: str, tmp_path: Path,
                                                     test_agents: None) -> None:
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        with TestClient(create_app(db)) as first:
            code, tokens = create(first, "external", "testgate", seed=22)
            play(first, code, tokens["1"], random.Random(1))
            # The agent seat is to move (it picks two wonders) and is held at its gate.
            assert live(first, code).state.current_player == 2
            before = {who: first.get(f"/games/{code}", headers=h).json() for who, h in
                      (("1", bearer(tokens["1"])), ("public", {}))}
            moves_before = [r.move for r in stored_moves(first, code)]
            # Shut down while the agent thinks; its gate opens once the shutdown has cancelled
            # its turn (the app waits for the thread on its way out).
            turn = live(first, code).task
            assert turn is not None and not turn.done()

            def open_after_cancel() -> None:
                try:
                    wait_until(turn.done, WAIT, "the agent's turn to be cancelled")
                finally:
                    gate.set()

            opener = threading.Thread(target=open_after_cancel, daemon=True)
            opener.start()
        opener.join(WAIT)
        assert turn.cancelled()
        store = SQLiteStore(db)
        try:
            assert [r.move for r in store.moves(code)] == moves_before  # nothing half-done
        finally:
            store.close()

        second_gate = threading.Event()
        GatedAgent.gates.append(second_gate)
        with TestClient(create_app(db)) as second:
            game = live(second, code)
            assert game.state.ply == 1 and game.state.current_player == 2
            for who, headers in (("1", bearer(tokens["1"])), ("public", {})):
                assert second.get(f"/games/{code}", headers=headers).json() == before[who]
            assert legal(second, code, tokens["1"])["yourTurn"] is False
            second_gate.set()  # the resumed agent seat moves by itself
            wait_until(lambda: live(second, code).state.ply >= 3, WAIT, "the agent's picks")
            assert [r.seat.player for r in stored_moves(second, code)] == [1, 2, 2]
            # The old token still works and the game goes on to its end.
            play_out(second, code, tokens, random.Random(2))
            check_transcript(second.get(f"/games/{code}/transcript").text,
                             tmp_path / "resumed.jsonl")
    finally:
        for g in GatedAgent.gates:
            g.set()
        del GatedAgent.gates[1:]


def test_restart_keeps_unfinished_and_finished_games(db: str, tmp_path: Path) -> None:
    rng = random.Random(23)
    with TestClient(create_app(db)) as first:
        code, tokens = create(first, "external", "rule", seed=23)
        done, done_tokens = create(first, "external", "random", seed=24)
        for _ in range(7):
            play(first, code, tokens["1"], rng)
        wait_until(lambda: live(first, code).state.current_player == 1, WAIT, "the agent")
        play_out(first, done, done_tokens, rng)
        state = live(first, code).state
        views = (first.get(f"/games/{code}", headers=bearer(tokens["1"])).json(),
                 first.get(f"/games/{code}").json())
        transcript = first.get(f"/games/{done}/transcript").text
    with TestClient(create_app(db)) as second:
        restored = live(second, code).state
        assert restored.ply == state.ply
        assert Perspective.of_player(1).view(restored) == Perspective.of_player(1).view(state)
        assert hidden_card_ids(restored) == hidden_card_ids(state)
        assert (second.get(f"/games/{code}", headers=bearer(tokens["1"])).json(),
                second.get(f"/games/{code}").json()) == views
        assert second.get(f"/games/{done}/transcript").text == transcript
        assert live(second, done).over
        r = second.post(f"/games/{done}/moves", headers=bearer(done_tokens["1"]), json={
            "move": "DISCARD", "moveData": {"cardIndex": 0}, "ply": live(second, done).state.ply})
        assert r.status_code == 409
        play_out(second, code, tokens, rng)
        check_transcript(second.get(f"/games/{code}/transcript").text, tmp_path / "r.jsonl")
