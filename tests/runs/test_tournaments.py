"""Tournaments: the CLI, resuming, self-play, the report and its confidence interval."""

from __future__ import annotations

import json

import pytest

from duel.cli import main


def test_tournament_cli_runs_resumes_and_reports(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "t"
    args = ["tournament", "--p1", "rule", "--p2", "random", "--games", "4", "--seed", "5",
            "--out", str(out), "--no-progress"]
    assert main(args) == 0
    report = capsys.readouterr().out
    assert "rule vs random: 4 games" in report and "95% CI" in report
    lines = (out / "games.jsonl").read_text().splitlines()
    games = [json.loads(line) for line in lines]
    assert len(games) == 4
    assert {(g["seed"], g["player1"]) for g in games} == {(5, "rule"), (5, "random"),
                                                           (6, "rule"), (6, "random")}
    for g in games:  # the issue's format, in its order, the seats' accounts, the transcript
        assert list(g) == ["seed", "player1", "player2", "winner", "victory", "scores", "moves",
                           "seconds", "accounts", "transcript"]
        # built-in agents: every move their own
        assert all(a["own"] == a["moves"] and a["fallbacks"] == a["forfeits"] == 0
                   for a in g["accounts"].values())
        assert sum(a["moves"] for a in g["accounts"].values()) == g["moves"]
        assert g["winner"] in (1, 2, "draw")
        assert g["victory"] in ("military", "science", "civilian")
        assert len(g["scores"]) == 2 and all(isinstance(x, int) for x in g["scores"])
        assert isinstance(g["moves"], int) and isinstance(g["seconds"], float)
    # resuming plays nothing again; two more games are added for --games 6
    assert main(args[:6] + ["6"] + args[7:]) == 0
    assert "rule vs random: 6 games" in capsys.readouterr().out
    again = (out / "games.jsonl").read_text().splitlines()
    assert again[:4] == lines and len(again) == 6
    assert {(json.loads(line)["seed"]) for line in again[4:]} == {7}


def test_tournament_with_two_processes(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["tournament", "--p1", "rule", "--p2", "random", "--games", "4", "--jobs", "2",
                 "--no-progress"]) == 0
    assert "4 games" in capsys.readouterr().out


def test_tournament_resumes_after_a_kill_mid_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from duel.runs.tournament import run

    out = tmp_path / "t"
    run("rule", "random", 2, seed=3, out=str(out), progress=False)
    path = out / "games.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:25])  # killed while writing game 2
    standings = run("rule", "random", 2, seed=3, out=str(out), progress=False)
    assert len(standings.games) == 2
    games = []
    for line in path.read_text().splitlines():
        try:
            games.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    def key(g: dict) -> dict:
        return {k: v for k, v in g.items() if k != "seconds"}

    assert [key(g) for g in games] == [key(json.loads(line)) for line in lines]


def test_tournament_specs_are_normalised_and_self_play_keeps_both_seats(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from duel.runs.tournament import run

    # A spec with stray spaces is recorded stripped; A is still told from B.
    s = run(" rule ", "random", 4, seed=1, progress=False)
    assert s.a == "rule" and s.counts()[0] == 4
    # Self-play: both games of a deal have the same (seed, player1, player2); a resumed run must
    # find both, and A is player 1 in one and player 2 in the other.
    out = tmp_path / "self"
    first = run("rule", "rule", 4, seed=2, out=str(out), progress=False)
    assert [s.player for s in first.seats] == [1, 2, 1, 2]
    again = run("rule", "rule", 4, seed=2, out=str(out), progress=False)
    assert len((out / "games.jsonl").read_text().splitlines()) == 4
    assert again.counts() == first.counts()
    assert sorted(s.player for s in again.seats) == [1, 1, 2, 2]
    wins, draws, losses = again.counts()
    assert wins == losses  # the same deterministic game, once from each side
    assert "rule (A) won by" in again.report()


def test_tournament_report_counts_draws_and_forfeits() -> None:
    from duel.records import GameSummary
    from duel.runs.tournament import Standings

    s = Standings("a", "b")
    base = {"player1": "a", "player2": "b", "scores": [50, 40], "moves": 60, "seconds": 1.0}
    s.add(GameSummary.from_json({**base, "seed": 0, "winner": 1, "victory": "science"}))
    s.add(GameSummary.from_json({**base, "seed": 0, "player1": "b", "player2": "a",
                                 "winner": "draw", "victory": "civilian"}))
    s.add(GameSummary.from_json({**base, "seed": 1, "winner": 2, "victory": "forfeit"}))
    assert s.counts() == (1, 1, 1)
    report = s.report()
    assert "a: 1 wins, 1 draws, 1 losses" in report
    assert "a won by: science 1" in report and "b won by: forfeit 1" in report
    assert "shared: civilian 1" in report
    assert "score rate (draw = 1/2) 50.0%" in report
    assert "mean score a 46.7, b 43.3" in report  # a has 50, 40, 50


def test_wilson_interval() -> None:
    from duel.stats import wilson

    lo, hi = wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(50, 100)
    assert (lo, hi) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))
    assert wilson(100, 100)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)


def test_a_tournament_records_each_game_s_transcript_and_its_line_names_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Each line names its game's transcript, which replays to that line's result; a resume
    keeps them; --no-transcripts keeps games.jsonl alone; ratings count each game once."""
    from duel.runs.ratings import collect
    from duel.transcripts import read, verified_summary

    out = tmp_path / "t"
    args = ["tournament", "--p1", "rule", "--p2", "random", "--games", "3", "--seed", "2",
            "--out", str(out), "--no-progress", "--jobs", "2"]
    assert main(args) == 0
    lines = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    names = sorted(g["transcript"] for g in lines)
    assert names == ["transcripts/game00001-deal2.jsonl", "transcripts/game00002-deal2.jsonl",
                     "transcripts/game00003-deal3.jsonl"]
    for g in lines:
        summary = verified_summary(read(out / g["transcript"]))
        assert summary.to_json() == {k: v for k, v in g.items()
                                     if k not in ("transcript", "seconds")} | \
            {"seconds": summary.seconds}
    assert len(collect([str(out)])) == 3  # the line and its transcript: one game
    assert not list(out.glob("transcripts/*.part"))
    plain = tmp_path / "plain"
    assert main(args[:10] + [str(plain), "--no-progress", "--no-transcripts"]) == 0
    assert [p.name for p in plain.iterdir()] == ["games.jsonl"]
    assert "transcript" not in (plain / "games.jsonl").read_text()
