"""Twin games: two complete positions that a seat sees alike, whose hidden cards differ (the
face-down slots, the later Ages' decks, the box's order, the wonders not yet revealed). Every
tool answers both byte for byte alike, to the seat to move and to the other seat: no answer
depends on a card the seat has not seen."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.seat_tables import StateTable, positions, twins

from duel.agents.tools import SeatTools
from duel.engine import Perspective, Seat
from duel.engine.data import BACK_NAMES, CARD_NAMES, TOKEN_NAMES, WONDER_NAMES
from duel.errors import DuelError

POSITIONS = positions(range(4, 7), every=4)
NAMES = (*CARD_NAMES, *WONDER_NAMES, *TOKEN_NAMES, *BACK_NAMES)


def answers(tools: SeatTools) -> dict[str, str]:
    """Every reading tool's answer (or refusal), by call."""
    out: dict[str, str] = {}

    def ask(tool: str, arguments: dict[str, Any]) -> Any:
        key = f"{tool} {json.dumps(arguments, sort_keys=True)}"
        try:
            answer = tools.call(tool, arguments)
        except DuelError as exc:
            out[key] = f"error {type(exc).__name__}: {exc}"
            return None
        out[key] = json.dumps(answer, sort_keys=True)
        return answer

    ask("get_state", {})
    legal = ask("legal_moves", {"why_not": True})
    for name in NAMES:
        ask("explain", {"name": name})
    for m in legal["moves"] if legal else []:
        ask("simulate", {"move": m["move"], "moveData": m["moveData"]})
    return out


@pytest.mark.parametrize("state", POSITIONS, ids=lambda s: f"ply{s.ply}")
def test_every_tool_answers_twins_alike(state: Any) -> None:
    a, b = twins(state)
    assert a.deal != b.deal
    for seat in (Seat.of_index(state.current), Seat.of_index(1 - state.current)):
        views = [Perspective(seat).view(s) for s in (a, b)]
        assert views[0] == views[1]
        first, second = (answers(SeatTools(StateTable(s, seat))) for s in (a, b))
        assert first.keys() == second.keys()
        for key in first:
            assert first[key] == second[key], f"{seat}: {key} differs between twins"


def test_make_move_answers_twins_alike_while_they_look_alike() -> None:
    """Each legal move played in both twins: when the seat still sees them alike afterwards
    (the move turned no hidden card up), make_move's answers are alike too."""
    compared = 0
    for state in POSITIONS[::2]:
        a, b = twins(state)
        seat = Seat.of_index(state.current)
        for m in SeatTools(StateTable(a, seat)).call("legal_moves", {})["moves"]:
            move = {"move": m["move"], "moveData": m["moveData"]}
            tables = [StateTable(s, seat) for s in (a, b)]
            played = [json.dumps(SeatTools(t).call("make_move", move), sort_keys=True)
                      for t in tables]
            if tables[0].status().view == tables[1].status().view:
                assert played[0] == played[1], f"ply {state.ply}: {move}"
                compared += 1
    assert compared >= 20
