"""Reprs that paste back, as python-chess's `Move.from_uci('e2e4')` does: a move's repr is its
JSON form (the constructor's call where that form cannot hold it), a state's the deal and the
moves from its opening; `eval(repr(x))` gives x again."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from duel.engine import Deal, GameState, InfoSet, Move, Perspective, new_game, seat_view
from duel.engine.city import PlayerState

NAMES = {"Deal": Deal, "Move": Move, "new_game": new_game}


def pasted(x: object) -> Any:
    return eval(repr(x), dict(NAMES))


def position(state: GameState) -> tuple[Any, ...]:
    """Everything a state holds but its caches (the price book, the cities' price tables)."""
    fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(GameState)
              if f.name not in ("players", "prices", "given_code")}
    players = [{f.name: getattr(p, f.name) for f in dataclasses.fields(PlayerState)
                if f.name != "table"} for p in state.players]
    return (fields, players, state.code, seat_view(state), Perspective.of_player(1).view(state),
            state.priced_moves())


def played(seed: int, plies: int, **kw: Any) -> list[GameState]:
    state = new_game(seed, **kw)
    rng = random.Random(seed)
    states = [state]
    while not state.is_terminal() and len(states) <= plies:
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_move_of_a_game_pastes_back_as_its_json_form(seed: int) -> None:
    for state in played(seed, 200):
        for move in state.legal_moves():
            assert repr(move).startswith("Move.from_json({\"move\": ")
            assert pasted(move) == move


def test_a_move_its_json_form_cannot_hold_pastes_back_as_the_constructor_call() -> None:
    move = Move("DISCARD", card_index=3, wonder="PIRAEUS")  # a field DISCARD does not use
    assert repr(move) == "Move('DISCARD', card_index=3, wonder='PIRAEUS')"
    assert pasted(move) == move
    assert repr(Move("DISCARD", card_index=3)) == \
        'Move.from_json({"move": "DISCARD", "moveData": {"cardIndex": 3}})'


@pytest.mark.parametrize("seed", [4, 5])
def test_a_state_pastes_back_as_its_deal_and_moves(seed: int) -> None:
    states = played(seed, 200)
    for state in states[::15] + states[-1:]:
        assert repr(state).startswith("new_game(deal=Deal.from_json({")
        again = pasted(state)
        assert position(again) == position(state)
        assert repr(again) == repr(state)


def test_the_box_and_a_code_of_its_own_paste_back_too() -> None:
    state = played(6, 12, open_box=False, code="ABCD")[-1]
    again = pasted(state)
    assert "open_box=False" in repr(state) and "code='ABCD'" in repr(state)
    assert position(again) == position(state) and again.code == "ABCD"


def test_a_state_no_moves_lead_to_says_so() -> None:
    """Moved in place by `play` (the search's way), read from a view, or out of turn: no list of
    moves from a deal gives it, and its repr is no code."""
    state = played(7, 20)[-1]
    in_place = state.clone()
    in_place.play(in_place.legal_moves()[0])
    view = seat_view(state)
    sampled = InfoSet.from_view(view).sample(random.Random(0))
    for odd in (in_place, in_place.apply(in_place.legal_moves()[0]), sampled,
                sampled.apply(sampled.legal_moves()[0]), state.out_of_turn(0)):
        assert repr(odd).startswith("<GameState at ply ")
        with pytest.raises(SyntaxError):
            pasted(odd)
