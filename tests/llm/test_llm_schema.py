"""The structured-output schema the providers get is the engine's move model in their shape, and
the player checks a reply with the engine's parser alone (SCHEMA when it refuses)."""

from __future__ import annotations

import json
import random

import jsonschema
from helpers.llm_seat import play_card_position
from helpers.scripted import ScriptedProvider

from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.schema import structured_schema
from duel.engine import new_game
from duel.engine.moves import MOVE_DATA, MOVE_FIELDS, MOVE_KINDS
from duel.prompts import get_variant


def test_the_structured_schema_is_the_move_model_without_bounds() -> None:
    s = structured_schema()
    assert s["properties"]["move"]["enum"] == list(MOVE_KINDS)
    assert s["required"] == ["move", "moveData"] and s["additionalProperties"] is False
    shapes = s["properties"]["moveData"]["anyOf"]
    assert [tuple(shape["required"]) for shape in shapes] == list(dict.fromkeys(
        MOVE_FIELDS.values()))
    for shape in shapes:
        assert shape["additionalProperties"] is False
        for key, prop in shape["properties"].items():
            model = MOVE_DATA[key].schema()
            assert prop == {k: v for k, v in model.items() if k not in ("minimum", "maximum")}


def test_every_legal_move_fits_the_structured_schema() -> None:
    validator = jsonschema.Draft202012Validator(structured_schema())
    state = new_game(3)
    first = state.legal_moves()[0].to_json()
    assert not validator.is_valid({**first, "why": "x"})
    assert not validator.is_valid({**first, "moveData": {**first["moveData"], "why": "x"}})
    rng = random.Random(3)
    kinds = set()
    while not state.is_terminal():
        for move in state.legal_moves():
            assert validator.is_valid(move.to_json()), move
            kinds.add(move.kind)
        state = state.apply(rng.choice(state.legal_moves()))
    assert {"SELECT_WONDER", "CONSTRUCT_BUILDING", "CONSTRUCT_WONDER"} <= kinds


def test_a_reply_with_a_field_beside_the_move_is_a_schema_failure() -> None:
    view, legal = play_card_position()
    good = json.dumps(legal[0].to_json())
    extra = json.dumps({**legal[0].to_json(), "reasoning": "cheap"})
    agent = LLMAgent(ScriptedProvider([extra, good]), get_variant("baseline"), "llm:scripted")
    d = agent.choose(view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert [c["category"] for c in calls] == ["SCHEMA", "OK"] and d.move == legal[0]
    assert calls[0]["error"] == ("your move is malformed: a move has unexpected field(s) "
                                 "['reasoning']; expected ['move', 'moveData']")
