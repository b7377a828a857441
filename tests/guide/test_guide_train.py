"""`duel train guide` end to end on a tiny run: bootstrap self-play, nets, guided self-play,
evaluations, curves and the exported model; a second run resumes instead of starting again."""

from __future__ import annotations

from pathlib import Path

import pytest

from duel.cli import main
from duel.learning.guide.selfplay import read_games

TINY = ["--bootstrap-spec", "mcts:iterations=8", "--bootstrap-games", "3",
        "--games-per-generation", "2", "--guided-spec", "iterations=8,root=gumbel",
        "--epochs", "2", "--eval-games", "2", "--eval-spec", "iterations=8", "--hidden", "16",
        "--jobs", "1"]


def test_train_guide_runs_resumes_and_exports(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "run"
    assert main(["train", "guide", *TINY, "--generations", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "duel train guide: 3 bootstrap games" in printed and "hours" in printed
    for name in ("model.onnx", "model.npz", "model.json", "learning_curves.png", "curve.json",
                 "net0/model.onnx", "net1/checkpoint.pt", "gen1/games.jsonl"):
        assert (out / name).stat().st_size > 0, name
    bootstrap = (out / "gen0" / "games.jsonl").read_text()
    assert len(read_games(out / "gen0" / "games.jsonl")) == 3
    guided = read_games(out / "gen1" / "games.jsonl")
    assert len(guided) == 2 and all(g.targets for g in guided)  # the improved policy
    # One more generation: the games and nets there are kept, only the new ones are made.
    assert main(["train", "guide", *TINY, "--generations", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "generation 0" not in printed and "generation 1" not in printed
    assert "generation 2: 2 self-play games" in printed and "net2" in printed
    assert (out / "gen0" / "games.jsonl").read_text() == bootstrap
    assert main(["match", "--p1", f"mcts:guide={out / 'model.onnx'},iterations=8", "--p2",
                 "random", "--no-transcript"]) == 0


def test_a_killed_bootstrap_resumes_its_games(tmp_path: Path) -> None:
    from duel.learning.guide.selfplay import generate

    path = tmp_path / "games.jsonl"
    full = generate(path, "mcts:iterations=6", 3, 500, 2)
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:40])  # killed while writing the second game
    again = generate(path, "mcts:iterations=6", 3, 500, 2)
    assert [g.to_json() for g in again] == [g.to_json() for g in full]
    assert [g.to_json() for g in read_games(path)] == [g.to_json() for g in full]
