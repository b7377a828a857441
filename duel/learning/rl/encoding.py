"""Fixed-size encodings for learning agents: the observation (a seat's view only) and the action
space (every move the prompt's format can name).

Both are read in the seat's own labels: the seat is ``player2`` in its view (as for an LLM), so
one network plays either seat. The observation is computed from the view (the prompt's JSON
state) and the public state rebuilt from it, never from the true state, so no hidden card can
leak into it. Derived figures (production, science symbols, what each open card would cost
either player) are included because they are public and expensive to learn.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any, Final

import numpy as np

from duel.agents.rule_based import preferences
from duel.engine import CARD_IDS, CARD_NAMES, TOKEN_NAMES, WONDER_NAMES, GameState, InfoSet, Move
from duel.engine.data import BACK_NAMES, CARDS, WONDER_IDS
from duel.engine.moves import MoveKind
from duel.engine.steps import STEP_IDS, STEP_NAMES
from duel.errors import InvalidMoveError

SLOTS: Final = 20
N_CARDS: Final = len(CARD_NAMES)
N_WONDERS: Final = len(WONDER_NAMES)
N_TOKENS: Final = len(TOKEN_NAMES)

# Action layout: contiguous blocks, one per move kind.
A_BUILD: Final = 0
A_DISCARD: Final = A_BUILD + SLOTS
A_WONDER: Final = A_DISCARD + SLOTS  # slot * N_WONDERS + wonder
A_SELECT: Final = A_WONDER + SLOTS * N_WONDERS
A_TOKEN: Final = A_SELECT + N_WONDERS
A_LIBRARY: Final = A_TOKEN + N_TOKENS
A_DESTROY: Final = A_LIBRARY + N_TOKENS
A_FROM_DISCARD: Final = A_DESTROY + N_CARDS
A_START: Final = A_FROM_DISCARD + N_CARDS  # + player number - 1
N_ACTIONS: Final = A_START + 2

TOKEN_INDEX: Final = {n: i for i, n in enumerate(TOKEN_NAMES)}


def action_of(move: Move) -> int:
    """The action number of a move (in the seat's labels)."""
    k = move.kind
    if k == MoveKind.CONSTRUCT_BUILDING:
        return A_BUILD + move.card_index
    if k == MoveKind.DISCARD:
        return A_DISCARD + move.card_index
    if k == MoveKind.CONSTRUCT_WONDER:
        return A_WONDER + move.card_index * N_WONDERS + WONDER_IDS[move.wonder]
    if k == MoveKind.SELECT_WONDER:
        return A_SELECT + WONDER_IDS[move.wonder]
    if k == MoveKind.CHOOSE_PROGRESS_TOKEN:
        return A_TOKEN + TOKEN_INDEX[move.token]
    if k == MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD:
        return A_LIBRARY + TOKEN_INDEX[move.token]
    if k == MoveKind.DESTROY_CARD:
        return A_DESTROY + CARD_IDS[move.card_name]
    if k == MoveKind.CONSTRUCT_FROM_DISCARD:
        return A_FROM_DISCARD + CARD_IDS[move.card_name]
    if k == MoveKind.CHOOSE_STARTING_PLAYER:
        return A_START + move.player_number - 1
    raise InvalidMoveError(f"no action for move kind {k!r}")


def _decode(a: int) -> Move:
    if a < A_DISCARD:
        return Move(MoveKind.CONSTRUCT_BUILDING, card_index=a - A_BUILD)
    if a < A_WONDER:
        return Move(MoveKind.DISCARD, card_index=a - A_DISCARD)
    if a < A_SELECT:
        slot, w = divmod(a - A_WONDER, N_WONDERS)
        return Move(MoveKind.CONSTRUCT_WONDER, card_index=slot, wonder=WONDER_NAMES[w])
    if a < A_TOKEN:
        return Move(MoveKind.SELECT_WONDER, wonder=WONDER_NAMES[a - A_SELECT])
    if a < A_LIBRARY:
        return Move(MoveKind.CHOOSE_PROGRESS_TOKEN, token=TOKEN_NAMES[a - A_TOKEN])
    if a < A_DESTROY:
        return Move(MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD, token=TOKEN_NAMES[a - A_LIBRARY])
    if a < A_FROM_DISCARD:
        return Move(MoveKind.DESTROY_CARD, card_name=CARD_NAMES[a - A_DESTROY])
    if a < A_START:
        return Move(MoveKind.CONSTRUCT_FROM_DISCARD, card_name=CARD_NAMES[a - A_FROM_DISCARD])
    return Move(MoveKind.CHOOSE_STARTING_PLAYER, player_number=a - A_START + 1)


MOVES: Final = tuple(_decode(a) for a in range(N_ACTIONS))


def move_of(action: int) -> Move:
    """The move an action number stands for (in the seat's labels)."""
    if not 0 <= action < N_ACTIONS:
        raise InvalidMoveError(f"action {action} is outside 0..{N_ACTIONS - 1}")
    return MOVES[action]


def action_mask(moves: Iterable[Move]) -> np.ndarray:
    """1 for each action that is one of `moves`, else 0 (int8, shape (N_ACTIONS,))."""
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for m in moves:
        mask[action_of(m)] = 1
    return mask


# ---------------------------------------------------------------------------- observation
# Per slot: present, face up, active, card identity (cards, then the four backs), what the card
# does (so the network can generalise across cards), and the price of the open card for the
# seat and for its opponent.
CARD_ATTRS: Final = 7 + 6 + 5 + 2 + 5 + 4
SLOT_FEATURES: Final = 3 + N_CARDS + len(BACK_NAMES) + CARD_ATTRS + 2
BACK_INDEX: Final = {n: N_CARDS + i for i, n in enumerate(BACK_NAMES)}
# Per player: coins, production (5), wild raw/manufactured, discount (5), colour counts (7),
# symbols owned (7) and paired (7), tokens, cards, wonders owned / built, wonder prices,
# current score.
PLAYER_FEATURES: Final = 1 + 5 + 2 + 5 + 7 + 7 + 7 + N_TOKENS + N_CARDS + 3 * N_WONDERS + 1
GLOBAL_FEATURES: Final = (3 + len(STEP_NAMES) + 1 + 19 + 4 + 3 * N_TOKENS + 2 * N_WONDERS
                          + N_CARDS + 1)
# Scales that bring counts near [0, 1] (the environments derive their bounds from them).
COIN_SCALE: Final = 10.0
PROD_SCALE: Final = 3.0
COLOR_SCALE: Final = 5.0
SCORE_SCALE: Final = 50.0
DISCARD_SCALE: Final = 10.0
SLOTS_START: Final = GLOBAL_FEATURES + 2 * PLAYER_FEATURES  # then the structure
PRIOR_START: Final = SLOTS_START + SLOTS * SLOT_FEATURES  # then one prior value per action
OBS_SIZE: Final = PRIOR_START + N_ACTIONS
PRICE_SCALE: Final = 10.0
# Points of the rule agent's evaluation that make an action's prior 1 (as bad as not legal).
PRIOR_SCALE: Final = 10.0


def _card_vector(card: int) -> np.ndarray:
    c = CARDS[card]
    v = np.zeros(CARD_ATTRS, dtype=np.float32)
    v[c.color] = 1.0
    if 0 <= c.symbol < 6:
        v[7 + c.symbol] = 1.0
    for r in range(5):
        v[13 + r] = c.produces[r] / 2.0
    v[18] = 1.0 if c.wild == 1 else 0.0
    v[19] = 1.0 if c.wild == 2 else 0.0
    for r in range(5):
        v[20 + r] = 1.0 if c.discount_mask >> r & 1 else 0.0
    v[25] = c.vp / 7.0
    v[26] = c.shields / 3.0
    v[27] = (c.instant_coins + c.gain_amount) / 6.0
    v[28] = 1.0 if c.guild_kind else 0.0
    return v


CARD_VECTORS: Final = tuple(_card_vector(c) for c in range(N_CARDS))


def _many_hot(out: np.ndarray, i: int, names: list[str], index: dict[str, int],
              size: int) -> int:
    """Mark each named thing in the block of `size` slots starting at `i`; the next block's
    start."""
    for name in names:
        out[i + index[name]] = 1.0
    return i + size


def encode_view(view: dict[str, Any]) -> np.ndarray:
    """The observation of a view (float32, shape (OBS_SIZE,)). The seat the view is for is the
    one to move or, at the end, the view's player2; features are ordered "player2 then player1"
    so the network always reads itself first. Raises InvalidStateError on a malformed view."""
    info = InfoSet.from_view(view)
    st = info.template
    # A fixed sample: the rule agent's judgement reads public facts only, and the sample
    # depends on the view alone, so twin states give twin observations.
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    _encode_prior(out, view, info.sample(random.Random(0)))
    i = 0
    # Age, step, whose turn.
    out[i + st.age - 1] = 1.0
    i += 3
    out[i + STEP_IDS[view["step"]]] = 1.0
    i += len(STEP_NAMES)
    out[i] = 1.0 if view["currentPlayerNumber"] == 2 else 0.0
    i += 1
    # Military: position from player2's side (> 0 means player2 leads), one-hot and loot.
    mil = view["military"]
    pos = -int(mil["militaryPosition"])
    out[i + pos + 9] = 1.0
    i += 19
    for key in ("loot2Player2Available", "loot5Player2Available", "loot2Player1Available",
                "loot5Player1Available"):
        out[i] = 1.0 if mil[key] else 0.0
        i += 1
    i = _many_hot(out, i, view["tokensAvailable"], TOKEN_INDEX, N_TOKENS)
    i = _many_hot(out, i, view["tokensFromUnavailable"], TOKEN_INDEX, N_TOKENS)
    # The box: the Great Library's draw pool (known with the open box).
    i = _many_hot(out, i, view["tokensUnavailable"], TOKEN_INDEX, N_TOKENS)
    i = _many_hot(out, i, view["wondersAvailable"], WONDER_IDS, N_WONDERS)
    # Out of the game: the draft's second round (open box) and the wonder lost to the 7th.
    i = _many_hot(out, i, view["wondersUnavailable"], WONDER_IDS, N_WONDERS)
    i = _many_hot(out, i, view["discardedCards"], CARD_IDS, N_CARDS)
    out[i] = len(view["discardedCards"]) / DISCARD_SCALE
    i += 1
    # Players: player2 (the seat) first.
    for seat in (1, 0):
        i = _encode_player(out, i, st, seat)
    # The structure.
    pyramid = view["visiblePyramid"]
    for slot in range(SLOTS):
        entry = pyramid.get(str(slot))
        if entry is not None:
            name = entry["cardName"]
            out[i] = 1.0
            back = BACK_INDEX.get(name)
            if back is None:
                card = CARD_IDS[name]
                out[i + 1] = 1.0
                out[i + 3 + card] = 1.0
                out[i + 3 + N_CARDS + len(BACK_NAMES):i + SLOT_FEATURES - 2] = CARD_VECTORS[card]
                out[i + SLOT_FEATURES - 2] = st.card_price(1, card) / PRICE_SCALE
                out[i + SLOT_FEATURES - 1] = st.card_price(0, card) / PRICE_SCALE
            else:
                out[i + 3 + back] = 1.0
            out[i + 2] = 1.0 if entry["isActive"] else 0.0
        i += SLOT_FEATURES
    assert i == PRIOR_START
    return out


def _encode_prior(out: np.ndarray, view: dict[str, Any], state: GameState) -> None:
    """The last N_ACTIONS features: for each action, how far the rule agent's judgement puts it
    below its own pick, 0 (its pick) to 1 (PRIOR_SCALE points worse, a lower priority, or not
    legal). A hand-made evaluation is public and cheap for us, and costly for a network to
    learn from a few thousand games: the network starts from it and learns where to differ."""
    prior = out[PRIOR_START:]
    prior[:] = 1.0
    if view["step"] == "GAME_END" or view["currentPlayerNumber"] != 2:
        return  # not this seat's turn: no action of its own is legal
    moves = state.legal_moves()
    scores, _, _ = preferences(state, moves)
    best = max(scores.values())
    for move, score in scores.items():
        prior[action_of(move)] = min(1.0, (best - score) / PRIOR_SCALE)


def _encode_player(out: np.ndarray, i: int, st: Any, seat: int) -> int:
    p = st.players[seat]
    out[i] = p.coins / COIN_SCALE
    i += 1
    for r in range(5):
        out[i + r] = p.prod[r] / PROD_SCALE
    i += 5
    out[i] = float(p.wild_raw)
    out[i + 1] = float(p.wild_man)
    i += 2
    for r in range(5):
        out[i + r] = 1.0 if p.discount >> r & 1 else 0.0
    i += 5
    for c in range(7):
        out[i + c] = p.color_count[c] / COLOR_SCALE
    i += 7
    for s in range(7):
        out[i + s] = 1.0 if p.sym1 >> s & 1 else 0.0
        out[i + 7 + s] = 1.0 if p.sym2 >> s & 1 else 0.0
    i += 14
    for t in range(N_TOKENS):
        out[i + t] = 1.0 if p.tokens >> t & 1 else 0.0
    i += N_TOKENS
    for card in p.cards:
        out[i + card] = 1.0
    i += N_CARDS
    removed = st.wonders_removed
    for w, age in zip(p.wonders, p.wonder_age, strict=True):
        if w in removed:
            continue
        out[i + w] = 1.0
        if age:
            out[i + N_WONDERS + w] = 1.0
        else:
            out[i + 2 * N_WONDERS + w] = st.wonder_price(seat, w) / PRICE_SCALE
    i += 3 * N_WONDERS
    out[i] = st.score(seat)["TOTAL"] / SCORE_SCALE
    return i + 1

