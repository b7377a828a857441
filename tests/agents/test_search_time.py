"""A seat's search times (duel.agents.search_time): what counts as searched, the mean's interval,
the JSON round trip and its errors, and the tournament's report of both sides' times."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from duel.agents.search_time import SearchTime, checked_search_times
from duel.cli import main
from duel.errors import InvalidStateError
from duel.records import GameSummary


def test_only_searched_moves_count() -> None:
    t = SearchTime.of_records([(1.0, {"iterations": 100}), (0.001, {"iterations": 0}),
                               (0.002, {"rule": "win now", "iterations": 0}), (0.5, {}),
                               (1.5, {"iterations": 300})])
    assert (t.moves, t.seconds, t.squares, t.longest, t.iterations) == (2, 2.5, 3.25, 1.5, 400)
    assert t.mean() == 1.25
    lo, hi = t.interval()
    half = 1.96 * math.sqrt(((3.25 - 2 * 1.25 ** 2) / 1) / 2)
    assert lo == pytest.approx(1.25 - half) and hi == pytest.approx(1.25 + half)
    assert "2 searched moves, 1.2500 s a move" in t.line() and "200 iterations a move" in t.line()


def test_combine_and_round_trip() -> None:
    a = SearchTime.of_records([(1.0, {"iterations": 10})])
    b = SearchTime.of_records([(2.0, {"iterations": 30})])
    both = SearchTime.combine([a, None, b])
    assert both == SearchTime(2, 3.0, 5.0, 2.0, 40)
    assert SearchTime.from_json(json.loads(json.dumps(both.to_json()))) == both
    assert SearchTime.combine([]).moves == 0 and SearchTime().interval() == (0.0, 0.0)


@pytest.mark.parametrize(("obj", "message"), [
    ([], "must be a JSON object"),
    ({"moves": -1, "seconds": 0, "squares": 0, "longest": 0, "iterations": 0}, "moves"),
    ({"moves": 1, "seconds": "1", "squares": 0, "longest": 0, "iterations": 0}, "seconds"),
    ({"moves": 1.5, "seconds": 1, "squares": 1, "longest": 1, "iterations": 0}, "moves"),
    ({"moves": 1, "seconds": 1, "squares": 1, "longest": 1, "iterations": True}, "iterations"),
])
def test_a_bad_search_time_is_named(obj: object, message: str) -> None:
    with pytest.raises(InvalidStateError, match=message):
        SearchTime.from_json(obj)


def test_a_game_record_with_a_bad_search_field_is_refused() -> None:
    with pytest.raises(InvalidStateError, match='map "1" and "2"'):
        checked_search_times({"3": {}})
    line = {"seed": 0, "player1": "a", "player2": "b", "winner": 1, "victory": "civilian",
            "scores": [50, 40], "moves": 60, "seconds": 1.0, "search": {"1": []}}
    with pytest.raises(InvalidStateError, match="search time"):
        GameSummary.from_json(line)


def test_a_tournament_reports_each_searching_side_s_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    assert main(["tournament", "--p1", "mcts:iterations=30", "--p2", "rule", "--games", "2",
                 "--seed", "3", "--out", str(out), "--no-progress"]) == 0
    report = capsys.readouterr().out
    assert "mcts:iterations=30's searches: " in report
    assert "30 iterations a move (mean)" in report
    assert "rule's searches" not in report  # the rule agent does not search
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    for g in games:
        mcts = "1" if g["player1"].startswith("mcts") else "2"
        assert list(g["search"]) == [mcts]
        t = SearchTime.from_json(g["search"][mcts])
        assert t.moves > 10 and t.iterations == 30 * t.moves
        assert GameSummary.from_json(g).search_time is not None
        assert GameSummary.from_json(g).to_json()["search"] == g["search"]


def test_a_verified_transcript_gives_the_game_s_search_times(tmp_path: Path) -> None:
    """The one summary: a transcript read back gives the search times the game itself gave."""
    from duel.match import play_match
    from duel.transcripts import read, verified_summary

    result = play_match("rule", "mcts:iterations=20", seed=2, transcript=tmp_path / "g.jsonl")
    summary = verified_summary(read(tmp_path / "g.jsonl"))
    assert summary.search == result.summary().search
    assert summary.search is not None and list(summary.search) == ["2"]
