"""Moves: applied and answered with the state right after them, relabelled for seat 1, refused
with 409 out of turn or at a stale ply (a retry told whether its move was applied), applied once
under concurrent identical requests, and refused with 422 when illegal or malformed."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import (
    WAIT,
    expected_moves,
    legal,
    live,
    manager,
    play,
    states_by_ply,
    stored_moves,
    wait_turn,
)
from helpers.server_helpers import (
    GatedAgent,
    assert_valid_state,
    bearer,
    create,
    move_body,
    wait_until,
)

from duel.engine import Perspective


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
    r = client.get(f"/games/{code}", headers=bearer(tokens["2"]))
    assert (r.headers["duel-ply"], r.headers["duel-over"]) == ("1", "false")


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
    assert m1 == {"ply": 1, "yourTurn": False, "moves": [], "unavailable": []}
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


def test_a_retried_move_is_told_it_was_applied(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=65)
    m = legal(client, code, tokens["1"])
    request = move_body(m["moves"][0], 0)
    first = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]), json=request)
    assert first.status_code == 200, first.text
    retry = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]), json=request)
    assert retry.status_code == 409
    assert "already applied as move 1" in retry.json()["detail"]
    other = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                        json=move_body(m["moves"][1], 0))
    assert other.status_code == 409 and "another move" in other.json()["detail"]
    assert len(manager(client).store.moves(code)) == 1


@pytest.mark.parametrize("agent", ["rule", "random"])
def test_the_answer_is_the_state_right_after_the_move(client: TestClient, agent: str) -> None:
    """Even when an agent answers at once, a move's answer shows the ply it made."""
    code, tokens = create(client, "external", agent, seed=66)
    rng = random.Random(66)
    for _ in range(12):
        m = wait_turn(client, code, tokens["1"])
        r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                        json=move_body(rng.choice(m["moves"]), m["ply"]))
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["ply"] == m["ply"] + 1
        states = states_by_ply(client, code)
        assert body["state"] == Perspective.of_player(1).view(states[body["ply"]])


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

