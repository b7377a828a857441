"""Random games played in place: what `duel bench engine` times and the differential test
compares between the compiled and the pure build (compiled with the engine, so the loop itself
runs at the engine's speed)."""

from __future__ import annotations

import random

from .draws import choice
from .moves import Move
from .state import GameState
from .steps import GAME_END


def random_game(state: GameState, rng: random.Random, moves: list[Move] | None = None) -> int:
    """Play uniformly random legal moves on `state` in place to the end of the game; append
    them to `moves` if given. Returns the number of moves played."""
    played = 0
    while state.step != GAME_END:
        move = choice(rng, state.legal_moves())
        state.play(move)
        if moves is not None:
            moves.append(move)
        played += 1
    return played
