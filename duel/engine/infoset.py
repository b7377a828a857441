"""Information sets: what a prompt-format JSON state tells, and complete states consistent with it.

`InfoSet.from_view(view)` reads any state in the prompt's format (ours or another server's) and
`sample(rng)` deals the unseen cards, the unseen tokens and the unrevealed wonders at random among
those not yet seen, so a search can run from any view. Seats keep the view's labels.
"""

from __future__ import annotations

import random
from typing import Any

from .data import (
    AGE1_CARDS,
    AGE2_CARDS,
    AGE3_CARDS,
    BACK_NAMES,
    BROWN,
    CARD_IDS,
    CARDS,
    COLOR_GROUP,
    GREY,
    GUILD_CARDS,
    LAW,
    PURPLE,
    SCALE,
    THEOLOGY,
    TOKEN_IDS,
    TOKEN_NAMES,
    WONDER_IDS,
    WONDERS,
)
from .deal import Deal
from .layout import COVERED_BY, N_SLOTS
from .moves import InvalidStateError
from .result import VICTORY_CIVILIAN, VICTORY_MILITARY, VICTORY_SCIENCE
from .state import (
    ALL_LOOT,
    CHOOSE_START,
    CHOOSE_TOKEN,
    DRAFT_ORDER,
    DRAW,
    GAME_END,
    LOOT2_P1,
    LOOT2_P2,
    LOOT5_P1,
    LOOT5_P2,
    NO_WINNER,
    PREV_AS_WRITTEN,
    STEP_IDS,
    WONDER_SELECTION,
    GameState,
    PlayerState,
)

_ALL_TOKENS = frozenset(range(len(TOKEN_NAMES)))
_ALL_WONDERS = frozenset(range(len(WONDERS)))
# Placeholder until sample() deals the hidden parts.
_EMPTY_DEAL = Deal((), (), (), (), (), (), (), (), (), (), ())


