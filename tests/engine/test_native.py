"""The native core (duel/native, docs/native.md) plays exactly like the Python engine: every
state field and the legal-move list after every ply of seeded random games, the whole-game
playouts, and states read from views (InfoSet samples). Skipped where the core is not built
(DUEL_PURE=1, or a machine without a C++ compiler); CI builds it."""

from __future__ import annotations

import random

import pytest

from duel.engine import InfoSet, Perspective, Seat, new_game
from duel.engine.playout import random_game
from duel.native import available, legal_moves, native_fields, python_fields, to_native
from duel.native.differential import Disagreement, check_game, compare

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")

# The CI sample; `python -m duel.native.differential 100000` runs the note's full count.
GAMES = 300


def test_random_games_agree_ply_by_ply() -> None:
    plies = sum(check_game(seed) for seed in range(GAMES))
    assert plies > GAMES * 60


def test_a_difference_would_be_found() -> None:
    state = new_game(4)
    native = to_native(state)
    compare(state, native, "start")
    state.players[0].coins += 1
    with pytest.raises(Disagreement, match="players"):
        compare(state, native, "edited")


def test_states_read_from_views_agree() -> None:
    """Samples of information sets (the search's starting states): loaded mid-game, every
    rule still agrees to the end of a random game."""
    for seed in range(40):
        state = new_game(seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 70)):
            if state.is_terminal():
                break
            state.play(rng.choice(state.legal_moves()))
        if state.is_terminal():
            continue
        seat = Seat.of_index(state.current)
        sample = InfoSet.from_view(Perspective(seat).view(state)).sample(rng)
        native = to_native(sample)
        loaded = sample.prev
        assert native_fields(native, loaded) == python_fields(sample)
        assert legal_moves(native) == sample.legal_moves()
        moves: list = []
        random_game(sample, random.Random(seed), moves)
        from duel.native import random_game as native_random_game

        assert native_random_game(native, random.Random(seed)) == moves
        assert native_fields(native) == python_fields(sample)
