"""What the guide's network reads: a position from the side of the player to move, public facts
only, as a sparse feature vector; and where each legal move's logit sits in its policy output.

`encode(state)` reads a *complete* state (a search's sample of the hidden cards) but only the
fields both players see: face-down cards count only by their back (an Age's back, or a guild's
in Age III), the box's tokens only as a set and only with the open box, the draft's second round
not at all, the Age I structure not during the draft (the view shows none). So every sample of
one information set encodes alike (tests check it with twin states), and so does the view: the
agent encodes ``InfoSet.from_view(view).sample(...)``.

Features are (index, value) pairs, most of them 1.0: the network's first layer is then a sum of
a few hundred weight rows (duel.agents.guided.runtime), not a product with a dense vector of
:data:`N_FEATURES`. Everything is relative to the mover ("me" first, then the opponent), so one
network plays either seat.

The policy is indexed by card, not by slot: "build card X" is one output wherever X lies, so
what is learnt about a card holds in every slot. A wonder built with a card is the sum of the
wonder's output and the card's "bury" output. `move_slots` gives each move's one or two indices.
Pure Python with typed ints (mypyc compiles it with the engine: duel/build.py).
"""

from __future__ import annotations

from typing import Final

from duel.engine.data import CARD_IDS, CARDS, N_CARDS, PURPLE, TOKEN_IDS, WONDER_IDS, WONDERS
from duel.engine.moves import Move, MoveKind
from duel.engine.state import GameState
from duel.engine.steps import LOOT2_P1, LOOT2_P2, LOOT5_P1, LOOT5_P2, WONDER_SELECTION
from duel.errors import InvalidMoveError

# Bump when the layout below changes: a model records the version it was trained on.
FEATURES_VERSION: Final = 1

N_WONDERS: Final = len(WONDERS)
N_TOKENS: Final = 10
N_STEPS: Final = 9
MAX_COINS: Final = 20  # coins one-hot up to this many (more count as this many)

# ---------------------------------------------------------------------------- the layout
# Global block.
F_AGE: Final = 0  # 3
F_STEP: Final = F_AGE + 3  # 9
F_MILITARY: Final = F_STEP + N_STEPS  # 19: the pawn from my side, -9..9
F_LOOT: Final = F_MILITARY + 19  # 4: my 2 and 5 loot tokens still on the board, then theirs
F_BOARD_TOKENS: Final = F_LOOT + 4  # 10
F_BOX_TOKENS: Final = F_BOARD_TOKENS + N_TOKENS  # 10 (open box only)
F_LIBRARY: Final = F_BOX_TOKENS + N_TOKENS  # 10: the Great Library's draw, during its choice
F_DRAFT: Final = F_LIBRARY + N_TOKENS  # 12: wonders on offer in the draft
F_DRAFT_PICK: Final = F_DRAFT + N_WONDERS  # 9: picks made
F_DISCARD: Final = F_DRAFT_PICK + 9  # N_CARDS: the discard pile
F_DISCARD_COUNT: Final = F_DISCARD + N_CARDS  # 1
F_PLAY_AGAIN: Final = F_DISCARD_COUNT + 1  # 1
F_WONDERS_BUILT: Final = F_PLAY_AGAIN + 1  # 8: wonders built in the game, 0..7
F_STRUCTURE_LEFT: Final = F_WONDERS_BUILT + 8  # 1: cards left in the structure / 20
GLOBAL_END: Final = F_STRUCTURE_LEFT + 1

# Per player, "me" then "them".
P_COINS: Final = 0  # 1: coins / 10
P_COINS_HOT: Final = 1  # MAX_COINS + 1
P_PROD: Final = P_COINS_HOT + MAX_COINS + 1  # 5: production / 3
P_WILD: Final = P_PROD + 5  # 2
P_DISCOUNT: Final = P_WILD + 2  # 5
P_COLORS: Final = P_DISCOUNT + 5  # 7: cards of each colour / 5
P_SYM1: Final = P_COLORS + 7  # 7
P_SYM2: Final = P_SYM1 + 7  # 7
P_SCIENCE: Final = P_SYM2 + 7  # 7: distinct symbols, one-hot 0..6
P_TOKENS: Final = P_SCIENCE + 7  # 10
P_CARDS: Final = P_TOKENS + N_TOKENS  # N_CARDS
P_WONDER_OWNED: Final = P_CARDS + N_CARDS  # 12: drafted, not built, still in the game
P_WONDER_BUILT: Final = P_WONDER_OWNED + N_WONDERS  # 12
P_WONDER_PRICE: Final = P_WONDER_BUILT + N_WONDERS  # 12: price / 10 of an unbuilt one
P_WONDER_AFFORD: Final = P_WONDER_PRICE + N_WONDERS  # 12: its price is within my coins
P_SCORE: Final = P_WONDER_AFFORD + N_WONDERS  # 1: points / 50
P_SIZE: Final = P_SCORE + 1
F_ME: Final = GLOBAL_END
F_THEM: Final = F_ME + P_SIZE