def _req(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise InvalidStateError(f"state {where} is missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidStateError(f"state {where}.{key} has the wrong type: {value!r}")
    return value


def _names(values: Any, table: dict[str, int], where: str) -> list[int]:
    if not isinstance(values, list):
        raise InvalidStateError(f"state {where} must be a list")
    out = []
    for v in values:
        if not isinstance(v, str) or v not in table:
            raise InvalidStateError(f"state {where}: unknown name {v!r}")
        out.append(table[v])
    if len(set(out)) != len(out):
        raise InvalidStateError(f"state {where} names the same thing twice")
    return out


def _player(obj: Any, where: str) -> PlayerState:
    p = PlayerState()
    p.coins = _req(obj, "money", int, where)
    if p.coins < 0:
        raise InvalidStateError(f"state {where}.money is negative")
    wonders = _req(obj, "wonders", dict, where)
    if len(wonders) > 4:
        raise InvalidStateError(f"state {where}.wonders has more than 4 wonders")
    for name, age in wonders.items():
        if name not in WONDER_IDS:
            raise InvalidStateError(f"state {where}.wonders: unknown wonder {name!r}")
        if isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 3:
            raise InvalidStateError(f"state {where}.wonders.{name} must be 0-3, got {age!r}")
        p.wonders.append(WONDER_IDS[name])
        p.wonder_age.append(age)
    p.token_list = _names(_req(obj, "tokens", list, where), TOKEN_IDS, f"{where}.tokens")
    for t in p.token_list:
        p.tokens |= 1 << t
    hand = _req(obj, "sortedHand", dict, where)
    for group, cards in hand.items():
        for card in _names(cards, CARD_IDS, f"{where}.sortedHand.{group}"):
            c = CARDS[card]
            if COLOR_GROUP[c.color] != group:
                raise InvalidStateError(f"state {where}.sortedHand: {c.name} is not in {group}")
            p.cards.append(card)
            p.built |= 1 << card
            p.color_count[c.color] += 1
            for r in range(5):
                p.prod[r] += c.produces[r]
            p.discount |= c.discount_mask
            if c.wild == 1:
                p.wild_raw += 1
            elif c.wild == 2:
                p.wild_man += 1
            if c.symbol >= 0:
                bit = 1 << c.symbol
                if p.sym1 & bit:
                    p.sym2 |= bit
                p.sym1 |= bit
    for i, w in enumerate(p.wonders):
        if p.wonder_age[i] and WONDERS[w].wild == 1:
            p.wild_raw += 1
        elif p.wonder_age[i] and WONDERS[w].wild == 2:
            p.wild_man += 1
    if p.tokens & (1 << LAW):
        p.sym1 |= 1 << SCALE
    return p


class InfoSet:
    """The facts a JSON state fixes, plus the pools the hidden parts are drawn from."""

    __slots__ = ("template", "hidden_slots", "pool", "pool_guilds", "future", "box_known",
                 "box_pool", "box_size", "round2_known", "wonder_pool", "open_box", "ages_pools")

    def __init__(self) -> None:
        self.template: GameState
        self.hidden_slots: list[tuple[int, bool]] = []  # (slot, guild back?)
        self.pool: list[int] = []  # unseen cards of the current age (guilds apart)
        self.pool_guilds: list[int] = []
        self.ages_pools: dict[int, list[int]] = {}
        self.box_known: bool = True
        self.box_pool: list[int] = []
        self.box_size: int = 0
        self.round2_known: list[int] = []
        self.wonder_pool: list[int] = []
        self.open_box: bool = True

    @staticmethod
    def from_view(view: Any) -> InfoSet:
        """Read a prompt-format state. Raises InvalidStateError naming what is inconsistent."""
        try:
            return InfoSet._read(view)
        except InvalidStateError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise InvalidStateError(f"malformed state: {exc!r}") from exc

    @staticmethod
    def _read(view: Any) -> InfoSet:
        if not isinstance(view, dict):
            raise InvalidStateError("a state must be a JSON object")
        info = InfoSet()
        step_name = _req(view, "step", str, "")
        if step_name not in STEP_IDS:
            raise InvalidStateError(f"state step {step_name!r} is unknown; valid: "
                                    f"{', '.join(STEP_IDS)}")
        step = STEP_IDS[step_name]
        age = _req(view, "age", int, "")
        if age not in (1, 2, 3):
            raise InvalidStateError(f"state age must be 1, 2 or 3, got {age}")
        current = _req(view, "currentPlayerNumber", int, "")
        if current not in (1, 2):
            raise InvalidStateError(f"state currentPlayerNumber must be 1 or 2, got {current}")
        players = [_player(_req(view, "player1", dict, ""), "player1"),
                   _player(_req(view, "player2", dict, ""), "player2")]
        mil = _req(view, "military", dict, "")
        position = _req(mil, "militaryPosition", int, "military")
        if not -9 <= position <= 9:
            raise InvalidStateError(f"state militaryPosition must be -9..9, got {position}")
        loot = 0
        for key, bit in (("loot2Player1Available", LOOT2_P1), ("loot5Player1Available", LOOT5_P1),
                         ("loot2Player2Available", LOOT2_P2), ("loot5Player2Available", LOOT5_P2)):
            if _req(mil, key, bool, "military"):
                loot |= bit
        discard = _names(_req(view, "discardedCards", list, ""), CARD_IDS, "discardedCards")
        board = _names(_req(view, "tokensAvailable", list, ""), TOKEN_IDS, "tokensAvailable")
        box_view = _names(_req(view, "tokensUnavailable", list, ""), TOKEN_IDS,
                          "tokensUnavailable")
        library = _names(_req(view, "tokensFromUnavailable", list, ""), TOKEN_IDS,
                         "tokensFromUnavailable")
        available = _names(_req(view, "wondersAvailable", list, ""), WONDER_IDS,
                           "wondersAvailable")
        unavailable = _names(_req(view, "wondersUnavailable", list, ""), WONDER_IDS,
                             "wondersUnavailable")
        pyramid_view = _req(view, "visiblePyramid", dict, "")
        code = view.get("code", "DUEL")

        owned_tokens = players[0].token_list + players[1].token_list
        seen_tokens = owned_tokens + board + library
        if len(set(seen_tokens)) != len(seen_tokens):
            raise InvalidStateError("a progress token appears in two places")
        if set(box_view) & set(seen_tokens):
            raise InvalidStateError("tokensUnavailable repeats a token shown elsewhere")
        owned_wonders = players[0].wonders + players[1].wonders
        if len(set(owned_wonders)) != len(owned_wonders):
            raise InvalidStateError("a wonder belongs to both players")
        if set(available) & set(owned_wonders):
            raise InvalidStateError("wondersAvailable lists a wonder a player already has")
        built_wonders = sum(p.wonders_built() for p in players)
        if built_wonders > 7:
            raise InvalidStateError("more than 7 wonders are built")
        draft_pick = len(owned_wonders)
        first = 0
        if step == WONDER_SELECTION:
            if draft_pick >= 8 or not available:
                raise InvalidStateError("WONDER_SELECTION needs wondersAvailable")
            # Picks go A, B, B, A, B, A, A, B: the seat to move tells who A is.
            first = (current - 1) ^ DRAFT_ORDER[draft_pick]
            picks = [len(players[first].wonders), len(players[1 - first].wonders)]
            expected = [sum(1 for k in range(draft_pick) if DRAFT_ORDER[k] == x) for x in (0, 1)]
            if picks != expected:
                raise InvalidStateError(
                    f"the wonder draft is out of order: player {current} cannot make pick "
                    f"{draft_pick + 1} holding {len(players[current - 1].wonders)} wonders")
        elif draft_pick != 8:
            raise InvalidStateError("after the wonder draft each player has 4 wonders")

        # Removed 8th wonder: shown in wondersUnavailable once 7 are built.
        removed_wonders = [w for p in players for i, w in enumerate(p.wonders)
                           if built_wonders == 7 and not p.wonder_age[i]]
        out_known = [w for w in unavailable if w not in removed_wonders]
        if set(out_known) & (set(owned_wonders) | set(available)):
            raise InvalidStateError("wondersUnavailable lists a drafted wonder")
        open_box = len(box_view) > 0 or len(out_known) >= 4
        info.open_box = open_box

        # Cards already seen: cities, discard, face-up pyramid cards.
        seen: list[int] = players[0].cards + players[1].cards + discard
        template_pyramid = [-1] * N_SLOTS
        face_up = 0
        present = 0
        active_flags = 0
        backs: list[tuple[int, str]] = []
        if step != WONDER_SELECTION:
            for key, entry in pyramid_view.items():
                if not key.isdigit() or not 0 <= int(key) < N_SLOTS:
                    raise InvalidStateError(f"visiblePyramid key {key!r} is not a slot 0-19")
                slot = int(key)
                name = _req(entry, "cardName", str, f"visiblePyramid.{key}")
                if _req(entry, "isActive", bool, f"visiblePyramid.{key}"):
                    active_flags |= 1 << slot
                present |= 1 << slot
                if name in BACK_NAMES:
                    back = BACK_NAMES[age - 1]
                    if name != back and not (age == 3 and name == "GUILD_BACK"):
                        raise InvalidStateError(f"slot {slot} shows {name} in Age {age}")
                    backs.append((slot, name))
                    continue
                if name not in CARD_IDS:
                    raise InvalidStateError(f"visiblePyramid.{key}: unknown card {name!r}")
                card = CARD_IDS[name]
                if CARDS[card].age != age:
                    raise InvalidStateError(f"slot {slot} holds {name}, not an Age {age} card")
                template_pyramid[slot] = card
                face_up |= 1 << slot
                seen.append(card)
        if len(set(seen)) != len(seen):
            raise InvalidStateError("a card appears twice (cities, discard pile, pyramid)")
        built_or_discarded = players[0].cards + players[1].cards + discard
        if step == WONDER_SELECTION and (built_or_discarded or owned_tokens or built_wonders):
            raise InvalidStateError("during WONDER_SELECTION no card, token or wonder can be "
                                    "in play yet")
        later = [CARDS[c].name for c in built_or_discarded if CARDS[c].age > age]
        if later:
            raise InvalidStateError(f"Age {age} state holds cards of a later Age: "
                                    f"{', '.join(later)}")
        if step == CHOOSE_START and present != (1 << N_SLOTS) - 1:
            raise InvalidStateError("CHOOSE_STARTING_PLAYER comes before any card of the new "
                                    "Age is taken: visiblePyramid needs all 20 slots")
        cover = [sum(1 for t in COVERED_BY[age - 1][s] if (present >> t) & 1)
                 for s in range(N_SLOTS)]
        accessible = sum(1 << s for s in range(N_SLOTS) if (present >> s) & 1 and cover[s] == 0)
        if accessible != active_flags:
            bad = [s for s in range(N_SLOTS) if ((accessible ^ active_flags) >> s) & 1]
            raise InvalidStateError(f"isActive disagrees with the Age {age} layout at slot(s) "
                                    f"{bad}")
        if step == STEP_IDS["PLAY_CARD"] and present == 0:
            raise InvalidStateError(f"step {step_name} needs cards in visiblePyramid")

        opponent = players[2 - current]
        nothing = ""
        if step == STEP_IDS["DESTROY_BROWN"] and not opponent.color_count[BROWN]:
            nothing = "the opponent has no brown card to destroy"
        elif step == STEP_IDS["DESTROY_GREY"] and not opponent.color_count[GREY]:
            nothing = "the opponent has no grey card to destroy"
        elif step == CHOOSE_TOKEN and not board:
            nothing = "tokensAvailable is empty"
        elif step == STEP_IDS["CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"] and not library:
            nothing = "tokensFromUnavailable is empty"
        elif step == STEP_IDS["CONSTRUCT_FROM_DISCARD"] and not discard:
            nothing = "discardedCards is empty"
        if nothing:
            raise InvalidStateError(f"step {step_name} has nothing to choose: {nothing}")
        if library and step != STEP_IDS["CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"]:
            raise InvalidStateError("tokensFromUnavailable is only filled during "
                                    "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD")
        seen_set = set(seen)
        pools = {1: [c for c in AGE1_CARDS if c not in seen_set],
                 2: [c for c in AGE2_CARDS if c not in seen_set],
                 3: [c for c in AGE3_CARDS if c not in seen_set]}
        guild_pool = [c for c in GUILD_CARDS if c not in seen_set]
        info.ages_pools = pools
        info.pool = pools[age]
        info.pool_guilds = guild_pool
        info.hidden_slots = [(slot, name == "GUILD_BACK") for slot, name in sorted(backs)]
        n_guild_backs = sum(1 for _, g in info.hidden_slots if g)
        if age == 3:
            guilds_in_play = sum(1 for c in seen_set if CARDS[c].color == PURPLE)
            if guilds_in_play + n_guild_backs > 3:
                raise InvalidStateError("more than 3 guilds in the Age III deck")
        if len(info.hidden_slots) - n_guild_backs > len(pools[age]) or \
                n_guild_backs > len(guild_pool):
            raise InvalidStateError("more face-down cards than unseen cards of that Age")

        # The template: everything the view fixes.
        st = GameState.__new__(GameState)
        st.deal = _EMPTY_DEAL
        st.open_box = open_box
        st.code = code if isinstance(code, str) else "DUEL"
        st.step = step
        st.age = age
        st.current = current - 1
        st.players = players
        st.military = position
        st.loot = loot & ALL_LOOT
        st.pyramid = template_pyramid
        st.face_up = face_up
        st.cover = cover
        st.accessible = accessible
        st.remaining = bin(present).count("1")
        st.discard = discard
        st.tokens_board = board
        st.library = library
        st.tokens_box = []
        st.wonders_available = available
        st.draft_pick = draft_pick
        st.wonders_built = built_wonders
        st.wonders_removed = removed_wonders
        st.play_again = False
        st.last_player = current - 1
        st.winner = NO_WINNER
        st.victory = ""
        st.prev = (-1, "", -1)
        st.ply = 0
        st.first = first if step == WONDER_SELECTION else 0
        if step == GAME_END:
            won = [bool(_req(view[k], "won", bool, k)) for k in ("player1", "player2")]
            st.winner = 0 if won[0] else 1 if won[1] else DRAW
            if abs(position) == 9:
                st.victory = VICTORY_MILITARY
            elif any(bin(p.sym1).count("1") >= 6 for p in players):
                st.victory = VICTORY_SCIENCE
            else:
                st.victory = VICTORY_CIVILIAN
        # A pending play-again is not in the format; infer it from the wonder being resolved.
        prev = view.get("previousMove", "")
        # Kept as the view wrote it (another server's wording included), so that a sample
        # renders the same previousMove, relabelled for the other seat.
        st.prev = (PREV_AS_WRITTEN, prev if isinstance(prev, str) else "", -1)
        me = players[current - 1]
        theology = bool(me.tokens & (1 << THEOLOGY))
        if step in (STEP_IDS["DESTROY_BROWN"], STEP_IDS["DESTROY_GREY"],
                    STEP_IDS["CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"],
                    STEP_IDS["CONSTRUCT_FROM_DISCARD"]) or (
                step == CHOOSE_TOKEN and isinstance(prev, str)
                and "from the discard pile" in prev):
            st.play_again = theology

        # Token box: known in open-box mode, else every token seen nowhere.
        if open_box:
            info.box_known = True
            info.box_pool = box_view
        else:
            info.box_known = False
            info.box_pool = sorted(_ALL_TOKENS - set(seen_tokens))
        info.box_size = len(info.box_pool)
        # Wonders: round 2 of the draft, and those out of the game.
        unseen_wonders = sorted(_ALL_WONDERS - set(owned_wonders) - set(available)
                                - set(out_known))
        info.round2_known = []
        info.wonder_pool = unseen_wonders
        if step == WONDER_SELECTION and draft_pick < 4 and len(unseen_wonders) < 4:
            raise InvalidStateError("too few unseen wonders left for round 2 of the draft")
        info.template = st
        return info

    def sample(self, rng: random.Random) -> GameState:
        """A complete state consistent with the view; hidden parts drawn uniformly with `rng`."""
        t = self.template
        s = t.clone()
        age = t.age
        pools = {a: p[:] for a, p in self.ages_pools.items()}
        guilds = self.pool_guilds[:]
        rng.shuffle(guilds)
        for a in (1, 2, 3):
            rng.shuffle(pools[a])
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
                rng.shuffle(cards)
                layouts[a] = tuple(cards)
                removed[a] = tuple(pools[3][17:])
                guilds = guilds[3:]
        box = self.box_pool[:]
        rng.shuffle(box)
        s.tokens_box = box
        # Wonders not seen: round 2 of the draft (when still to come) and those out of the game.
        unseen = self.wonder_pool[:]
        rng.shuffle(unseen)
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
            s._layout(1)
        s.players[0].table = None
        s.players[1].table = None
        return s


def state_from_view(view: Any, rng: random.Random) -> GameState:
    """One complete state consistent with `view` (see InfoSet.sample)."""
    return InfoSet.from_view(view).sample(rng)

