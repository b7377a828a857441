"""Moves in the prompt's JSON form: round trips, malformed input, and illegal-move messages."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from duel.engine import (
    DuelError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    Move,
    new_game,
    seat_view,
)
from duel.engine.data import CARD_NAMES, CARDS, TOKEN_NAMES, WONDER_NAMES
from duel.engine.layout import COVERED_BY
from duel.engine.state import GameState
from duel.schemas import move_schema_error


def states(seed: int) -> Iterator[GameState]:
    state = new_game(seed)
    rng = random.Random(seed)
    yield state
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_moves()))
        yield state


def find_state(pred: Callable[[GameState], bool], seeds: range = range(60)) -> GameState:
    for seed in seeds:
        for state in states(seed):
            if pred(state):
                return state
    raise AssertionError("no state found")


def first_play_state(seed: int = 0) -> GameState:
    return find_state(lambda s: s.step_name == "PLAY_CARD", range(seed, seed + 1))


# ---------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("seed", range(8))
def test_every_legal_move_round_trips(seed: int) -> None:
    kinds = set()
    for state in states(seed):
        for move in state.legal_moves():
            obj = move.to_json()
            assert set(obj) == {"move", "moveData"}
            assert Move.from_json(obj) == move
            assert Move.from_json(json.loads(json.dumps(obj))) == move
            assert move_schema_error(obj) is None
            kinds.add(move.kind)
    assert {"SELECT_WONDER", "CONSTRUCT_BUILDING", "DISCARD", "CONSTRUCT_WONDER",
            "CHOOSE_STARTING_PLAYER"} <= kinds


def test_all_move_kinds_round_trip() -> None:
    examples = [
        {"move": "SELECT_WONDER", "moveData": {"wonder": "THE_PYRAMIDS"}},
        {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 0}},
        {"move": "DISCARD", "moveData": {"cardIndex": 19}},
        {"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": 4, "wonder": "PIRAEUS"}},
        {"move": "CHOOSE_PROGRESS_TOKEN", "moveData": {"progressToken": "LAW"}},
        {"move": "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD", "moveData": {"progressToken": "ECONOMY"}},
        {"move": "DESTROY_CARD", "moveData": {"cardName": "QUARRY"}},
        {"move": "CONSTRUCT_FROM_DISCARD", "moveData": {"cardName": "SCRIPTORIUM"}},
        {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": 2}},
    ]
    for obj in examples:
        move = Move.from_json(obj)
        assert move.to_json() == obj
        assert Move.from_json(move.to_json()) == move
        assert move_schema_error(obj) is None


# ---------------------------------------------------------------------------- malformed
GOOD_INDEX = {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 3}}
MALFORMED: list[tuple[str, Any, str]] = [
    ("not a dict (list)", [GOOD_INDEX], "JSON object"),
    ("not a dict (string)", "CONSTRUCT_BUILDING", "JSON object"),
    ("not a dict (None)", None, "JSON object"),
    ("missing move", {"moveData": {"cardIndex": 3}}, '"move"'),
    ("move not a string", {"move": 3, "moveData": {"cardIndex": 3}}, '"move"'),
    ("missing moveData", {"move": "CONSTRUCT_BUILDING"}, "moveData"),
    ("moveData not a dict", {"move": "DISCARD", "moveData": [3]}, "moveData"),
    ("unknown move", {"move": "BUILD", "moveData": {"cardIndex": 3}}, "unknown move 'BUILD'"),
    ("lower-case move", {"move": "discard", "moveData": {"cardIndex": 3}}, "unknown move"),
    ("unknown wonder", {"move": "SELECT_WONDER", "moveData": {"wonder": "THE_COLOSUS"}},
     "unknown wonder 'THE_COLOSUS'"),
    ("unknown wonder in CONSTRUCT_WONDER",
     {"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": 1, "wonder": "STONEHENGE"}},
     "unknown wonder"),
    ("card name as wonder", {"move": "SELECT_WONDER", "moveData": {"wonder": "QUARRY"}},
     "unknown wonder"),
    ("unknown card", {"move": "DESTROY_CARD", "moveData": {"cardName": "QUARY"}},
     "unknown card 'QUARY'"),
    ("unknown card (from discard)",
     {"move": "CONSTRUCT_FROM_DISCARD", "moveData": {"cardName": "AGE_ONE_BACK"}},
     "unknown card"),
    ("unknown token", {"move": "CHOOSE_PROGRESS_TOKEN", "moveData": {"progressToken": "MAGIC"}},
     "unknown progress token 'MAGIC'"),
    ("unknown token (library)",
     {"move": "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD", "moveData": {"progressToken": "law"}},
     "unknown progress token"),
    ("cardIndex as string", {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": "3"}},
     "cardIndex must be an integer"),
    ("cardIndex as bool", {"move": "DISCARD", "moveData": {"cardIndex": True}},
     "cardIndex must be an integer"),
    ("cardIndex as float", {"move": "DISCARD", "moveData": {"cardIndex": 3.0}},
     "cardIndex must be an integer"),
    ("cardIndex as null", {"move": "DISCARD", "moveData": {"cardIndex": None}},
     "cardIndex must be an integer"),
    ("cardIndex 20", {"move": "DISCARD", "moveData": {"cardIndex": 20}}, "0-19"),
    ("cardIndex -1", {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": -1}}, "0-19"),
    ("cardIndex out of range (wonder)",
     {"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": 99, "wonder": "PIRAEUS"}}, "0-19"),
    ("missing cardIndex", {"move": "CONSTRUCT_WONDER", "moveData": {"wonder": "PIRAEUS"}},
     '"cardIndex"'),
    ("missing wonder", {"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": 2}}, '"wonder"'),
    ("empty moveData", {"move": "SELECT_WONDER", "moveData": {}}, '"wonder"'),
    ("extra moveData field",
     {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 3, "wonder": "PIRAEUS"}},
     "unexpected field(s) ['wonder']"),
    ("wrong field name", {"move": "DESTROY_CARD", "moveData": {"card": "QUARRY"}},
     "unexpected field"),
    ("wonder not a string", {"move": "SELECT_WONDER", "moveData": {"wonder": 3}},
     "must be a string"),
    ("playerNumber 3", {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": 3}},
     "1 or 2"),
    ("playerNumber as string",
     {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": "1"}}, "integer"),
    ("playerNumber as bool",
     {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": True}}, "integer"),
]


@pytest.mark.parametrize("obj,needle", [(o, n) for _, o, n in MALFORMED],
                         ids=[name for name, _, _ in MALFORMED])
def test_malformed_moves_raise_invalid_move_error(obj: Any, needle: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.from_json(obj)
    assert not isinstance(info.value, IllegalMoveError)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)
    # The schema rejects it too, except 3.0: JSON Schema counts 3.0 as an integer, so only the
    # parser can refuse it.
    if obj != {"move": "DISCARD", "moveData": {"cardIndex": 3.0}}:
        assert move_schema_error(obj) is not None


def test_error_classes_are_distinct() -> None:
    classes = [InvalidMoveError, IllegalMoveError, InvalidStateError]
    for a in classes:
        assert issubclass(a, DuelError) and issubclass(a, ValueError)
        for b in classes:
            if a is not b:
                assert not issubclass(a, b), f"{a.__name__} is a {b.__name__}"


# ---------------------------------------------------------------------------- illegal
def illegal(state: GameState, obj: dict[str, Any]) -> str:
    """Apply a well-formed move that must be illegal; return the message. The state is kept."""
    before = seat_view(state), state.ply, [p.coins for p in state.players], state.pyramid[:]
    move = Move.from_json(obj)
    assert move not in state.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        state.apply(move)
    assert not isinstance(info.value, InvalidMoveError)
    after = seat_view(state), state.ply, [p.coins for p in state.players], state.pyramid[:]
    assert after == before, "a refused move changed the state"
    msg = str(info.value)
    assert msg and "\n" not in msg
    return msg


def test_covered_card_names_the_covering_slots() -> None:
    state = first_play_state()
    # Age I: slot 0 lies under slots 2 and 3, slot 9 under 14 and 15.
    for slot, kind in ((0, "CONSTRUCT_BUILDING"), (9, "DISCARD"), (5, "CONSTRUCT_BUILDING")):
        msg = illegal(state, {"move": kind, "moveData": {"cardIndex": slot}})
        covering = list(COVERED_BY[0][slot])
        assert f"card {slot} is covered by slot(s) {covering}" in msg
        assert "active slots: [14, 15, 16, 17, 18, 19]" in msg
    wonder = WONDER_NAMES[state.players[0].wonders[0]]
    msg = illegal(state, {"move": "CONSTRUCT_WONDER",
                          "moveData": {"cardIndex": 2, "wonder": wonder}})
    assert "card 2 is covered by slot(s) [5, 6]" in msg


def test_covering_slots_shrink_as_cards_are_taken() -> None:
    state = first_play_state()
    state = state.apply(Move("DISCARD", card_index=14))
    state = state.apply(Move("DISCARD", card_index=16))
    msg = illegal(state, {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 10}})
    assert "card 10 is covered by slot(s) [15]" in msg


def test_empty_slot_is_illegal() -> None:
    state = first_play_state().apply(Move("DISCARD", card_index=17))
    msg = illegal(state, {"move": "DISCARD", "moveData": {"cardIndex": 17}})
    assert "slot 17 is empty" in msg


def test_unaffordable_card_says_coins() -> None:
    def pred(s: GameState) -> bool:
        if s.step_name != "PLAY_CARD":
            return False
        return any(s.card_price(s.current, s.pyramid[slot]) > s.players[s.current].coins
                   for slot in s.accessible_slots())

    state = find_state(pred)
    seat = state.current
    slot = next(sl for sl in state.accessible_slots()
                if state.card_price(seat, state.pyramid[sl]) > state.players[seat].coins)
    card = CARDS[state.pyramid[slot]].name
    price = state.card_price(seat, state.pyramid[slot])
    msg = illegal(state, {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": slot}})
    assert msg == f"{card} costs {price} coins and player {seat + 1} has " \
                  f"{state.players[seat].coins}"
    # Discarding the same card is legal.
    state.apply(Move("DISCARD", card_index=slot))


def test_unaffordable_wonder_says_coins() -> None:
    def pred(s: GameState) -> bool:
        if s.step_name != "PLAY_CARD" or s.wonders_built >= 7:
            return False
        p = s.players[s.current]
        return any(not p.wonder_age[i] and s.wonder_price(s.current, w) > p.coins
                   for i, w in enumerate(p.wonders))

    state = find_state(pred)
    p = state.players[state.current]
    w = next(w for i, w in enumerate(p.wonders)
             if not p.wonder_age[i] and state.wonder_price(state.current, w) > p.coins)
    slot = state.accessible_slots()[0]
    msg = illegal(state, {"move": "CONSTRUCT_WONDER",
                          "moveData": {"cardIndex": slot, "wonder": WONDER_NAMES[w]}})
    assert msg == (f"{WONDER_NAMES[w]} costs {state.wonder_price(state.current, w)} coins and "
                   f"player {state.current_player} has {p.coins}")


def test_someone_elses_wonder_is_illegal() -> None:
    state = first_play_state()
    theirs = WONDER_NAMES[state.players[1].wonders[0]]
    msg = illegal(state, {"move": "CONSTRUCT_WONDER",
                          "moveData": {"cardIndex": 14, "wonder": theirs}})
    assert f"{theirs} is not one of player 1's wonders" in msg


def test_built_wonder_is_illegal_again() -> None:
    def pred(s: GameState) -> bool:
        return s.step_name == "PLAY_CARD" and any(s.players[s.current].wonder_age)

    state = find_state(pred)
    p = state.players[state.current]
    w = next(w for i, w in enumerate(p.wonders) if p.wonder_age[i])
    msg = illegal(state, {"move": "CONSTRUCT_WONDER",
                          "moveData": {"cardIndex": state.accessible_slots()[0],
                                       "wonder": WONDER_NAMES[w]}})
    assert "already built" in msg


def test_wrong_step_names_the_expected_move() -> None:
    draft = new_game(0)
    msg = illegal(draft, {"move": "DISCARD", "moveData": {"cardIndex": 14}})
    assert "DISCARD is not a move of step WONDER_SELECTION" in msg
    assert "expected SELECT_WONDER" in msg

    play = first_play_state()
    msg = illegal(play, {"move": "SELECT_WONDER", "moveData": {"wonder": "THE_PYRAMIDS"}})
    assert "expected CONSTRUCT_BUILDING or DISCARD or CONSTRUCT_WONDER" in msg
    msg = illegal(play, {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": 1}})
    assert "expected CONSTRUCT_BUILDING" in msg

    start = find_state(lambda s: s.step_name == "CHOOSE_STARTING_PLAYER")
    msg = illegal(start, {"move": "DISCARD", "moveData": {"cardIndex": 18}})
    assert "expected CHOOSE_STARTING_PLAYER" in msg

    destroy = find_state(lambda s: s.step_name in ("DESTROY_BROWN", "DESTROY_GREY"))
    msg = illegal(destroy, {"move": "CONSTRUCT_FROM_DISCARD",
                            "moveData": {"cardName": "QUARRY"}})
    assert "expected DESTROY_CARD" in msg


def test_unavailable_wonder_in_draft() -> None:
    state = new_game(0)
    out = WONDER_NAMES[state.deal.wonder_draft[5]]  # round 2: not on the table yet
    msg = illegal(state, {"move": "SELECT_WONDER", "moveData": {"wonder": out}})
    assert f"{out} is not in wondersAvailable" in msg


def test_destroy_and_discard_moves_name_the_valid_choices() -> None:
    destroy = find_state(lambda s: s.step_name in ("DESTROY_BROWN", "DESTROY_GREY"))
    target = destroy.players[1 - destroy.current]
    colour = "brown" if destroy.step_name == "DESTROY_BROWN" else "grey"
    wrong = next(CARD_NAMES[c] for c in range(len(CARD_NAMES)) if c not in target.cards)
    msg = illegal(destroy, {"move": "DESTROY_CARD", "moveData": {"cardName": wrong}})
    assert f"{wrong} is not a {colour} card of player {2 - destroy.current}" in msg
    assert "valid: [" in msg

    mausoleum = find_state(lambda s: s.step_name == "CONSTRUCT_FROM_DISCARD")
    missing = next(n for i, n in enumerate(CARD_NAMES) if i not in mausoleum.discard)
    msg = illegal(mausoleum, {"move": "CONSTRUCT_FROM_DISCARD", "moveData": {"cardName": missing}})
    assert f"{missing} is not in discardedCards" in msg

    library = find_state(lambda s: s.step_name == "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD")
    token = next(TOKEN_NAMES[t] for t in range(10) if t not in library.library)
    msg = illegal(library, {"move": "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD",
                            "moveData": {"progressToken": token}})
    assert f"{token} is not in tokensFromUnavailable" in msg


def test_token_not_on_board_is_illegal() -> None:
    state = find_state(lambda s: s.step_name == "CHOOSE_PROGRESS_TOKEN")
    token = next(TOKEN_NAMES[t] for t in range(10) if t not in state.tokens_board)
    msg = illegal(state, {"move": "CHOOSE_PROGRESS_TOKEN", "moveData": {"progressToken": token}})
    assert f"{token} is not in tokensAvailable" in msg


def test_no_move_after_the_game() -> None:
    *_, final = states(0)
    assert final.is_terminal()
    msg = illegal(final, {"move": "DISCARD", "moveData": {"cardIndex": 0}})
    assert "game is over" in msg


def test_malformed_and_illegal_are_told_apart() -> None:
    """The same mistake can be malformed (unknown name) or illegal (a real but absent card)."""
    state = find_state(lambda s: s.step_name in ("DESTROY_BROWN", "DESTROY_GREY"))
    with pytest.raises(InvalidMoveError):
        Move.from_json({"move": "DESTROY_CARD", "moveData": {"cardName": "NOT_A_CARD"}})
    with pytest.raises(IllegalMoveError, match=re.escape("is not a")):
        state.apply(Move.from_json({"move": "DESTROY_CARD", "moveData": {"cardName": "PALACE"}}))
