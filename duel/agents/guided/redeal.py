"""A complete state's hidden parts dealt afresh, consistent with everything public in it.

The guided search stores one complete state per outcome of a capped chance node; a simulation
sent down that outcome continues from a copy of it whose hidden parts (the face-down cards of the
structure, the decks of later Ages, the box's order, the draft's second round) are shuffled
again, so that outcome's subtree sees every future, not the one of its first sample.

The pools are those of the information set's sampling (`duel.engine.infoset`): a card is unseen
unless it is in a city, in the discard pile or face up in the structure. The view does not
record the cards put under wonders, so they count as unseen there too, and here likewise, so a
redealt state is distributed as a fresh `InfoSet.sample` of its public facts.
"""

from __future__ import annotations

import random

from duel.engine.data import AGE1_CARDS, AGE2_CARDS, AGE3_CARDS, CARDS, GUILD_CARDS, PURPLE
from duel.engine.deal import Deal
from duel.engine.draws import shuffle
from duel.engine.state import GameState
from duel.engine.steps import WONDER_SELECTION

_AGE_CARDS = (AGE1_CARDS, AGE2_CARDS, AGE3_CARDS)


def redeal(state: GameState, rng: random.Random) -> GameState:
    """A copy of `state` with its hidden parts drawn afresh with `rng`."""
    s = state.clone()
    deal = s.deal
    draft = s.step == WONDER_SELECTION
    age = s.age
    seen = s.players[0].built | s.players[1].built
    for c in s.discard:
        seen |= 1 << c
    pyramid = s.pyramid
    up = s.face_up
    plain_slots: list[int] = []  # face down, an Age's back
    guild_slots: list[int] = []  # face down, a guild's back
    for slot in range(20):
        card = pyramid[slot]
        if card < 0:
            continue
        if not draft and (up >> slot) & 1:
            seen |= 1 << card
        elif CARDS[card].color == PURPLE:
            guild_slots.append(slot)
        else:
            plain_slots.append(slot)
    unseen = [c for c in _AGE_CARDS[age - 1] if not (seen >> c) & 1]
    guilds = [c for c in GUILD_CARDS if not (seen >> c) & 1]
    shuffle(rng, unseen)
    shuffle(rng, guilds)
    # The structure's face-down cards (all of Age I's during the draft).
    for slot in plain_slots:
        pyramid[slot] = unseen.pop()
    for slot in guild_slots:
        pyramid[slot] = guilds.pop()
    layouts: list[tuple[int, ...]] = [deal.age1, deal.age2, deal.age3]
    removed: list[tuple[int, ...]] = [deal.removed1, deal.removed2, deal.removed3]
    layouts[age - 1] = tuple(pyramid)
    removed[age - 1] = tuple(unseen)
    # The decks of later Ages, whole.
    for a in range(age + 1, 4):
        cards = list(_AGE_CARDS[a - 1])
        shuffle(rng, cards)
        if a == 2:
            layouts[1] = tuple(cards[:20])
            removed[1] = tuple(cards[20:])
        else:
            layout = cards[:17] + guilds[:3]
            shuffle(rng, layout)
            layouts[2] = tuple(layout)
            removed[2] = tuple(cards[17:])
            guilds = guilds[3:]
    shuffle(rng, s.tokens_box)
    draft_order = deal.wonder_draft
    out = deal.wonders_out
    if draft and s.draft_pick < 4:
        # Round 2's wonders and those out of the game are all unseen during round 1.
        pool = list(draft_order[4:]) + list(out)
        shuffle(rng, pool)
        draft_order = tuple(draft_order[:4]) + tuple(pool[:4])
        out = tuple(pool[4:])
    s.deal = Deal(draft_order, out, deal.tokens_board, tuple(s.tokens_box), layouts[0],
                  layouts[1], layouts[2], removed[0], removed[1], removed[2], tuple(guilds))
    return s
