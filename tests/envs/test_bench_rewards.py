"""`duel bench rewards` (issue 40's dense-reward figures) on a tiny run: its figures are there,
with their n, and the stronger agent's rewards are the ones subtracted from."""

from __future__ import annotations

import json

import pytest

from duel.cli import main


def test_bench_rewards_reports_each_reward_with_its_n(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "rewards", "--weak", "random", "--strong", "rule", "--deals", "2",
                 "--quality-iterations", "4", "--jobs", "1", "--json"]) == 0
    out = capsys.readouterr().out
    r = json.loads(out[out.index("{"):])
    assert r["games"] == 8 and r["decisions"] > 100
    assert -1 <= r["quality_outcome_correlation"] <= 1
    for name in ("outcome", "margin", "quality"):
        assert r[name]["units"] == 4 and len(r[name]["ci"]) == 2
