"""Training examples from self-play records: one per decision with a choice, targets on the
legal moves they name, values from the mover's side."""

from __future__ import annotations

import numpy as np
import pytest

from duel.agents.guided.features import N_FEATURES
from duel.learning.guide.dataset import examples, root_value
from duel.learning.guide.selfplay import GameRecord, play_game


def test_examples_follow_the_games_moves_and_searches() -> None:
    games = [play_game((i, 40 + i, "mcts:iterations=20", 3)) for i in range(2)]
    ex = examples(games, q_weight=1.0)
    decisions = sum(len(g.searches) for g in games)
    assert len(ex) >= decisions  # plus the wins on the spot, searched by nobody
    assert np.allclose(ex.policy.sum(1), 1.0)
    assert ((ex.value >= 0) & (ex.value <= 1)).all()
    # Targets sit on legal moves only (a pair of outputs each), never on padding.
    legal = ex.slots[:, :, 0] >= 0
    assert (ex.policy[~legal] == 0).all()
    dense = ex.dense(np.arange(len(ex)), N_FEATURES)
    assert dense.shape == (len(ex), N_FEATURES) and (dense >= 0).all()
    part = ex.take(np.array([3, 1]))
    assert np.array_equal(part.dense(np.arange(2), N_FEATURES), dense[[3, 1]])
    # z alone: the mover's result, 1, 1/2 or 0.
    assert set(np.unique(examples(games, q_weight=0.0).value)) <= {0.0, 0.5, 1.0}


def test_the_root_value_weights_children_by_the_target_or_the_visits() -> None:
    stats = [("a", 30, 0.6), ("b", 10, 0.2), ("c", 0, 0.0)]
    assert root_value(stats, None) == pytest.approx((30 * 0.6 + 10 * 0.2) / 40)
    # The improved policy's weights, over the children visited.
    assert root_value(stats, [0.5, 0.25, 0.25]) == pytest.approx((0.5 * 0.6 + 0.25 * 0.2) / 0.75)


def test_records_round_trip() -> None:
    g = play_game((0, 7, "mcts:guide=default,iterations=16", 0))
    assert g.targets and set(g.targets) <= set(g.searches)
    assert GameRecord.from_json(g.to_json()).to_json() == g.to_json()
