"""The analyser's figures on tiny budgets: schedules, the forecasts (the very values `duel
analyse` gives), ordering, stability, efficiency, and each `duel bench` entry."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from duel.analysis.game import analyse_transcript
from duel.analysis.search import Settings
from duel.bench.analyser_experiments import (
    Game,
    analysed_games,
    calibration_forecasts,
    efficiency,
    mixed,
    ordering,
    round_robin,
    sampled_plies,
    seat_swapped,
    stability,
)
from duel.cli import main
from duel.errors import UsageError
from duel.transcripts import read

TINY = Settings(iterations=20)


def test_schedules() -> None:
    games = round_robin(["a", "b", "c"], 2, 10)
    assert games[:3] == [Game(10, "a", "b"), Game(10, "a", "c"), Game(10, "b", "c")]
    assert games[3:] == [Game(11, "b", "a"), Game(11, "c", "a"), Game(11, "c", "b")]
    assert seat_swapped("a", "b", 2, 5) == [Game(5, "a", "b"), Game(5, "b", "a"),
                                           Game(6, "a", "b"), Game(6, "b", "a")]
    assert [(g.seed, g.p1) for g in mixed([("a", "b"), ("c", "d")], 5, 0)] == [
        (0, "a"), (1, "c"), (2, "b"), (3, "d"), (4, "a")]
    assert Game(3, "mcts:iterations=200,c=0.7", "rule").file_name == \
        "3-mcts_iterations=200_c=0.7_vs_rule.jsonl"
    with pytest.raises(UsageError, match="two different players"):
        round_robin(["rule", "rule"], 1, 0)


def test_sampled_plies_spread_over_the_game() -> None:
    plies = list(range(1, 81))
    for seed in range(20):
        chosen = sampled_plies(plies, 5, random.Random(seed))
        assert len(chosen) == 5 and chosen == sorted(set(chosen))
        assert [(p - 1) // 16 for p in chosen] == [0, 1, 2, 3, 4]  # one in each fifth
    assert sampled_plies([3, 4], 5, random.Random(0)) == [3, 4]


def test_forecasts_are_the_analysers_values(tmp_path: Path) -> None:
    forecasts = calibration_forecasts(2, 3, TINY, 1, seed=7, folder=tmp_path,
                                      pairings=[("random", "rule")])
    assert len(forecasts) == 6 and {f.game for f in forecasts} == {0, 1}
    path = tmp_path / Game(7, "random", "rule").file_name
    analysis = analyse_transcript(path, (1, 2), TINY, jobs=1)
    by_ply = {d.ply: d for d in analysis.decisions}
    winner = (read(path).footer or {})["winner"]
    for f in (f for f in forecasts if f.game == 0):
        d = by_ply[f.ply]  # a real decision, valued as `duel analyse` values it
        assert (f.player, f.age, f.predicted) == (d.player, d.age, d.played.value)
        assert f.outcome == (1.0 if winner == f.player else 0.5 if winner == "draw" else 0.0)
    # Kept beside the transcript and read back with the same settings, searched again with
    # other ones.
    cache = path.with_name(path.stem + ".forecasts.json")
    saved = json.loads(cache.read_text())
    saved["forecasts"][0]["predicted"] = 0.123
    cache.write_text(json.dumps(saved))
    again = calibration_forecasts(2, 3, TINY, 1, seed=7, folder=tmp_path,
                                  pairings=[("random", "rule")])
    assert again[0].predicted == 0.123 and again[1:] == forecasts[1:]
    other = calibration_forecasts(2, 3, Settings(iterations=21), 1, seed=7, folder=tmp_path,
                                  pairings=[("random", "rule")])
    assert other[0].predicted != 0.123 and json.loads(cache.read_text())["key"]["settings"][
        "iterations"] == 21


def test_ordering_and_stability(tmp_path: Path) -> None:
    result = ordering(["rule", "random"], 2, 0, TINY, jobs=2, folder=tmp_path, resamples=200)
    games = round_robin(["rule", "random"], 2, 0)
    analyses = analysed_games(games, tmp_path, TINY, 1)  # read back from the sidecars
    assert all(a.reused for a in analyses)
    decisions = {spec: 0 for spec in ("rule", "random")}
    for a, g in zip(analyses, games, strict=True):
        for d in a.decisions:
            decisions[g.p1 if d.player == 1 else g.p2] += 1
    assert [(p.spec, p.games, p.decisions) for p in result.players] == [
        ("rule", 2, decisions["rule"]), ("random", 2, decisions["random"])]
    for p in result.players:
        assert p.ci[0] <= p.mean_loss <= p.ci[1] and 0 <= p.blunder_rate <= 1
    gap = result.gaps[0]
    assert gap.diff == pytest.approx(result.players[1].mean_loss - result.players[0].mean_loss)

    s = stability(games[:1], TINY, jobs=1, folder=tmp_path)
    assert s.decisions == len(analyses[0].decisions) and 0 <= s.agree <= s.decisions
    assert s.ci[0] <= s.rate <= s.ci[1] and s.largest >= s.p95
    with pytest.raises(UsageError, match="another seed"):
        stability(games[:1], TINY, other_seed=0, jobs=1, folder=tmp_path)


def test_efficiency_pairs_the_same_games(tmp_path: Path) -> None:
    e = efficiency("rule", "random", pairs=2, win_pairs=3, seed=0, settings=Settings(10),
                   jobs=1, folder=tmp_path, resamples=100)
    assert (e.loss.units, e.win_same.units, e.win.units) == (2, 2, 3)
    assert 0 <= e.win.mean <= 1 and e.a_loss >= 0 and e.b_loss >= 0
    assert e.loss.mean == pytest.approx(e.b_loss - e.a_loss)
    with pytest.raises(UsageError, match="at least 2 pairs"):
        efficiency("rule", "random", pairs=1, folder=tmp_path)


def test_the_bench_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "reliability.png"
    assert main(["bench", "calibration", "--games", "1", "--plies", "2", "--iterations", "10",
                 "--jobs", "1", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "calibration: 2 forecasts from 1 games" in out and "Brier score" in out
    assert "| win chance | n |" in out and png.exists()
    assert main(["bench", "ordering", "--players", "rule", "random", "--deals", "1",
                 "--iterations", "10", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "| `rule` | 1 |" in out and "random minus rule" in out and "ordered" in out
    assert main(["bench", "stability", "--players", "rule", "random", "--deals", "1",
                 "--iterations", "10", "--jobs", "1"]) == 0
    assert "the two seeds' losses agree within 0.05 on" in capsys.readouterr().out
    assert main(["bench", "efficiency", "--p1", "rule", "--p2", "random", "--games", "4",
                 "--win-games", "4", "--iterations", "10", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "games needed" in out and "random's mean loss minus rule's" in out
    assert main(["bench", "calibration", "--games", "1", "--plies", "0"]) == 2
    assert "plies per game must be at least 1" in capsys.readouterr().err
