"""`duel ladder`: the player against every rung and each rung against the next, one
tournament folder per pairing under --out, then the ratings and the player's place; a second
run resumes (plays nothing already played); a folder of another player's ladder, bad rungs and
a player that is a rung are refused with a clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from duel.cli import main
from duel.runs.ratings import collect, rate

LADDER = ["--player", "random", "--rungs", "5,10", "--games", "2", "--no-progress",
          "--resamples", "20"]


def games(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def test_a_tiny_ladder_plays_every_pairing_and_places_the_player(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ladder"
    assert main(["ladder", *LADDER, "--out", str(out), "--jobs", "2"]) == 0
    printed = capsys.readouterr().out
    pairs = {"player-5": {"random", "mcts:iterations=5"},
             "player-10": {"random", "mcts:iterations=10"},
             "5-10": {"mcts:iterations=5", "mcts:iterations=10"}}
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(pairs)
    for folder, specs in pairs.items():
        played = games(out / folder)
        assert len(played) == 2 and all({g["player1"], g["player2"]} == specs for g in played)
        # Seat-swapped on one deal, as a tournament plays them.
        assert [g["player1"] for g in played][0] != [g["player1"] for g in played][1]
    # The place printed is the ratings' over every pairing's games, as duel ratings gives.
    rows = rate(collect([str(out / f) for f in pairs]), resamples=20, seed=0)
    place = next(r["place"] for r in rows if r["player"] == "random")
    assert place.startswith(("between MCTS-5 and MCTS-10", "below MCTS-5", "above MCTS-10"))
    assert printed.rstrip().splitlines()[-1] == f"random: {place}"
    assert "Bradley-Terry ratings over 6 games" in printed

    # Resumed: nothing played again, the same place.
    before = {f: (out / f / "games.jsonl").read_text() for f in pairs}
    assert main(["ladder", *LADDER, "--out", str(out)]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == f"random: {place}"
    assert {f: (out / f / "games.jsonl").read_text() for f in pairs} == before

    # A rung added later: only its new pairings (player-15, 10-15) are played.
    grown = [a if a != "5,10" else "5,10,15" for a in LADDER]
    assert main(["ladder", *grown, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Bradley-Terry ratings over 10 games" in printed
    assert {f: (out / f / "games.jsonl").read_text() for f in pairs} == before
    assert len(games(out / "player-15")) == 2 and len(games(out / "10-15")) == 2
    assert json.loads((out / "ladder.json").read_text()) == {"player": "random",
                                                            "rungs": [5, 10, 15]}
    # Then fewer rungs: every game in the folder is still rated.
    assert main(["ladder", *LADDER, "--out", str(out)]) == 0
    assert "Bradley-Terry ratings over 10 games" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "error"), [
    (["--player", "rule", "--rungs", "5,10"], "holds the ladder of 'random'"),
    (["--player", "random", "--rungs", "10,5"], "budgets must be positive and increasing"),
    (["--player", "random", "--rungs", "5,x"], "iteration budgets separated by commas"),
    (["--player", "mcts:iterations=5", "--rungs", "5,10"], "is a rung of the ladder already"),
    (["--player", "nosuchagent", "--rungs", "5,10"], "nosuchagent"),
    (["--player", "random", "--rungs", "5,10", "--games", "0"], "give at least 1 game"),
])
def test_a_bad_ladder_is_refused_before_any_game(tmp_path: Path, args: list[str], error: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ladder"
    out.mkdir()
    (out / "ladder.json").write_text(json.dumps({"player": "random", "rungs": [5, 10]}))
    assert main(["ladder", "--games", "2", *args, "--out", str(out), "--no-progress"]) == 2
    assert error in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["ladder.json"]  # nothing played
