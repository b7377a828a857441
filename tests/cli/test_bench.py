"""Every benchmark runs and prints its figures (smoke tests with tiny budgets: the figures
themselves are for `duel bench`, never asserted against a clock)."""

from __future__ import annotations

import json
import re

import pytest

from duel.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["bench", *argv]) == 0
    return capsys.readouterr().out


def test_bench_engine_and_mcts(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "engine", "--seconds", "0.1")
    assert re.search(r"build: (compiled|pure) \(", out) and "load average" in out
    assert re.search(r"\d+ games/s, \d+ moves/s .*in-place play", out)
    assert re.search(r"\d+ games/s .*checked apply", out)
    assert re.search(r"pure build of the same source: \d+ games/s", out)
    out = _run(capsys, "mcts", "--seconds", "0.1")
    assert "iterations/s from the start position" in out
    assert "iterations/s from a mid-Age-II position" in out


def test_bench_json_compares_the_running_build_with_the_pure_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    from duel.build import build

    engine = json.loads(_run(capsys, "engine", "--seconds", "0.2", "--json"))
    mcts = json.loads(_run(capsys, "mcts", "--seconds", "0.2", "--json"))
    for r, rate in ((engine, "games_per_s"), (mcts, "iterations_per_s")):
        assert r["build"] == build()
        assert r[rate] > 0 and r[f"pure_{rate}"] > 0
        assert r["speedup"] == pytest.approx(r[rate] / r[f"pure_{rate}"])
        assert r["cpus"] >= 1 and r["load_average"] >= 0
    assert mcts["mid_age_two_iterations_per_s"] > 0
    assert mcts["pure_mid_age_two_iterations_per_s"] > 0


def test_bench_strength_and_dqn_print_rates_cis_and_targets(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "strength", "--games", "2", "--time", "0.01", "--jobs", "1")
    assert out.count("95% CI") >= 3 and out.count("target") >= 3
    out = _run(capsys, "dqn", "--games", "2", "--jobs", "1")
    assert "dqn vs random" in out and "dqn vs rule" in out and out.count("target") == 2


def test_bench_server_plays_over_http(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "server", "--clients", "2", "--seconds", "1")
    assert re.match(r"build: (compiled|pure) \(", out)
    assert re.search(r"\d+ moves by 2 clients .* moves/s; POST move latency p50 [\d.]+ ms", out)
    assert "0 errors" in out


def test_bench_tournament_here(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "tournament", "--p1", "random", "--games", "2", "--jobs", "1")
    assert re.search(r"random vs random: 2 games, 1 at once on processes here: [\d.]+ games/s"
                     r".*95% CI .* n=2", out)


def test_bench_server_many_servers_need_postgresql(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "server", "--servers", "2"]) != 0
    assert "share a PostgreSQL database: give --db postgresql://" in capsys.readouterr().err


def test_bench_reuse_prints_the_share_kept(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "reuse", "--games", "2", "--time", "0.03")
    assert re.search(r"mcts:time=0.03,reuse=1 against rule, 2 games, \d+ searched decisions: "
                     r"a subtree kept in \d+% of them; visits kept per decision [\d.]+% of the "
                     r"root's \(95% CI [\d.]+%-[\d.]+%, bootstrap over games\)", out)


def test_reuse_figures_on_known_data() -> None:
    """Two games: one keeps half of every root (2 decisions), one keeps nothing (1 decision)."""
    from duel.bench.mcts import reuse_figures

    figures = reuse_figures([[(100, 100), (50, 50)], [(0, 80)]])
    assert figures["decisions"] == 3 and figures["games"] == 2
    assert figures["kept_share"] == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    assert figures["decisions_kept"] == pytest.approx(2 / 3)
    lo, hi = figures["kept_share_ci"]
    assert lo == pytest.approx(0.0) and hi == pytest.approx(0.5)


def _native_built() -> bool:
    from duel.native import available

    return available()


@pytest.mark.skipif(not _native_built(), reason="the native core is not built")
def test_bench_native_analyser_and_native_guided(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "native-analyser", "--rounds", "1", "--decisions", "1",
               "--iterations", "40")
    assert "analyser CPU per decision: native" in out and "native/Python" in out
    out = _run(capsys, "native-guided", "--rounds", "1", "--seconds", "0.05", "--json")
    r = json.loads(out)
    assert {"python_guided", "native_guided", "native_net_guided", "native_speedup",
            "native_net_speedup"} <= set(r)


def test_bench_yardstick_names_a_folder_that_is_not_the_engine(tmp_path: object) -> None:
    from duel.bench.yardstick import DRIVER, compare_yardstick
    from duel.errors import BenchError

    # The driver ships with the package; the public engine it builds against never does.
    assert DRIVER.is_file() and "AgentMctsBlindReveals" in DRIVER.read_text()
    if not _native_built():
        pytest.skip("the native core is not built")
    with pytest.raises(BenchError, match=r"not a checkout of indjev99/7-Wonders-Duel-AI"):
        compare_yardstick(str(tmp_path), 1, 0.01)
