"""duel.engine: the rules of 7 Wonders Duel, pure and seeded.

Typical use::

    from duel.engine import new_game
    state = new_game(seed=7)
    move = state.legal_moves()[0]
    state = state.apply(move)          # a new state; the old one is untouched
    view = Perspective(Seat.P1).view(state)   # player 1's view, itself as player2
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from .codes import deal_code
from .data import CARD_IDS, CARD_NAMES, CARDS, TOKEN_NAMES, WONDER_NAMES, WONDERS
from .deal import Deal
from .infoset import InfoSet, state_from_view
from .moves import (
    DuelError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    Move,
    MoveKind,
)
from .perspective import Perspective, swap_move, swap_text
from .pricing import PriceBook
from .result import Result
from .seat import SEATS, Seat
from .state import GameState
from .steps import GAME_END, STEP_NAMES
from .view import seat_view

# Bumped whenever a view or a rule changes, so that replaying an older transcript explains
# its mismatch. 2: the wonders out of the game show from the draft's round 2.
RULES_VERSION = "2"


def new_game(seed: int | None = None, *, rng: random.Random | None = None,
             deal: Deal | None = None, open_box: bool = True, code: str | None = None,
             prices: PriceBook | None = None, moves: Iterable[Move] = ()) -> GameState:
    """A new game at the wonder draft, or after `moves` (each checked, as `apply` checks it:
    a state's repr is this call). The deal comes from `deal`, else is drawn from `rng` (or
    `random.Random(seed)`). The same seed always gives the same deal and game code. The game's
    states share `prices` (a fresh book by default; one playing many games may share one)."""
    if deal is None:
        if rng is None:
            rng = random.Random(seed)
        deal = Deal.random(rng)
    state = GameState.start(deal, open_box=open_box, code=code or "", prices=prices)
    for move in moves:
        state = state.apply(move)
    return state


__all__ = [
    "CARDS", "CARD_IDS", "CARD_NAMES", "WONDERS", "WONDER_NAMES", "TOKEN_NAMES", "Deal",
    "DuelError", "GAME_END", "GameState", "IllegalMoveError", "InfoSet", "InvalidMoveError",
    "InvalidStateError", "Move", "MoveKind", "Perspective", "RULES_VERSION", "Result", "SEATS",
    "STEP_NAMES", "Seat", "deal_code", "new_game", "seat_view", "state_from_view", "swap_move",
    "swap_text",
]