# The structure: per slot, then per card.
F_SLOTS: Final = F_THEM + P_SIZE
S_PRESENT: Final = 0
S_ACCESSIBLE: Final = 1
S_BACK: Final = 2  # 4: face down, an Age I/II/III back or a guild's
S_COLOR: Final = S_BACK + 4  # 7: face up, the card's colour
S_SIZE: Final = S_COLOR + 7
F_CARDS_OPEN: Final = F_SLOTS + 20 * S_SIZE  # N_CARDS: face up and accessible
F_CARDS_COVERED: Final = F_CARDS_OPEN + N_CARDS  # N_CARDS: face up, still covered
F_PRICE_ME: Final = F_CARDS_COVERED + N_CARDS  # N_CARDS: price / 10 of a face-up card, for me
F_PRICE_THEM: Final = F_PRICE_ME + N_CARDS  # N_CARDS: ... for them
F_AFFORD_ME: Final = F_PRICE_THEM + N_CARDS  # N_CARDS: accessible and within my coins
N_FEATURES: Final = F_AFFORD_ME + N_CARDS

# ---------------------------------------------------------------------------- the policy
A_BUILD: Final = 0  # N_CARDS: build card c
A_DISCARD: Final = A_BUILD + N_CARDS  # N_CARDS: discard card c
A_WONDER: Final = A_DISCARD + N_CARDS  # 12: build wonder w (plus the buried card's A_BURY)
A_BURY: Final = A_WONDER + N_WONDERS  # N_CARDS: card c put under a wonder
A_SELECT: Final = A_BURY + N_CARDS  # 12: draft wonder w
A_TOKEN: Final = A_SELECT + N_WONDERS  # 10
A_LIBRARY: Final = A_TOKEN + N_TOKENS  # 10
A_DESTROY: Final = A_LIBRARY + N_TOKENS  # N_CARDS
A_FROM_DISCARD: Final = A_DESTROY + N_CARDS  # N_CARDS
A_START: Final = A_FROM_DISCARD + N_CARDS  # 2: I start, they start
N_POLICY: Final = A_START + 2

_BACK_OF_AGE: Final = (0, 1, 2)
_GUILD_BACK: Final = 3


def encode(state: GameState, idx: list[int], val: list[float]) -> None:
    """Append the features of `state` (from the side of the player to move) to `idx`/`val`."""
    me = state.current
    them = 1 - me
    step = state.step
    draft = step == WONDER_SELECTION
    _add(idx, val, F_AGE + state.age - 1, 1.0)
    _add(idx, val, F_STEP + step, 1.0)
    pawn = state.military if me == 0 else -state.military
    _add(idx, val, F_MILITARY + pawn + 9, 1.0)
    loot = state.loot
    # My loot tokens are the ones I lose coins to (the pawn advancing towards me).
    mine2, mine5, theirs2, theirs5 = ((LOOT2_P1, LOOT5_P1, LOOT2_P2, LOOT5_P2) if me == 0
                                      else (LOOT2_P2, LOOT5_P2, LOOT2_P1, LOOT5_P1))
    if loot & mine2:
        _add(idx, val, F_LOOT, 1.0)
    if loot & mine5:
        _add(idx, val, F_LOOT + 1, 1.0)
    if loot & theirs2:
        _add(idx, val, F_LOOT + 2, 1.0)
    if loot & theirs5:
        _add(idx, val, F_LOOT + 3, 1.0)
    for t in state.tokens_board:
        _add(idx, val, F_BOARD_TOKENS + t, 1.0)
    if state.open_box:
        box = 0  # a set: the box's order (the Great Library's draws) is hidden
        for t in state.tokens_box:
            box |= 1 << t
        for t in range(N_TOKENS):
            if (box >> t) & 1:
                _add(idx, val, F_BOX_TOKENS + t, 1.0)
    for t in state.library:
        _add(idx, val, F_LIBRARY + t, 1.0)
    if draft:
        for w in state.wonders_available:
            _add(idx, val, F_DRAFT + w, 1.0)
        _add(idx, val, F_DRAFT_PICK + state.draft_pick, 1.0)
    for c in state.discard:
        _add(idx, val, F_DISCARD + c, 1.0)
    if state.discard:
        _add(idx, val, F_DISCARD_COUNT, len(state.discard) / 10.0)
    if state.play_again:
        _add(idx, val, F_PLAY_AGAIN, 1.0)
    _add(idx, val, F_WONDERS_BUILT + state.wonders_built, 1.0)
    _player(state, me, F_ME, idx, val)
    _player(state, them, F_THEM, idx, val)
    if draft:
        return  # the Age I structure is laid out but not shown during the draft
    _add(idx, val, F_STRUCTURE_LEFT, state.remaining / 20.0)
    pyramid = state.pyramid
    face_up = state.face_up
    accessible = state.accessible
    coins = state.players[me].coins
    age_back = _BACK_OF_AGE[state.age - 1]
    for slot in range(20):
        card = pyramid[slot]
        if card < 0:
            continue
        base = F_SLOTS + slot * S_SIZE
        _add(idx, val, base + S_PRESENT, 1.0)
        open_ = (accessible >> slot) & 1
        if open_:
            _add(idx, val, base + S_ACCESSIBLE, 1.0)
        if not (face_up >> slot) & 1:
            is_guild = CARDS[card].color == PURPLE  # the guild back shows
            _add(idx, val, base + S_BACK + (_GUILD_BACK if is_guild else age_back), 1.0)
            continue
        _add(idx, val, base + S_COLOR + CARDS[card].color, 1.0)
        mine = state.card_price(me, card)
        _add(idx, val, F_PRICE_ME + card, mine / 10.0 + 0.05)
        _add(idx, val, F_PRICE_THEM + card, state.card_price(them, card) / 10.0 + 0.05)
        if open_:
            _add(idx, val, F_CARDS_OPEN + card, 1.0)
            if mine <= coins:
                _add(idx, val, F_AFFORD_ME + card, 1.0)
        else:
            _add(idx, val, F_CARDS_COVERED + card, 1.0)


