"""The ratings' CIs and rank intervals against simulated games with known strengths: players far
apart get narrow intervals at their true ranks, equal players get overlapping ones, a player with
two games is never ranked as if certain, and the 95% CIs cover the true ratings about 95% of the
time."""

from __future__ import annotations

import math
import random

import pytest

from duel.leaderboard.plots import frontier
from duel.runs.ratings import bradley_terry, rank_intervals, rate

Games = list[tuple[str, str, float]]


def simulate(true: dict[str, float], per_pair: int, rng: random.Random) -> Games:
    """A round robin: `per_pair` games between each two players, seats alternating, each won
    with the Elo chance of the true ratings."""
    games: Games = []
    names = list(true)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for k in range(per_pair):
                x, y = (a, b) if k % 2 == 0 else (b, a)
                chance = 1 / (1 + 10 ** ((true[y] - true[x]) / 400))
                games.append((x, y, 1.0 if rng.random() < chance else 0.0))
    return games


def by_player(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(r["player"]): r for r in rows}


def test_players_far_apart_get_narrow_intervals_at_their_true_ranks() -> None:
    true = {"mcts:iterations=50": 0.0, "b": 500.0, "c": 1000.0, "d": 1500.0}
    rows = rate(simulate(true, 40, random.Random(1)), resamples=1000, method="model")
    assert [r["player"] for r in rows] == ["d", "c", "b", "mcts:iterations=50"]
    for rank, r in enumerate(rows, 1):
        assert (r["rank_best"], r["rank_worst"]) == (rank, rank), r
        assert r["ci_low"] <= true[str(r["player"])] <= r["ci_high"], r
        # narrow: no other player's true rating is in it
        others = [v for name, v in true.items() if name != r["player"]]
        assert not any(r["ci_low"] <= v <= r["ci_high"] for v in others), r
    assert by_player(rows)["mcts:iterations=50"]["ci_low"] == 0.0  # the anchor


def test_equal_players_get_overlapping_intervals() -> None:
    true = dict.fromkeys(("a", "b", "c", "d"), 0.0)
    rows = rate(simulate(true, 20, random.Random(2)), resamples=1000, method="model")
    for r in rows:
        assert int(r["rank_worst"]) - int(r["rank_best"]) >= 2, r  # three ranks or more
    # every two intervals share a rank: none can be told apart from another
    for x in rows:
        for y in rows:
            assert max(x["rank_best"], y["rank_best"]) <= min(x["rank_worst"], y["rank_worst"])


def test_a_player_with_two_games_is_not_ranked_as_if_certain() -> None:
    """Two wins in two games against the weakest: the parametric bootstrap gives it the wide
    interval it should have; resampling games would mostly repeat the two wins."""
    true = {"mcts:iterations=50": 0.0, "b": 200.0, "c": 400.0}
    games = simulate(true, 40, random.Random(3)) + [("x", "mcts:iterations=50", 1.0)] * 2
    model = by_player(rate(games, resamples=1000, method="model"))
    plain = by_player(rate(games, resamples=1000, method="games"))
    x = model["x"]
    assert int(x["rank_worst"]) - int(x["rank_best"]) >= 2  # three ranks or more
    width = {name: float(r["ci_high"]) - float(r["ci_low"]) for name, r in model.items()}
    assert width["x"] > 1.4 * max(width["b"], width["c"])  # they have 80 games each
    assert width["x"] > 1.5 * (float(plain["x"]["ci_high"]) - float(plain["x"]["ci_low"]))


def test_the_95_percent_cis_cover_the_true_ratings() -> None:
    true = {"mcts:iterations=50": 0.0, "b": 150.0, "c": 300.0, "d": 300.0}
    rng = random.Random(4)
    runs = 200
    covered = dict.fromkeys(true, 0)
    for run in range(runs):
        for r in rate(simulate(true, 20, rng), resamples=200, seed=run, method="model"):
            name = str(r["player"])
            covered[name] += float(r["ci_low"]) <= true[name] <= float(r["ci_high"])
    for name in ("b", "c", "d"):
        # 200 runs: a true 95% coverage lands in [0.91, 0.98] with 95% probability
        assert 0.90 <= covered[name] / runs <= 0.99, covered


def test_rank_intervals_of_given_samples() -> None:
    samples = [{"a": 3.0, "b": 2.0, "c": 1.0}] * 50 + [{"a": 1.0, "b": 2.0, "c": 3.0}] * 50
    found = rank_intervals(samples)
    assert found == {"a": (1, 3), "b": (2, 2), "c": (1, 3)}
    assert rank_intervals([{"a": 1.0, "b": 1.0, "c": 0.0}] * 10) == \
        {"a": (1, 1), "b": (1, 1), "c": (3, 3)}  # a tie shares the better rank


def test_the_vectorised_fit_still_solves_the_hand_computable_cases() -> None:
    r = bradley_terry([("a", "b", 1.0), ("b", "a", 0.0), ("a", "b", 0.0)], prior=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(2), abs=1e-6)
    assert bradley_terry([]) == {}


def test_the_frontier_keeps_the_players_none_beats_on_both() -> None:
    points = [(0.0, 100.0, 1), (0.0, 50.0, 2), (0.5, 90.0, 3), (1.0, 300.0, 4), (2.0, 250.0, 5),
              (0.2, 200.0, 6)]
    assert frontier(points) == [1, 6, 4]
