"""Where clients are known to slip the tool set reads what they meant, and says so in the tool
record; anything else is refused with the reason and the shape wanted, and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.seat_tables import tools_at

from duel.agents.tools import SeatTools
from duel.engine import new_game
from duel.errors import DuelError


def opening() -> tuple[SeatTools, dict[str, Any]]:
    tools = tools_at(new_game(5))
    move = tools.call("legal_moves", {})["moves"][0]
    return tools, {"move": move["move"], "moveData": move["moveData"]}


def sent_as() -> list[tuple[str, Any, list[str]]]:
    _, m = opening()
    data = json.dumps(m["moveData"])
    return [
        ("object", m, []),
        ("moveData a JSON string", {**m, "moveData": data},
         ["moveData: parsed from a JSON string"]),
        ("whole move in move", {"move": m},
         ['move: the whole {"move", "moveData"} object, taken apart']),
        ("whole move as a JSON string", {"move": json.dumps(m)},
         ['move: the whole {"move", "moveData"} object, taken apart']),
        ("whole move, its moveData a string", {"move": {**m, "moveData": data}},
         ['move: the whole {"move", "moveData"} object, taken apart',
          "moveData: parsed from a JSON string"]),
        ("strict mode's nulls", {**m, "moveData": {**m["moveData"], "cardIndex": None,
                                                   "cardName": None}},
         ["moveData: null fields taken as left out"]),
    ]


@pytest.mark.parametrize(("how", "arguments", "repairs"), sent_as(), ids=[s[0] for s in sent_as()])
def test_a_move_sent_as_clients_send_it_is_the_same_move(how: str, arguments: Any,
                                                         repairs: list[str]) -> None:
    tools, m = opening()
    sim = tools.call("simulate", arguments)
    assert sim["move"] == m, how
    assert tools.calls[-1].repairs == (repairs or None)
    answer = tools.call("make_move", arguments)
    assert answer["played"]
    # the look-ups before the move, repairs included, are the move's details
    calls = tools.table.details[-1]["tool_calls"]  # type: ignore[attr-defined]
    assert calls[-1]["tool"] == "simulate" and calls[-1].get("repairs") == (repairs or None)


def test_scalars_typed_as_strings_are_read_by_the_schema() -> None:
    tools, _ = opening()
    assert "unavailable" in tools.call("legal_moves", {"why_not": "true"})
    assert tools.calls[-1].repairs == ["why_not: read as boolean from a string"]
    assert "unavailable" not in tools.call("legal_moves", {"why_not": None})


@pytest.mark.parametrize(("arguments", "words"), [
    ({"move": "SELECT_WONDER", "moveData": "{cardIndex: 3}"},
     'SELECT_WONDER needs a "moveData" object; expected {"move": "SELECT_WONDER", '
     '"moveData": {"wonder": <a wonder name>}}'),
    ({"move": "SELECT_WONDER", "moveData": "[1]"}, 'needs a "moveData" object'),
    ({"move": "SELECT_WONDER", "moveData": {"cardIndex": "3"}}, 'unexpected field'),
    ({"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": 2}},
     '"wonder"; expected {"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": '
     '<integer 0-19>, "wonder": <a wonder name>}}'),
    ({"move": {"move": "SELECT_WONDER", "x": 1}}, "needs argument(s) ['moveData']"),
    ({"move": {"move": "SELECT_WONDER"}, "moveData": {"wonder": "THE_SPHINX"}},
     'a move needs a string "move" field; expected {"move": "<a move kind>"'),
    ({"move": "BUILD", "moveData": {}}, "unknown move 'BUILD'"),
    ({"move": "{not json", "moveData": {}}, "unknown move"),
])
def test_anything_else_is_refused_with_the_shape_wanted(arguments: Any, words: str) -> None:
    tools, _ = opening()
    before = tools.call("get_state", {})
    with pytest.raises(DuelError) as caught:
        tools.call("make_move", arguments)
    assert words in str(caught.value)
    assert tools.call("get_state", {}) == before
