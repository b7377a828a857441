"""Reading games: each seat's view (itself as player2), the spectator's, the legal moves with
their prices, and no hidden card in anything a seat or a spectator is sent, a whole game long."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import expected_moves, legal, live, play
from helpers.server_helpers import (
    assert_no_leak,
    assert_valid_state,
    bearer,
    create,
    hidden_card_ids,
    move_body,
)

from duel.engine import CARD_NAMES, GameState, Perspective, new_game, seat_view


def face_down_slot(state: GameState) -> int | None:
    for slot, card in enumerate(state.pyramid):
        if card >= 0 and not (state.face_up >> slot) & 1:
            return slot
    return None


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

