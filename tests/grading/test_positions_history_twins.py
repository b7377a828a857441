"""Twin games for position grading's history: two recorded games on deals that differ only in
cards nobody sees before Age II (Age II and III dealt anew, the box's order). A ``history=``
variant's seat, asked at a position of either game, is told byte-identical pasts while its
seat's views of the two games are the same, and different pasts once Age II has shown them: the
past comes from the seat's own views, never from the deal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.recorded_games import record_game
from helpers.seat_tables import twin_deal

from duel.analysis.sidecar import file_hash
from duel.engine import GameState, Perspective, new_game
from duel.grading.positions.past import Pasts
from duel.grading.positions.suite import Position
from duel.records import mover_view_hash
from duel.transcripts import initial_state, read, replay


class Listener:
    """A seat that keeps what it is told, as the LLM seat's memory is told it."""

    observing = True

    def __init__(self) -> None:
        self.told: list[str] = []

    def observe(self, view: dict[str, Any], move: Any, after: dict[str, Any]) -> None:
        self.told.append(json.dumps([view, move.to_json(), after], sort_keys=True))


def _states(path: Path) -> list[GameState]:
    """The state before each decision of the game at `path` (index ply - 1)."""
    t = read(path)
    return [initial_state(t), *(step.after for step in replay(t))][:-1]


def _position(path: Path, ply: int, state: GameState) -> Position:
    return Position(id=mover_view_hash(state),
                    source={"transcript": str(path), "sha256": file_hash(path), "ply": ply,
                            "player": state.current + 1},
                    step="", age=state.age, kind="", view={}, legal=(), values=(), analysis={})


def _told(pasts: Pasts, position: Position) -> list[str]:
    seat = Listener()
    pasts.tell(seat, position)
    return seat.told


def test_twin_games_tell_a_position_s_seat_the_same_past_until_age_ii_shows(
        tmp_path: Path) -> None:
    deal = new_game(21).deal
    a = record_game(tmp_path / "a.jsonl", "rule", "rule", seed=21, deal=deal, code="TWINGAME")
    b = record_game(tmp_path / "b.jsonl", "rule", "rule", seed=21, deal=twin_deal(deal),
                    code="TWINGAME")
    pasts = Pasts(tmp_path / "suite.json")
    same = differ = 0
    states_a, states_b = _states(a), _states(b)
    # the games may differ in length once they have gone their own ways
    for ply, (sa, sb) in enumerate(zip(states_a, states_b, strict=False), start=1):
        player = sa.current + 1
        seen = Perspective.of_player(player)
        # the seat's views of both games up to here: the same, or Age II has shown a difference
        alike = all(seen.view(x) == seen.view(y)
                    for x, y in zip(states_a[:ply], states_b[:ply], strict=True))
        if not alike and sa.current != sb.current:
            break  # the games have gone their own ways
        pa, pb = _position(a, ply, sa), _position(b, ply, sb)
        told_a, told_b = _told(pasts, pa), _told(pasts, pb)
        assert len(told_a) == len(told_b) == ply - 1
        if alike:
            assert pa.id == pb.id
            assert told_a == told_b, f"ply {ply}: the pasts differ while the deals look alike"
            same += 1
        else:
            assert told_a != told_b  # the test can see a difference once Age II shows
            differ += 1
    assert same >= 20 and differ >= 1, (same, differ)
