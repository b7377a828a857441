"""The grading report counts, per variant, the output tokens of replies that were not played
and what those calls cost (a column of report.md and two of report.csv)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from helpers.fake_llm_server import FakeLLMServer
from test_grading import scripted

from duel.accounting.prices import cost
from duel.cli import main
from duel.grading.report import GameOutcome, markdown, summarise


def test_each_variant_s_unusable_output_and_its_cost_are_in_the_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake": {"input": 1.0, "output": 10.0}}))
    monkeypatch.setenv("DUEL_PRICES", str(prices))
    out = tmp_path / "grade"
    with FakeLLMServer(responder=scripted) as srv:  # errata: a reply in words, then the move
        assert main(["grade", "--variants", "errata", "--model",
                     f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                     "--deals", "1", "--out", str(out), "--jobs", "1", "--no-progress"]) == 0
    md = capsys.readouterr().out
    rows = {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}
    moves = int(rows["errata"]["llm_moves"])
    lost = 20 * moves  # one unparsable reply of 20 output tokens per move
    per_call = cost("fake", 1200, 20, 1000)
    assert per_call is not None
    assert int(rows["errata"]["unusable_output_tokens"]) == lost
    assert float(rows["errata"]["unusable_cost_usd"]) == pytest.approx(moves * per_call)
    assert (rows["baseline"]["unusable_output_tokens"], rows["baseline"]["unusable_cost_usd"]) \
        == ("0", "0")
    share = lost / int(rows["errata"]["output_tokens"])
    assert "| unusable replies (out, cost) |" in md
    assert f"| {lost} ({share:.1%}), ${moves * per_call:.4f} |" in md
    assert "| 0 (0.0%), $0.0000 |" in md


def test_games_recorded_before_it_was_counted_or_unpriced_say_so() -> None:
    totals = {"moves": 3, "calls": 4, "input_tokens": 10, "output_tokens": 8,
              "cost_usd": None, "latency_s": 1.0, "first_try_legal": 1.0,
              "legal_after_retries": 1.0, "mean_attempts": 1.0, "fallbacks": 0}
    old = GameOutcome("baseline", 0, 1, 1.0, 5, totals, "h")
    unpriced = GameOutcome("errata", 0, 1, 1.0, 5, {**totals, "unusable_output_tokens": 4},
                           "h", unusable_usd=None)
    md = markdown(summarise([old, unpriced]))
    assert "| not counted |" in md and "| 4 (50.0%), price unknown |" in md
