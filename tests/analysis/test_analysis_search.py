"""The analyser's search from one view: sequential halving at the root, values with standard
errors, an immediate win found, the move played kept to the end, seeds."""

from __future__ import annotations

import random

import pytest
from helpers.positions import view

from duel.analysis.search import Settings, decision_seed, evaluate
from duel.engine import InfoSet, Move, new_game
from duel.engine.perspective import Perspective
from duel.errors import UsageError


def _military_win_view() -> dict[str, object]:
    """Age III, the last two cards, player 2 to move with 9 coins and the pawn 6 steps towards
    player 1's capital: PRETORIUM (3 shields, slot 0) wins at once. Player 1's city is far
    ahead in points, so any other move lets the game end with player 1's civilian victory."""
    return view(age=3, current=2, pyramid={0: "PRETORIUM", 1: "PALACE"}, military=-6,
                p1={"cards": ["TOWNHALL", "OBELISK", "GARDENS", "PANTHEON", "SENATE"]},
                p2={"coins": 9},
                loot={"loot2Player1Available": False, "loot5Player1Available": False})


def _legal(v: dict[str, object]) -> list[Move]:
    return InfoSet.from_view(v).sample(random.Random(0)).legal_moves()


def test_an_immediate_win_is_best_and_any_other_move_loses_much() -> None:
    v = _military_win_view()
    legal = _legal(v)
    win = Move("CONSTRUCT_BUILDING", card_index=0)
    assert win in legal
    played = Move("DISCARD", card_index=0)  # throws the winning card away
    values, iterations = evaluate(v, legal, played, Settings(iterations=300),
                                  random.Random(1))
    best = values[0]
    assert best.move == win and best.value == 1.0 and best.se == 0.0
    mine = next(m for m in values if m.move == played)
    assert best.value - mine.value > 0.9  # the game is lost after it
    assert iterations >= 300 - len(legal)


def test_the_move_played_stays_in_every_round_and_every_move_has_a_value() -> None:
    state = new_game(5)
    for _ in range(8):  # past the wonder draft: a turn with many moves
        state = state.apply(state.legal_moves()[0])
    seen = Perspective.to_move(state)
    v, legal = seen.view(state), seen.moves_out(state.legal_moves())
    assert len(legal) >= 8
    played = legal[-1]
    values, _ = evaluate(v, legal, played, Settings(iterations=400), random.Random(2))
    assert sorted(map(str, (m.move for m in values))) == sorted(map(str, legal))
    rounds = max(m.rounds for m in values)
    mine = next(m for m in values if m.move == played)
    assert mine.rounds == rounds == values[0].rounds
    assert mine.visits >= max(m.visits for m in values) - 1  # as many as the best
    assert all(m.visits >= 1 and 0 <= m.value <= 1 and 0 <= m.se <= 0.5 for m in values)
    # ranked: by rounds survived, then by value
    keys = [(-m.rounds, -m.value) for m in values]
    assert keys == sorted(keys)


def test_a_seed_gives_the_same_values_and_another_seed_other_ones() -> None:
    state = new_game(3)
    seen = Perspective.to_move(state)
    v, legal = seen.view(state), seen.moves_out(state.legal_moves())

    def run(seed: int) -> list[object]:
        return evaluate(v, legal, legal[0], Settings(iterations=120), random.Random(seed))[0]

    assert run(decision_seed(0, 1)) == run(decision_seed(0, 1))
    assert run(decision_seed(0, 1)) != run(decision_seed(1, 1))
    assert decision_seed(0, 1) != decision_seed(0, 2)


def test_a_time_budget_runs_within_its_time() -> None:
    state = new_game(4)
    seen = Perspective.to_move(state)
    values, iterations = evaluate(seen.view(state), seen.moves_out(state.legal_moves()), None,
                                  Settings(time=0.2), random.Random(0))
    assert iterations > len(values) and not Settings(time=0.2).deterministic


@pytest.mark.parametrize("kwargs, message", [
    ({"iterations": 0}, "iterations per decision must be at least 1"),
    ({"time": -1.0}, "time per decision must be"),
    ({"time": float("nan")}, "time per decision must be"),
    ({"seed": -2}, "seed must be >= 0"),
])
def test_bad_settings_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Settings(**kwargs)  # type: ignore[arg-type]


def test_a_played_move_that_is_not_legal_is_refused() -> None:
    v = _military_win_view()
    with pytest.raises(UsageError, match="not one of the legal moves"):
        evaluate(v, _legal(v), Move("DISCARD", card_index=7), Settings(iterations=10),
                 random.Random(0))
