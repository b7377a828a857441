"""duel.engine: the rules of 7 Wonders Duel, pure and seeded.

Typical use::

    from duel.engine import new_game
    state = new_game(seed=7)
    move = state.legal_moves()[0]
    state = state.apply(move)          # a new state; the old one is untouched
    view = seat_view(state, as_player2=2)
"""

from __future__ import annotations

import hashlib
import json
import random

from .data import CARD_IDS, CARD_NAMES, CARDS, TOKEN_NAMES, WONDER_NAMES, WONDERS
from .deal import Deal
from .infoset import InfoSet, state_from_view
from .moves import (
    DuelError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    Move,
    relabel_move,
    relabel_text,
)
from .state import GAME_END, STEP_NAMES, GameState
from .view import seat_view

# Bumped whenever a view or a rule changes, so that replaying an older transcript explains
# its mismatch. 2: the wonders out of the game show from the draft's round 2.
RULES_VERSION = "2"
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"


def new_game(seed: int | None = None, *, rng: random.Random | None = None,
             deal: Deal | None = None, open_box: bool = True, code: str | None = None
             ) -> GameState:
    """A new game at the wonder draft. The deal comes from `deal`, else is drawn from `rng` (or
    `random.Random(seed)`). The same seed always gives the same deal and game code."""
    if deal is None:
        if rng is None:
            rng = random.Random(seed)
        deal = Deal.random(rng)
    if code is None:
        code = deal_code(deal)
    return GameState(deal, open_box=open_box, code=code)


def deal_code(deal: Deal) -> str:
    """The game code: 8 characters that depend on the deal only, so a replay shows the same."""
    digest = hashlib.sha256(json.dumps(deal.to_json(), sort_keys=True).encode()).digest()
    return "".join(_CODE_ALPHABET[b % len(_CODE_ALPHABET)] for b in digest[:8])


def replay(deal: Deal, moves: list[Move], open_box: bool = True) -> GameState:
    """The state after playing `moves` from `deal`, each checked for legality."""
    state = new_game(deal=deal, open_box=open_box)
    for i, move in enumerate(moves):
        try:
            state = state.apply(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i + 1} ({move}): {exc}") from exc
    return state


__all__ = [
    "CARDS", "CARD_IDS", "CARD_NAMES", "WONDERS", "WONDER_NAMES", "TOKEN_NAMES", "Deal",
    "DuelError", "GAME_END", "GameState", "IllegalMoveError", "InfoSet", "InvalidMoveError",
    "InvalidStateError", "Move", "RULES_VERSION", "STEP_NAMES", "deal_code", "new_game",
    "relabel_move", "relabel_text", "replay", "seat_view", "state_from_view",
]
