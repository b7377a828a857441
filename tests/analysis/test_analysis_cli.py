"""`duel analyse` (the --json contract, the readable summary, one-line errors), `duel match
--analyse`, and the viewer page with an analysis."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.recorded_games import record_game

from duel.analysis.sidecar import load
from duel.analysis.summary import BLUNDER
from duel.cli import main
from duel.engine import Move
from duel.transcripts import read
from duel.viewer import render

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_game(tmp_path_factory.mktemp("cli") / "game.jsonl", "rule", "random", seed=6)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_keeps_the_contract(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One JSON object: "seats" keyed "1" and "2" with decisions, mean_loss, blunders and
    accuracy, and "decisions" with ply, player, loss, played and best (prompt-format moves)."""
    code, out, _ = run(capsys, "analyse", str(game), "--json", "--iterations", "30",
                       "--jobs", "1")
    assert code == 0
    obj = json.loads(out)  # the whole of stdout is one object
    assert set(obj["seats"]) == {"1", "2"}
    for seat in obj["seats"].values():
        assert isinstance(seat["decisions"], int) and seat["decisions"] > 10
        for key in ("mean_loss", "blunders", "accuracy"):
            assert isinstance(seat[key], int | float)
    assert len(obj["decisions"]) == sum(s["decisions"] for s in obj["seats"].values())
    for d in obj["decisions"]:
        assert {"ply", "player", "loss", "played", "best"} <= set(d)
        assert d["player"] in (1, 2) and d["loss"] >= 0
        for move in (d["played"], d["best"]):
            assert set(move) == {"move", "moveData"}
            Move.from_json(move)
    moves = read(game).moves
    for d in obj["decisions"]:
        assert moves[d["ply"] - 1]["move"] == d["played"]
    code, out, _ = run(capsys, "analyse", str(game), "--json", "--seat", "2",
                       "--iterations", "30", "--jobs", "1")
    obj = json.loads(out)
    assert list(obj["seats"]) == ["2"] and {d["player"] for d in obj["decisions"]} == {2}


def test_the_summary_reads_well(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "analyse", str(game), "--iterations", "30", "--jobs", "1",
                       "--force")
    assert code == 0
    assert "player 1 = rule, player 2 = random" in out
    assert "Player 1 (rule): " in out and "Player 2 (random): " in out
    assert "mean loss" in out and "accuracy" in out and "by Age:" in out and "by kind:" in out
    assert "worst decisions:" in out and "played:   Player" in out and "analyser: Player" in out
    assert f"Analysis written to {game.with_name('game.analysis.json')}" in out
    assert load(game) is not None


def test_a_time_budget_says_it_is_not_reproducible(game: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "analyse", str(game), "--time", "0.01", "--seat", "1", "--json")
    assert code == 0 and "a --time budget: another run gives other figures" in err


def test_bad_input_is_one_clear_line(game: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    not_a_transcript = tmp_path / "state.json"
    not_a_transcript.write_text('{"step": "PLAY_CARD"}\n')
    lines = game.read_text().splitlines()
    move = json.loads(lines[5])
    move["price"] += 1
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines[:5] + [json.dumps(move)] + lines[6:]) + "\n")
    for path, message in ((not_a_transcript, "the first line is not a transcript header"),
                          (tampered, "ply 5: field price is"),
                          (tmp_path / "missing.jsonl", "cannot read")):
        code, out, err = run(capsys, "analyse", str(path), "--iterations", "10")
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("duel analyse: ") and message in err
    assert not tampered.with_suffix(".analysis.json").exists()


def test_exclusive_budgets_and_bad_values(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["analyse", str(game), "--iterations", "5", "--time", "1"])
    capsys.readouterr()
    code, _, err = run(capsys, "analyse", str(game), "--iterations", "0")
    assert code == 2 and "iterations per decision must be at least 1" in err
    code, _, err = run(capsys, "analyse", str(game), "--jobs", "0", "--iterations", "5")
    assert code == 2 and "--jobs must be at least 1" in err


def test_json_in_a_real_process(game: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "duel.cli", "analyse", str(game), "--json",
                           "--iterations", "20", "--seat", "1", "--jobs", "2", "--force"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert list(json.loads(done.stdout)["seats"]) == ["1"]


def test_match_analyse_prints_the_summary(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.jsonl"
    code, out, _ = run(capsys, "match", "--p1", "random", "--p2", "rule", "--seed", "2",
                       "--transcript", str(path), "--analyse", "--analyse-iterations", "30")
    assert code == 0 and "Player 1 (random): " in out and "mean loss" in out
    assert load(path) is not None
    code, _, err = run(capsys, "match", "--no-transcript", "--analyse")
    assert code == 2 and "--analyse analyses the game's transcript" in err
    other = tmp_path / "never.jsonl"
    code, _, err = run(capsys, "match", "--analyse", "--analyse-iterations", "0",
                       "--transcript", str(other))
    assert code == 2 and "iterations per decision must be at least 1" in err
    assert not other.exists()


def test_the_viewer_shows_the_analysis(game: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    game = Path(shutil.copy(game, tmp_path / "game.jsonl"))
    run(capsys, "analyse", str(game), "--iterations", "30", "--jobs", "1")
    sidecar = load(game)
    assert sidecar is not None
    page = render(read(game), analysis=sidecar)
    data = json.loads(page.split("const GAME = ")[1].split(";\n")[0])
    shown = data["analysis"]
    assert shown["curve"] == sidecar["curve"]
    blunders = {str(d["ply"]) for d in sidecar["decisions"] if d["loss"] >= BLUNDER}
    assert {p for p, d in shown["decisions"].items() if d["grade"] == "blunder"} == blunders
    assert render(read(game)).count('"analysis": null') == 1  # none given: none shown
    out = game.with_name("page.html")
    code, printed, err = run(capsys, "view", str(game), "--no-serve", "--out", str(out))
    assert code == 0 and '"curve": [' in out.read_text()
    game.write_text(game.read_text() + "\n")  # stale now: the page is drawn without it
    code, printed, err = run(capsys, "view", str(game), "--no-serve", "--out", str(out))
    assert code == 0 and "analysis not shown" in err and '"analysis": null' in out.read_text()


def test_bench_analyse_prints_time_and_stability(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "analyse", "--iterations", "10", "--jobs", "1")
    assert code == 0 and "load average" in out
    assert out.count("decisions of player 1 at 10 iterations in") == 2
    assert re.search(r"agree within 0.05 on \d+% of \d+ decisions \(target: at least 90%\)", out)
