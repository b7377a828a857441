"""Games for tests: a deal and a list of moves played out through the engine."""

from __future__ import annotations

import random
from collections.abc import Iterable

from duel.engine import Deal, GameState, Move, new_game


def play_out(deal: Deal, moves: Iterable[Move], open_box: bool = True) -> GameState:
    """The state after `moves` from `deal`; `apply` checks each one's legality."""
    state = new_game(deal=deal, open_box=open_box)
    for move in moves:
        state = state.apply(move)
    return state


def random_game_states(seed: int) -> list[GameState]:
    """Every state of the random game of `seed` (its moves drawn by random.Random(seed))."""
    state = new_game(seed)
    rng = random.Random(seed)
    out = [state]
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_moves()))
        out.append(state)
    return out
