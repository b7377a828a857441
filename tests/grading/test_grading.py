"""Grading prompt variants, the statistics behind it, and Bradley-Terry ratings."""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply

from duel.cli import main
from duel.engine import InfoSet
from duel.prompts import get_variant
from duel.runs.ratings import bradley_terry, collect, rate
from duel.stats import bootstrap_ci, format_p, paired_permutation_p, wilson
from duel.transcripts import check_result, initial_state, read, replay


def _state_of(body: dict[str, Any]) -> dict[str, Any]:
    text = body["messages"][1]["content"]
    obj, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    return obj


def scripted(body: dict[str, Any]) -> Scripted:
    """A fake model: by variant, the first legal move (baseline, null), a garbage reply then the
    first legal move (errata), or the last legal move (legal-moves)."""
    system = body["messages"][0]["content"]
    state = InfoSet.from_view(_state_of(body)).sample(random.Random(0))
    legal = state.legal_moves()
    retry = len(body["messages"]) > 2
    if system == get_variant("errata").system and not retry:
        return openai_reply("let me think about the pyramid")
    # legal-moves shares the baseline's rules text; its turn message lists the moves
    listed = "Your legal moves are:" in body["messages"][1]["content"]
    move = legal[-1] if listed else legal[0]
    return openai_reply(json.dumps(move.to_json()))


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_grading_a_tiny_run_gives_the_expected_table(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "grade"
    with FakeLLMServer(responder=scripted) as srv:
        args = ["grade", "--variants", "baseline,errata,legal-moves", "--model",
                f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                "--deals", "2", "--out", str(out), "--jobs", "2", "--no-progress"]
        assert main(args) == 0
        calls_first = len(srv.requests)
        md = capsys.readouterr().out
        # resumable: a second run plays nothing again
        assert main(args) == 0
        assert len(srv.requests) == calls_first
    assert len(list(out.glob("games/*/*.jsonl"))) == 4 * 2 * 2
    rows = {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}
    assert set(rows) == {"baseline", "null", "errata", "legal-moves"}
    for name in ("baseline", "null"):
        r = rows[name]
        assert float(r["first_try_legal"]) == 1.0 and float(r["mean_attempts"]) == 1.0
    # the null variant is the baseline under another name: identical games, no difference
    assert rows["null"]["win_rate"] == rows["baseline"]["win_rate"]
    assert float(rows["null"]["diff_vs_baseline"]) == 0.0 and float(rows["null"]["p_value"]) == 1.0
    # errata: one failed attempt then the same move as the baseline on every turn
    e = rows["errata"]
    assert float(e["first_try_legal"]) == 0.0 and float(e["legal_after_retries"]) == 1.0
    assert float(e["mean_attempts"]) == 2.0 and int(e["fallbacks"]) == 0
    assert e["win_rate"] == rows["baseline"]["win_rate"]
    assert int(e["paired_deals"]) == 2 and int(e["games"]) == 4
    assert rows["legal-moves"]["hash"] == get_variant("legal-moves").hash
    assert "| variant | games | win rate (95% CI)" in md and "vs baseline" in md
    for png in ("win_rate.png", "vs_baseline.png", "legality.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"
    # every game the grader wrote replays cleanly, and its header names the variant it played
    for path in out.glob("games/*/*.jsonl"):
        t = read(path)
        final = initial_state(t)
        for step in replay(t):
            final = step.after
        check_result(t, final)
        seat = path.stem.split("seat")[1]
        assert t.header["players"][seat]["prompt"]["name"] == path.parent.name
        assert t.header["players"][str(3 - int(seat))]["spec"] == "random"
    assert "noise floor" in md


def test_grading_always_plays_baseline_and_null_and_refuses_another_runs_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    with FakeLLMServer(responder=scripted) as srv:
        model = f"llm:compat:fake@{srv.url}/v1,mode=text"
        args = ["grade", "--variants", "errata", "--model", model, "--opponent", "random",
                "--deals", "1", "--seed", "5", "--out", str(out), "--jobs", "2", "--no-progress"]
        assert main(args) == 0
        assert sorted(p.name for p in (out / "games").iterdir()) == ["baseline", "errata", "null"]
        # a game cut short by a kill is played again; finished ones are kept
        cut = out / "games" / "errata" / "deal5-seat2.jsonl"
        cut.write_text("\n".join(cut.read_text().splitlines()[:10]) + "\n")
        before = len(srv.requests)
        assert main(args) == 0
        assert len(srv.requests) > before and read(cut).footer is not None
        capsys.readouterr()
        # the same folder with another opponent would mix two runs in one report
        assert main([*args[:5], "--opponent", "rule", *args[7:]]) == 2
        assert "grade into another --out" in capsys.readouterr().err


def test_wilson_known_values() -> None:
    lo, hi = wilson(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(50, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)


def test_permutation_test_known_values() -> None:
    assert paired_permutation_p([1.0] * 5) == pytest.approx(2 / 32)
    assert paired_permutation_p([0.0, 0.0]) == 1.0
    assert paired_permutation_p([1.0, -1.0]) == 1.0
    # hand-counted over the 8 sign patterns: sums 6, 4, 2, 0, 0, -2, -4, -6; |sum| >= 6 twice
    assert paired_permutation_p([1.0, 2.0, 3.0]) == 0.25
    # observed 3: the sums are +-5, +-3 (twice each sign) and +-1: six of eight reach 3
    assert paired_permutation_p([3.0, 1.0, -1.0]) == 0.75
    # 20 positive differences: the sampled p-value is near its floor
    assert paired_permutation_p([0.5] * 20) < 0.001


def test_a_p_value_below_a_thousandth_is_printed_as_such_never_as_zero() -> None:
    assert format_p(paired_permutation_p([0.5] * 20)) == "<0.001"
    assert (format_p(0.001), format_p(0.0625), format_p(1.0)) == ("0.001", "0.062", "1.000")


def test_bootstrap_ci_brackets_the_mean() -> None:
    values = [0.0, 1.0] * 50
    lo, hi = bootstrap_ci(values, seed=1)
    assert lo < 0.5 < hi and lo > 0.35 and hi < 0.65
    assert bootstrap_ci([0.25] * 10) == (0.25, 0.25)


def test_bradley_terry_recovers_known_strengths() -> None:
    true = {"mcts:iterations=50": 0.0, "mcts:iterations=200": 200.0, "llm:x": 300.0,
            "mcts:iterations=1000": 400.0}
    rng = random.Random(7)
    games = []
    players = list(true)
    for _ in range(4000):
        a, b = rng.sample(players, 2)
        p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
        games.append((a, b, 1.0 if rng.random() < p else 0.0))
    r = bradley_terry(games)
    zero = r["mcts:iterations=50"]
    for name, elo in true.items():
        assert abs(r[name] - zero - elo) < 40
    rows = {row["player"]: row for row in rate(games, resamples=20)}
    assert rows["llm:x"]["place"] == "between MCTS-200 and MCTS-1000"
    assert rows["mcts:iterations=50"]["rating"] == 0.0
    assert rows["llm:x"]["ci_low"] <= rows["llm:x"]["rating"] <= rows["llm:x"]["ci_high"]


def test_bradley_terry_on_hand_computable_cases() -> None:
    # Without the prior the fit is the maximum-likelihood one: a 2-1 record is odds 2, i.e.
    # 400*log10(2) = 120.41 Elo; a win and a draw (1.5 of 2 points) is odds 3 (190.85 Elo).
    r = bradley_terry([("a", "b", 1.0), ("b", "a", 0.0), ("a", "b", 0.0)], prior=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(2), abs=1e-6)
    r = bradley_terry([("a", "b", 1.0), ("b", "a", 0.5)], prior=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    # A chain a > b > c with 3-1 records and no a-c game: odds 3 at each link.
    games = [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)] + [("b", "c", 1.0)] * 3 + [("c", "b", 1.0)]
    r = bradley_terry(games, prior=0.0, iterations=3000)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3), abs=1e-3)
    assert r["b"] - r["c"] == pytest.approx(400 * math.log10(3), abs=1e-3)
    # With the prior (one virtual drawn game each against a reference of strength 1), the fit
    # solves points_p + 0.5 = sum over p's games of s_p/(s_p + s_q) + s_p/(s_p + 1).
    r = bradley_terry([("a", "b", 1.0)], iterations=5000)
    sa, sb = (10 ** (r[p] / 400) for p in ("a", "b"))
    assert 1.0 + 0.5 == pytest.approx(sa / (sa + sb) + sa / (sa + 1), abs=1e-6)
    assert 0.0 + 0.5 == pytest.approx(sb / (sa + sb) + sb / (sb + 1), abs=1e-6)
    assert r["a"] == pytest.approx(-r["b"], abs=1e-6)  # symmetric about the reference


def test_bootstrap_samples_keep_one_anchor() -> None:
    """A ladder rung with few games is often missing from a bootstrap sample; such samples
    must not be re-anchored to another rung (that would pin it at 0 and widen its CI)."""
    games: list[tuple[str, str, float]] = [("mcts:iterations=50", "llm:x", 0.0)] * 2
    for i in range(60):
        games.append(("mcts:iterations=200", "llm:x", 1.0 if i % 2 else 0.0))
    rows = {row["player"]: row for row in rate(games, resamples=100)}
    assert rows["mcts:iterations=50"]["rating"] == 0.0
    assert rows["mcts:iterations=50"]["ci_low"] == rows["mcts:iterations=50"]["ci_high"] == 0.0
    # re-anchoring the ~13% of samples without MCTS-50's two games put these lows near 0
    for name in ("mcts:iterations=200", "llm:x"):
        assert rows[name]["rating"] > 250 and rows[name]["ci_low"] > 150, rows[name]


def test_two_equal_players_rate_equal() -> None:
    r = bradley_terry([("a", "b", 1.0), ("a", "b", 0.0), ("b", "a", 0.5)])
    assert math.isclose(r["a"], r["b"], abs_tol=1e-6)


def test_ratings_cli_reads_tournament_and_transcript_folders(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    t = tmp_path / "t"
    assert main(["tournament", "--p1", "rule", "--p2", "random", "--games", "4", "--out", str(t),
                 "--no-progress"]) == 0
    m = tmp_path / "m"
    assert main(["match", "--p1", "mcts:iterations=20", "--p2", "random", "--seed", "1",
                 "--transcript", str(m / "g.jsonl")]) == 0
    assert len(collect([str(t), str(m)])) == 5
    capsys.readouterr()
    assert main(["ratings", str(t), str(m), "--resamples", "10"]) == 0
    out = capsys.readouterr().out
    assert "Bradley-Terry ratings over 5 games" in out
    assert "| mcts:iterations=20 | +0 " in out
    assert main(["ratings", str(tmp_path / "empty")]) == 2


def _flip_winner(path: Path) -> None:
    """Rewrite a finished transcript's footer to claim the other player won."""
    lines = path.read_text().splitlines()
    footer = json.loads(lines[-1])
    footer["winner"] = 1 if footer["winner"] != 1 else 2
    lines[-1] = json.dumps(footer)
    path.write_text("\n".join(lines) + "\n")


def test_grading_replays_every_game_before_it_counts(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    with FakeLLMServer(responder=scripted) as srv:
        args = ["grade", "--variants", "baseline", "--model",
                f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                "--deals", "1", "--out", str(out), "--jobs", "1", "--no-progress"]
        assert main(args) == 0
        capsys.readouterr()
        game = out / "games" / "baseline" / "deal0-seat1.jsonl"
        _flip_winner(game)  # a footer that the moves do not support
        assert main(args) == 2
        err = capsys.readouterr().err
        assert str(game) in err and "field winner" in err


def test_ratings_skip_a_transcript_whose_footer_the_moves_do_not_support(tmp_path: Path) -> None:
    m = tmp_path / "m"
    assert main(["match", "--p1", "rule", "--p2", "random", "--seed", "2",
                 "--transcript", str(m / "g.jsonl")]) == 0
    assert len(collect([str(m)])) == 1
    _flip_winner(m / "g.jsonl")
    assert collect([str(m)]) == []
