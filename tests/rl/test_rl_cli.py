"""The learned agent from the outside: `duel train dqn` through the CLI, and the shipped model
playing in a process where torch cannot be imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from duel.cli import main


def test_train_dqn_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "run"
    argv = ["train", "dqn", "--opponent", "random", "--teacher", "rule", "--episodes", "2",
            "--demo-episodes", "1", "--pretrain-steps", "3", "--eval-every", "1",
            "--eval-games", "2", "--hidden", "16", "--jobs", "1", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "score rate vs random" in printed and "model.onnx" in printed
    for name in ("checkpoint.pt", "model.onnx", "learning_curve.png", "train.json"):
        assert (out / name).stat().st_size > 0, name
    # The model the run wrote plays as an agent spec.
    assert main(["match", "--p1", f"dqn:{out / 'model.onnx'}", "--p2", "random",
                 "--no-transcript"]) == 0


def test_train_with_a_bad_spec_fails_before_any_work(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "run"
    assert main(["train", "dqn", "--opponent", "nosuchagent", "--out", str(out)]) == 2
    assert "nosuchagent" in capsys.readouterr().err
    assert not out.exists()


def test_the_shipped_model_plays_without_torch() -> None:
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # any import of torch now raises ImportError\n"
        "from duel.match import play_match\n"
        "r = play_match('dqn', 'rule', seed=11)\n"
        "assert r.result.winner_label in (1, 2, 'draw')\n"
        "assert sys.modules['torch'] is None\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
