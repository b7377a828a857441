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
