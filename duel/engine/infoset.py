"""Information sets: what a prompt-format JSON state tells, and complete states consistent with it.

`InfoSet.from_view(view)` is the one state loader: every entry point (the CLI's `duel moves` and
`duel apply`, the server's `POST /agents/move`, the agents) reads a state through it, whichever
server wrote it. `sample(rng)` deals the unseen cards, the unseen tokens and the unrevealed wonders
at random among those not yet seen, so a search can run from any view. Seats keep the view's
labels.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from . import reader
from .data import (
    AGE1_CARDS,
    AGE2_CARDS,
    AGE3_CARDS,
    CARDS,
    GUILD_CARDS,
    PURPLE,
    TOKEN_NAMES,
    WONDERS,
)
from .deal import Deal
from .draws import shuffle
from .moves import InvalidStateError
from .pricing import PriceBook
from .state import GameState
from .steps import ALL_LOOT, PREV_AS_WRITTEN, WONDER_SELECTION

_ALL_TOKENS = frozenset(range(len(TOKEN_NAMES)))
_ALL_WONDERS = frozenset(range(len(WONDERS)))
_AGE_CARDS = (AGE1_CARDS, AGE2_CARDS, AGE3_CARDS)
# The template's deal until sample() deals the hidden parts.
_NO_DEAL = Deal((), (), (), (), (), (), (), (), (), (), ())


@dataclass(frozen=True, slots=True)
class InfoSet:
    """The facts a JSON state fixes (`template`), plus the pools the hidden parts come from."""

    template: GameState  # the view's facts; hidden slots empty, no deal
    hidden_slots: tuple[tuple[int, bool], ...]  # face-down slots: (slot, guild back?)
    age_pools: tuple[tuple[int, ...], ...]  # unseen cards of Ages I, II, III (guilds apart)
    guild_pool: tuple[int, ...]  # unseen guilds
    box_pool: tuple[int, ...]  # the tokens the box may hold
    wonder_pool: tuple[int, ...]  # wonders not seen: round 2 of the draft, or out of the game

    @staticmethod
    def from_view(view: Any) -> InfoSet:
        """Read a prompt-format state. Raises InvalidStateError naming what is inconsistent."""
        try:
            return _read(view)
        except InvalidStateError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise InvalidStateError(f"malformed state: {exc!r}") from exc

    def sample(self, rng: random.Random) -> GameState:
        """A complete state consistent with the view; hidden parts drawn uniformly with `rng`."""
        t = self.template
        s = t.clone()
        age = t.age
        pools = {a: list(self.age_pools[a - 1]) for a in (1, 2, 3)}
        guilds = list(self.guild_pool)
        shuffle(rng, guilds)
        for a in (1, 2, 3):
            shuffle(rng, pools[a])
        # Current age: fill the face-down slots.
        if t.step != WONDER_SELECTION:
            for slot, is_guild in self.hidden_slots:
                s.pyramid[slot] = guilds.pop() if is_guild else pools[age].pop()
        layouts: dict[int, tuple[int, ...]] = {}
        removed: dict[int, tuple[int, ...]] = {}
        first_future = 1 if t.step == WONDER_SELECTION else age + 1
        for a in range(1, 4):
            if a < first_future:
                layouts[a] = tuple(s.pyramid) if a == age else ()
                removed[a] = ()
                continue
            if a < 3:
                layouts[a] = tuple(pools[a][:20])
                removed[a] = tuple(pools[a][20:])
            else:
                cards = pools[3][:17] + guilds[:3]
                shuffle(rng, cards)
                layouts[a] = tuple(cards)
                removed[a] = tuple(pools[3][17:])
                guilds = guilds[3:]
        box = list(self.box_pool)
        shuffle(rng, box)
        s.tokens_box = box
        # Wonders not seen: round 2 of the draft (when still to come) and those out of the game.
        unseen = list(self.wonder_pool)
        shuffle(rng, unseen)
        known_out = [w for w in range(12) if w not in unseen and w not in t.wonders_available
                     and w not in s.players[0].wonders and w not in s.players[1].wonders]
        round1 = (list(t.wonders_available) + [-1, -1, -1, -1])[:4]
        if t.step == WONDER_SELECTION and t.draft_pick < 4:
            round2 = unseen[:4]
            out = known_out + unseen[4:]
        else:
            round2 = [-1, -1, -1, -1]
            out = known_out + unseen
        s.deal = Deal(
            wonder_draft=tuple(round1 + round2), wonders_out=tuple(w for w in out
                                                                    if w not in t.wonders_removed),
            tokens_board=tuple(t.tokens_board), tokens_box=tuple(box),
            age1=layouts[1], age2=layouts[2], age3=layouts[3],
            removed1=removed[1], removed2=removed[2], removed3=removed[3],
            removed_guilds=tuple(guilds),
        )
        if t.step == WONDER_SELECTION:
            s.lay_out(1)
        return s


def _read(view: Any) -> InfoSet:
    """The readers of `reader`, part by part, then the template and the pools."""
    step, age, current = reader.read_header(view)
    players = reader.read_players(view)
    military = reader.read_military(view)
    discard = reader.read_discard(view)
    tokens = reader.read_tokens(view, players, step)
    wonders = reader.read_wonders(view, players, step, current)
    structure = reader.read_structure(view, step, age)
    seen = reader.check_cards(players, discard, structure, step, age)
    reader.check_choice(step, current, players, tokens, discard)
    ending = reader.read_ending(view, step, military.position, players)
    previous_move = reader.read_previous_move(view)
    code = view.get("code", "DUEL")
    open_box = tokens.open_box or len(wonders.out) >= 4

    seen_set = set(seen)
    age_pools = tuple(tuple(c for c in cards if c not in seen_set) for cards in _AGE_CARDS)
    guild_pool = tuple(c for c in GUILD_CARDS if c not in seen_set)
    n_guild_backs = sum(1 for _, guild in structure.hidden if guild)
    if age == 3 and sum(1 for c in seen_set if CARDS[c].color == PURPLE) + n_guild_backs > 3:
        raise InvalidStateError("visiblePyramid: more than 3 guilds in the Age III deck")
    if len(structure.hidden) - n_guild_backs > len(age_pools[age - 1]) or \
            n_guild_backs > len(guild_pool):
        raise InvalidStateError("visiblePyramid: more face-down cards than unseen cards of "
                                "that Age")
    # Token box: known in open-box mode, else every token seen nowhere.
    owned_tokens = players[0].token_list + players[1].token_list
    box_pool = tuple(tokens.box) if open_box else tuple(sorted(
        _ALL_TOKENS - set(owned_tokens) - set(tokens.board) - set(tokens.library)))
    owned_wonders = players[0].wonders + players[1].wonders
    wonder_pool = tuple(sorted(_ALL_WONDERS - set(owned_wonders) - set(wonders.available)
                               - set(wonders.out)))
    if step == WONDER_SELECTION and wonders.draft_pick < 4 and len(wonder_pool) < 4:
        raise InvalidStateError("wondersUnavailable: too few unseen wonders left for round 2 of "
                                "the draft")

    template = GameState(
        deal=_NO_DEAL, open_box=open_box,
        given_code=code if isinstance(code, str) and code else "DUEL",
        prices=PriceBook(), step=step, age=age, current=current, players=players,
        military=military.position, loot=military.loot & ALL_LOOT, pyramid=structure.pyramid,
        face_up=structure.face_up, cover=structure.cover, accessible=structure.accessible,
        remaining=bin(structure.present).count("1"), discard=discard, tokens_board=tokens.board,
        tokens_box=[], library=tokens.library, wonders_available=wonders.available,
        draft_pick=wonders.draft_pick, wonders_built=wonders.built,
        wonders_removed=wonders.removed,
        play_again=reader.pending_play_again(step, players[current], previous_move),
        last_player=current, winner=ending.winner, victory=ending.victory,
        # Kept as the view wrote it, so that a sample renders the same previousMove,
        # relabelled for the other seat.
        prev=(PREV_AS_WRITTEN, previous_move, -1, ()), ply=0,
        first=wonders.first if step == WONDER_SELECTION else 0)
    return InfoSet(template, tuple(structure.hidden), age_pools, guild_pool, box_pool,
                   wonder_pool)


def state_from_view(view: Any, rng: random.Random) -> GameState:
    """One complete state consistent with `view` (see InfoSet.sample)."""
    return InfoSet.from_view(view).sample(rng)
