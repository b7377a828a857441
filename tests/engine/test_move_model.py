"""The one move model (duel.engine.moves): the parser and the published move schema are built
from the same field table, so they accept and refuse the same values."""

from __future__ import annotations

from typing import Any

import pytest

from duel.engine import InvalidMoveError, Move
from duel.engine.moves import MOVE_DATA, MOVE_FIELDS, MOVE_KINDS, move_data_schema
from duel.schemas import move_schema_error, schema


def example(kind: str, **data: Any) -> dict[str, Any]:
    """A well-formed move of `kind` (the first allowed value of each field), then `data`."""
    base = {key: MOVE_DATA[key].values[0] for key in MOVE_FIELDS[kind]}
    return {"move": kind, "moveData": {**base, **data}}


def test_the_published_schema_is_the_model() -> None:
    branches = schema("move")["anyOf"]
    assert [b["properties"]["move"]["const"] for b in branches] == list(MOVE_KINDS)
    for branch in branches:
        kind = branch["properties"]["move"]["const"]
        assert branch["properties"]["moveData"] == move_data_schema(kind)
        assert branch["additionalProperties"] is False


@pytest.mark.parametrize("kind", MOVE_KINDS)
def test_every_allowed_value_parses_and_validates(kind: str) -> None:
    for key in MOVE_FIELDS[kind]:
        for value in MOVE_DATA[key].values:
            obj = example(kind, **{key: value})
            move = Move.from_json(obj)
            assert getattr(move, MOVE_DATA[key].attr) == value
            assert move.to_json() == obj
            assert move_schema_error(obj) is None


OUTSIDE: dict[str, list[Any]] = {
    "cardIndex": [-1, 20, "3", True, None],
    "wonder": ["QUARRY", "the_pyramids", 3],
    "progressToken": ["MAGIC", "law", 1],
    "cardName": ["AGE_ONE_BACK", "PYRAMIDS", 0],
    "playerNumber": [0, 3, "1", False],
}


@pytest.mark.parametrize("kind", MOVE_KINDS)
def test_values_outside_the_model_are_refused_by_both(kind: str) -> None:
    for key in MOVE_FIELDS[kind]:
        for value in OUTSIDE[key]:
            obj = example(kind, **{key: value})
            with pytest.raises(InvalidMoveError) as info:
                Move.from_json(obj)
            assert str(value) in str(info.value)  # the message shows the refused value
            assert move_schema_error(obj) is not None, obj


def test_a_move_has_only_move_and_move_data() -> None:
    obj = {**example("DISCARD"), "reasoning": "it is cheap"}
    with pytest.raises(InvalidMoveError,
                       match=r"unexpected field\(s\) \['reasoning'\]; expected \['move', "):
        Move.from_json(obj)
    assert move_schema_error(obj) is not None


def test_a_misspelt_key_names_the_key_it_should_have_been() -> None:
    """Unexpected and missing at once: the parser says both, in the schema validator's words."""
    obj = {"move": "DISCARD", "moveData": {"slot": 3}}
    with pytest.raises(InvalidMoveError) as info:
        Move.from_json(obj)
    assert str(info.value) == ("DISCARD moveData has unexpected field(s) ['slot']; "
                               "'cardIndex' is a required property")
    assert "'cardIndex' is a required property" in (move_schema_error(obj) or "")


def test_move_kinds_are_one_str_enum_and_a_move_always_holds_a_member() -> None:
    """MoveKind replaces the loose string constants: its members are the prompt's names in the
    steps' order, each the string itself; a move built from a plain name, parsed, copied or
    pickled holds the member, so the engine may compare kinds by identity."""
    import copy
    import json
    import pickle

    from duel.engine import MoveKind

    assert [k.value for k in MoveKind] == list(MOVE_FIELDS) == list(MOVE_KINDS)
    assert all(k == k.name and str(k) == k.name and f"{k}" == k.name for k in MoveKind)
    plain = Move("DISCARD", card_index=3)
    parsed = Move.from_json({"move": "DISCARD", "moveData": {"cardIndex": 3}})
    for move in (plain, parsed, copy.copy(plain), pickle.loads(pickle.dumps(plain))):
        assert move.kind is MoveKind.DISCARD
        assert move == Move(MoveKind.DISCARD, card_index=3)
        assert hash(move) == hash(Move(MoveKind.DISCARD, card_index=3))
    # the JSON of a move is what it was with plain strings
    assert json.dumps(plain.to_json()) == '{"move": "DISCARD", "moveData": {"cardIndex": 3}}'
    assert str(Move("CHOOSE_STARTING_PLAYER", player_number=2)) == "CHOOSE_STARTING_PLAYER 2"
    with pytest.raises(InvalidMoveError, match="unknown move 'PASS'; valid moves: SELECT_WONDER"):
        Move("PASS")


def test_the_json_of_every_move_of_a_game_is_its_names_as_plain_strings() -> None:
    """Every legal move of seeded random games serialises exactly as the same move written
    with plain strings (the transcript's bytes do not change with the enum)."""
    import json
    import random

    from duel.engine import new_game

    for seed in range(3):
        state, rng = new_game(seed), random.Random(seed)
        while state.result() is None:
            for move in state.legal_moves():
                data = {key: getattr(move, MOVE_DATA[key].attr) for key in MOVE_FIELDS[move.kind]}
                assert json.dumps(move.to_json()) == json.dumps(
                    {"move": move.kind.value, "moveData": data})
                assert type(json.loads(json.dumps(move.to_json()))["move"]) is str
            state = state.apply(rng.choice(state.legal_moves()))
