"""Every agent plays only legal moves, in every step, and plays the same game again from the
same seed."""

from __future__ import annotations

import pytest

from duel.engine import Seat
from duel.engine.steps import STEP_NAMES
from duel.match import agent_rng, play_match

FAST_SPECS = ["random", "rule", "mcts:iterations=30"]


@pytest.mark.parametrize("spec", FAST_SPECS)
def test_agents_only_play_legal_moves_in_every_step(spec: str) -> None:
    steps: set[str] = set()
    seeds = range(12) if spec != "mcts:iterations=30" else range(3)
    for seed in seeds:
        # play_match raises IllegalMoveError if an agent returns an illegal move
        result = play_match(spec, "random", seed=seed)
        steps.update(r.step for r in result.records if r.seat.player == 1)
        result = play_match("random", spec, seed=seed)
        steps.update(r.step for r in result.records if r.seat.player == 2)
        assert result.final.is_terminal()
    assert {"WONDER_SELECTION", "PLAY_CARD"} <= steps


def test_rule_agent_covers_every_step() -> None:
    steps: set[str] = set()
    for seed in range(60):
        result = play_match("rule", "rule", seed=seed)
        steps.update(r.step for r in result.records)
    # every step the engine can ask for, except the end
    assert steps == set(STEP_NAMES) - {"GAME_END"}


@pytest.mark.parametrize("spec", ["random", "rule", "mcts:iterations=40"])
def test_reproducible_with_a_seed(spec: str) -> None:
    a = play_match(spec, "rule", seed=9)
    b = play_match(spec, "rule", seed=9)
    assert [r.move for r in a.records] == [r.move for r in b.records]
    assert a.result == b.result


def test_agent_rngs_do_not_depend_on_the_deal() -> None:
    assert agent_rng(3, Seat.P1).random() == agent_rng(3, Seat.P1).random()
    assert agent_rng(3, Seat.P1).random() != agent_rng(3, Seat.P2).random()
