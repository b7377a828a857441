"""Game grading with the analyser: `duel grade --analyse` grades the LLM's decisions of every
game, and the report adds mean loss per decision and blunder rate per variant, each with its
difference from the baseline paired by deal and seat (also when sidecars were written by `duel
analyse` instead)."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply

from duel.analysis import load_analysis
from duel.analysis.summary import BLUNDER
from duel.cli import main
from duel.engine import InfoSet
from duel.grading.plan import game_path
from duel.grading.quality import SeatLosses, quality_row
from duel.stats import mean


def first_or_last(body: dict[str, Any]) -> Scripted:
    """The baseline and null prompts play the first legal move, legal-moves the last."""
    text = body["messages"][1]["content"]
    view, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    legal = InfoSet.from_view(view).sample(random.Random(0)).legal_moves()
    move = legal[-1] if "Your legal moves are:" in text else legal[0]
    return openai_reply(json.dumps(move.to_json()))


def csv_rows(out: Path) -> dict[str, dict[str, str]]:
    return {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}


def game_figures(out: Path, variant: str, deal: int) -> dict[int, tuple[float, float]]:
    """Seat -> (mean loss, blunder rate) of the LLM's analysed decisions in its games."""
    found = {}
    for seat in (1, 2):
        analysis = load_analysis(game_path(out, variant, deal, seat))
        assert analysis is not None and analysis.seats == (seat,)  # the LLM's seat only
        losses = [d.loss for d in analysis.decisions]
        assert {d.player for d in analysis.decisions} == {seat}
        found[seat] = (mean(losses), mean([1.0 if x >= BLUNDER else 0.0 for x in losses]))
    return found


def test_grade_analyse_adds_loss_and_blunder_columns_paired_by_deal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    with FakeLLMServer(responder=first_or_last) as srv:
        args = ["grade", "--variants", "legal-moves", "--model",
                f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                "--deals", "1", "--out", str(out), "--jobs", "2", "--no-progress",
                "--analyse", "--analyse-iterations", "20"]
        assert main(args) == 0
        md = capsys.readouterr().out
    rows = csv_rows(out)
    assert "## Move quality of the graded seat" in md
    assert "20 iterations per decision, seed 0" in md
    base = game_figures(out, "baseline", 0)
    for variant in ("baseline", "null", "legal-moves"):
        r = rows[variant]
        mine = game_figures(out, variant, 0)
        assert int(r["analysed_games"]) == 2
        assert float(r["mean_loss"]) == pytest.approx(mean([m[0] for m in mine.values()]),
                                                      abs=1e-9)
        assert float(r["blunder_rate"]) == pytest.approx(mean([m[1] for m in mine.values()]),
                                                         abs=1e-9)
        assert int(r["loss_paired_deals"]) == 1
        diff = mean([mine[s][0] - base[s][0] for s in (1, 2)])
        assert float(r["loss_diff"]) == pytest.approx(diff, abs=1e-9)
        assert r["win_rate"] != ""  # next to the win rate, in the same row
    # the null variant plays the baseline's prompt: the same games, the same losses
    assert float(rows["null"]["loss_diff"]) == 0.0 and float(rows["null"]["loss_p_value"]) == 1.0
    assert (out / "mean_loss.png").exists() and (out / "loss_vs_baseline.png").exists()


def test_sidecars_written_by_duel_analyse_are_read_without_analyse(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    with FakeLLMServer(responder=first_or_last) as srv:
        args = ["grade", "--variants", "baseline", "--model",
                f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                "--deals", "1", "--out", str(out), "--jobs", "2", "--no-progress"]
        assert main(args) == 0
        assert "Move quality" not in capsys.readouterr().out
        assert "mean_loss" not in (out / "report.csv").read_text()
        game = game_path(out, "null", 0, 2)
        assert main(["analyse", str(game), "--seat", "2", "--iterations", "20",
                     "--jobs", "1"]) == 0
        capsys.readouterr()
        calls = len(srv.requests)
        assert main(args) == 0  # resumed: nothing played, the sidecar read
        assert len(srv.requests) == calls
        md = capsys.readouterr().out
    rows = csv_rows(out)
    assert "## Move quality of the graded seat" in md
    assert rows["null"]["analysed_games"] == "1" and rows["baseline"]["analysed_games"] == "0"
    assert rows["baseline"]["mean_loss"] == ""  # no analysed game: empty, not zero
    assert rows["null"]["loss_paired_deals"] == "0"  # nothing of the baseline's to pair with
    assert main([*args, "--analyse-iterations", "5"]) == 2
    assert "--analyse-iterations applies only with --analyse" in capsys.readouterr().err


def test_the_pairing_uses_the_deals_and_seats_both_have_analysed() -> None:
    def games(figures: dict[tuple[int, int], list[float]]
              ) -> list[tuple[int, int, SeatLosses | None]]:
        return [(d, s, SeatLosses(tuple(x), "t") if x else None)
                for (d, s), x in figures.items()]

    variant = games({(0, 1): [0.0, 0.2], (0, 2): [0.1, 0.1], (1, 1): [0.3, 0.1],
                     (2, 2): [0.05, 0.05]})
    baseline = games({(0, 1): [0.0, 0.0], (0, 2): [0.2, 0.0], (1, 2): [0.4, 0.0],
                      (2, 1): [], (2, 2): [0.0, 0.0]})
    r = quality_row(variant, baseline)
    assert r["analysed_games"] == 4 and r["decisions"] == 8
    # per deal the mean over its analysed seats: deal 0 (0.1 + 0.1) / 2, deal 1 0.2, deal 2 0.05
    assert r["mean_loss"] == pytest.approx((0.1 + 0.2 + 0.05) / 3)
    # deal 1 has no seat in common (1 against 2): out; deal 0 both seats, deal 2 seat 2 only
    assert r["loss_paired_deals"] == 2
    assert r["loss_diff"] == pytest.approx(((0.1 - 0.0) + (0.1 - 0.1)) / 2 / 2 + 0.05 / 2)
    # blunders (>= 0.10): deal 0 seat 1 half, seat 2 all, deal 1 all, deal 2 none; the
    # baseline's deal 0: seat 1 none, seat 2 half
    assert r["blunder_rate"] == pytest.approx(((0.5 + 1.0) / 2 + 1.0 + 0.0) / 3)
    assert r["blunder_diff"] == pytest.approx((((0.5 - 0.0) + (1.0 - 0.5)) / 2 + 0.0) / 2)