def _add(idx: list[int], val: list[float], i: int, v: float) -> None:
    idx.append(i)
    val.append(v)


def _player(state: GameState, seat: int, base: int, idx: list[int], val: list[float]) -> None:
    p = state.players[seat]
    coins = p.coins
    _add(idx, val, base + P_COINS, coins / 10.0)
    _add(idx, val, base + P_COINS_HOT + min(coins, MAX_COINS), 1.0)
    prod = p.prod
    for r in range(5):
        if prod[r]:
            _add(idx, val, base + P_PROD + r, prod[r] / 3.0)
    if p.wild_raw:
        _add(idx, val, base + P_WILD, float(p.wild_raw))
    if p.wild_man:
        _add(idx, val, base + P_WILD + 1, float(p.wild_man))
    for r in range(5):
        if (p.discount >> r) & 1:
            _add(idx, val, base + P_DISCOUNT + r, 1.0)
    for c in range(7):
        if p.color_count[c]:
            _add(idx, val, base + P_COLORS + c, p.color_count[c] / 5.0)
    n_sym = 0
    for s in range(7):
        if (p.sym1 >> s) & 1:
            _add(idx, val, base + P_SYM1 + s, 1.0)
            n_sym += 1
        if (p.sym2 >> s) & 1:
            _add(idx, val, base + P_SYM2 + s, 1.0)
    _add(idx, val, base + P_SCIENCE + min(n_sym, 6), 1.0)
    for t in range(N_TOKENS):
        if (p.tokens >> t) & 1:
            _add(idx, val, base + P_TOKENS + t, 1.0)
    built = p.built  # by id: the view groups a city's cards by colour, not in the order built
    while built:
        low = built & -built
        _add(idx, val, base + P_CARDS + low.bit_length() - 1, 1.0)
        built ^= low
    removed = state.wonders_removed
    wonders = p.wonders
    ages = p.wonder_age
    for i in range(len(wonders)):
        w = wonders[i]
        if ages[i]:
            _add(idx, val, base + P_WONDER_BUILT + w, 1.0)
        elif w not in removed:
            _add(idx, val, base + P_WONDER_OWNED + w, 1.0)
            if state.step != WONDER_SELECTION:
                price = state.wonder_price(seat, w)
                _add(idx, val, base + P_WONDER_PRICE + w, price / 10.0 + 0.05)
                if price <= coins:
                    _add(idx, val, base + P_WONDER_AFFORD + w, 1.0)
    _add(idx, val, base + P_SCORE, state.score(seat)["TOTAL"] / 50.0)


def move_slots(state: GameState, move: Move) -> tuple[int, int]:
    """The policy outputs whose sum is `move`'s logit in `state` (the second -1 if none)."""
    kind = move.kind
    if kind is MoveKind.CONSTRUCT_BUILDING:
        return A_BUILD + state.pyramid[move.card_index], -1
    if kind is MoveKind.DISCARD:
        return A_DISCARD + state.pyramid[move.card_index], -1
    if kind is MoveKind.CONSTRUCT_WONDER:
        return A_WONDER + WONDER_IDS[move.wonder], A_BURY + state.pyramid[move.card_index]
    if kind is MoveKind.SELECT_WONDER:
        return A_SELECT + WONDER_IDS[move.wonder], -1
    if kind is MoveKind.CHOOSE_PROGRESS_TOKEN:
        return A_TOKEN + TOKEN_IDS[move.token], -1
    if kind is MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD:
        return A_LIBRARY + TOKEN_IDS[move.token], -1
    if kind is MoveKind.DESTROY_CARD:
        return A_DESTROY + CARD_IDS[move.card_name], -1
    if kind is MoveKind.CONSTRUCT_FROM_DISCARD:
        return A_FROM_DISCARD + CARD_IDS[move.card_name], -1
    if kind is MoveKind.CHOOSE_STARTING_PLAYER:
        return A_START + (0 if move.player_number - 1 == state.current else 1), -1
    raise InvalidMoveError(f"no policy output for move kind {kind!r}")


def moves_slots(state: GameState, moves: list[Move]) -> list[int]:
    """`move_slots` of each move, flattened: two entries per move."""
    out: list[int] = []
    for m in moves:
        a, b = move_slots(state, m)
        out.append(a)
        out.append(b)
    return out
