"""Reading a prompt-format JSON state, one part at a time.

Each reader takes one part of the view (the header, a city, the military track, the progress
tokens, the wonders, the card structure...), checks it against what it was given so far and
raises :class:`InvalidStateError` naming the field it refuses. ``InfoSet.from_view`` chains them;
nothing here knows about sampling.

The format's origin server repeats in ``tokensUnavailable`` the tokens the Great Library drew
(the rules prompt's own example shows AGRICULTURE both there and in player2's tokens): a token a
city holds or the Great Library offers is not in the box, whatever that list says. Its test
fixtures also leave ``tokensFromUnavailable`` filled after the Great Library's choice: that list
only means something during CHOOSE_PROGRESS_TOKEN_FROM_DISCARD, and is ignored at any other step
(its names are still checked).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .city import PlayerState
from .data import (
    BACK_NAMES,
    BROWN,
    CARD_IDS,
    CARDS,
    COLOR_GROUP,
    GREY,
    THEOLOGY,
    TOKEN_IDS,
    TOKEN_NAMES,
    WONDER_IDS,
    WONDER_NAMES,
)
from .layout import COVERED_BY, N_SLOTS
from .moves import InvalidStateError
from .names import ids_of
from .result import VICTORY_CIVILIAN, VICTORY_MILITARY, VICTORY_SCIENCE
from .state import DRAW
from .steps import (
    BUILD_FROM_DISCARD,
    CHOOSE_LIBRARY_TOKEN,
    CHOOSE_START,
    CHOOSE_TOKEN,
    DESTROY_BROWN,
    DESTROY_GREY,
    DRAFT_ORDER,
    GAME_END,
    LOOT2_P1,
    LOOT2_P2,
    LOOT5_P1,
    LOOT5_P2,
    NO_WINNER,
    PLAY_CARD,
    STEP_IDS,
    STEP_NAMES,
    WONDER_SELECTION,
)

_LOOT_FLAGS = (("loot2Player1Available", LOOT2_P1), ("loot5Player1Available", LOOT5_P1),
               ("loot2Player2Available", LOOT2_P2), ("loot5Player2Available", LOOT5_P2))


# ---------------------------------------------------------------------------- fields
def field(obj: Any, key: str, kind: type, where: str) -> Any:
    """`obj[key]`, which must be of type `kind`; `where` names `obj` in the message."""
    path = f"{where}.{key}" if where else key
    if not isinstance(obj, dict) or key not in obj:
        raise InvalidStateError(f"state {where or '(root)'} is missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidStateError(f"state {path} has the wrong type: {value!r}")
    return value


def names(values: Any, table: dict[str, int], where: str) -> list[int]:
    """Ids of a list of distinct names from `table` (cards, tokens or wonders)."""
    return ids_of(values, table, f"state {where}")


# ---------------------------------------------------------------------------- header
class Header(NamedTuple):
    step: int
    age: int
    current: int  # the seat to move, 0 or 1


def read_header(view: Any) -> Header:
    """`step`, `age` and `currentPlayerNumber`."""
    if not isinstance(view, dict):
        raise InvalidStateError("a state must be a JSON object")
    step_name = field(view, "step", str, "")
    if step_name not in STEP_IDS:
        raise InvalidStateError(f"state step {step_name!r} is unknown; valid: "
                                f"{', '.join(STEP_IDS)}")
    age = field(view, "age", int, "")
    if age not in (1, 2, 3):
        raise InvalidStateError(f"state age must be 1, 2 or 3, got {age}")
    current = field(view, "currentPlayerNumber", int, "")
    if current not in (1, 2):
        raise InvalidStateError(f"state currentPlayerNumber must be 1 or 2, got {current}")
    return Header(STEP_IDS[step_name], age, current - 1)


# ---------------------------------------------------------------------------- cities
def read_player(view: Any, where: str) -> PlayerState:
    """One city (`player1` or `player2`): money, wonders, tokens and buildings."""
    obj = field(view, where, dict, "")
    p = PlayerState.new()
    p.coins = field(obj, "money", int, where)
    if p.coins < 0:
        raise InvalidStateError(f"state {where}.money is negative")
    wonders = field(obj, "wonders", dict, where)
    if len(wonders) > 4:
        raise InvalidStateError(f"state {where}.wonders has more than 4 wonders")
    for name, age in wonders.items():
        if name not in WONDER_IDS:
            raise InvalidStateError(f"state {where}.wonders: unknown wonder {name!r}")
        if isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 3:
            raise InvalidStateError(f"state {where}.wonders.{name} must be 0-3, got {age!r}")
        p.draft_wonder(WONDER_IDS[name])
        if age:
            p.build_wonder(WONDER_IDS[name], age)
    for t in names(field(obj, "tokens", list, where), TOKEN_IDS, f"{where}.tokens"):
        p.add_token(t)
    hand = field(obj, "sortedHand", dict, where)
    for group, cards in hand.items():
        for card in names(cards, CARD_IDS, f"{where}.sortedHand.{group}"):
            c = CARDS[card]
            if COLOR_GROUP[c.color] != group:
                raise InvalidStateError(f"state {where}.sortedHand: {c.name} is not in {group}")
            p.add_card(card)
    return p


def read_players(view: dict[str, Any]) -> list[PlayerState]:
    return [read_player(view, "player1"), read_player(view, "player2")]


# ---------------------------------------------------------------------------- military
class Military(NamedTuple):
    position: int
    loot: int  # LOOT* bits still on the board


def read_military(view: dict[str, Any]) -> Military:
    mil = field(view, "military", dict, "")
    position = field(mil, "militaryPosition", int, "military")
    if not -9 <= position <= 9:
        raise InvalidStateError(f"state military.militaryPosition must be -9..9, got {position}")
    loot = 0
    for key, bit in _LOOT_FLAGS:
        if field(mil, key, bool, "military"):
            loot |= bit
    return Military(position, loot)


# ---------------------------------------------------------------------------- tokens
class Tokens(NamedTuple):
    board: list[int]
    library: list[int]  # drawn by the Great Library, to choose from
    box: list[int]  # listed in tokensUnavailable and nowhere else
    open_box: bool  # tokensUnavailable lists the box


def read_tokens(view: dict[str, Any], players: list[PlayerState], step: int) -> Tokens:
    """The progress tokens: on the board, in the cities, drawn by the Great Library, in the box.
    A token shows in one place only; the box's list may repeat one a city holds or the Great
    Library offers (see the module's docstring), never one on the board. The Great Library's
    draw is read during its choice only (see the module's docstring)."""
    board = names(field(view, "tokensAvailable", list, ""), TOKEN_IDS, "tokensAvailable")
    listed = names(field(view, "tokensUnavailable", list, ""), TOKEN_IDS, "tokensUnavailable")
    library = names(field(view, "tokensFromUnavailable", list, ""), TOKEN_IDS,
                    "tokensFromUnavailable")
    if step != CHOOSE_LIBRARY_TOKEN:
        library = []  # left over from an earlier choice: the unchosen tokens are in the box
    place: dict[int, str] = {}
    for where, tokens in (("player1.tokens", players[0].token_list),
                          ("player2.tokens", players[1].token_list),
                          ("tokensAvailable", board), ("tokensFromUnavailable", library)):
        for t in tokens:
            if t in place:
                raise InvalidStateError(f"state {where} lists {TOKEN_NAMES[t]}, which "
                                        f"{place[t]} lists too")
            place[t] = where
    for t in listed:
        if place.get(t) == "tokensAvailable":
            raise InvalidStateError(f"state tokensUnavailable lists {TOKEN_NAMES[t]}, which is on "
                                    "the board (tokensAvailable)")
    box = [t for t in listed if t not in place]
    return Tokens(board, library, box, open_box=len(listed) > 0)


# ---------------------------------------------------------------------------- wonders
class Wonders(NamedTuple):
    available: list[int]  # to draft now
    out: list[int]  # known out of the game (not the 8th one removed once 7 are built)
    removed: list[int]  # the 8th wonder, once 7 are built
    draft_pick: int
    first: int  # the seat that drafted first
    built: int


def read_wonders(view: dict[str, Any], players: list[PlayerState], step: int,
                 current: int) -> Wonders:
    """The draft (`wondersAvailable` and whose pick it is), the wonders built and those out of the
    game (`wondersUnavailable`)."""
    available = names(field(view, "wondersAvailable", list, ""), WONDER_IDS, "wondersAvailable")
    unavailable = names(field(view, "wondersUnavailable", list, ""), WONDER_IDS,
                        "wondersUnavailable")
    owned = players[0].wonders + players[1].wonders
    both = set(players[0].wonders) & set(players[1].wonders)
    if both:
        raise InvalidStateError(f"state player1.wonders and player2.wonders both hold "
                                f"{', '.join(WONDER_NAMES[w] for w in sorted(both))}")
    taken = set(available) & set(owned)
    if taken:
        raise InvalidStateError(f"state wondersAvailable lists "
                                f"{', '.join(WONDER_NAMES[w] for w in sorted(taken))}, which a "
                                "player already has")
    built = sum(p.wonders_built() for p in players)
    if built > 7:
        raise InvalidStateError("state player1.wonders and player2.wonders: more than 7 wonders "
                                "are built")
    draft_pick = len(owned)
    first = 0
    if step == WONDER_SELECTION:
        if draft_pick >= 8 or not available:
            raise InvalidStateError("state wondersAvailable: WONDER_SELECTION needs wonders to "
                                    "draft")
        # Picks go A, B, B, A, B, A, A, B: the seat to move tells who A is.
        first = current ^ DRAFT_ORDER[draft_pick]
        picks = [len(players[first].wonders), len(players[1 - first].wonders)]
        expected = [sum(1 for k in range(draft_pick) if DRAFT_ORDER[k] == x) for x in (0, 1)]
        if picks != expected:
            raise InvalidStateError(
                f"the wonder draft is out of order: player {current + 1} cannot make pick "
                f"{draft_pick + 1} holding {len(players[current].wonders)} wonders")
    elif draft_pick != 8:
        raise InvalidStateError("state player1.wonders and player2.wonders: after the wonder "
                                "draft each player has 4 wonders")
    # The 8th wonder, out of the game once 7 are built, shows in wondersUnavailable too.
    removed = [w for p in players for i, w in enumerate(p.wonders)
               if built == 7 and not p.wonder_age[i]]
    out = [w for w in unavailable if w not in removed]
    drafted = set(out) & (set(owned) | set(available))
    if drafted:
        raise InvalidStateError(f"state wondersUnavailable lists the drafted wonder(s) "
                                f"{', '.join(WONDER_NAMES[w] for w in sorted(drafted))}")
    return Wonders(available, out, removed, draft_pick, first, built)


# ---------------------------------------------------------------------------- the structure
class Structure(NamedTuple):
    pyramid: list[int]  # card id by slot; -1 when empty or face down
    hidden: list[tuple[int, bool]]  # face-down slots, and whether each shows a guild's back
    face_up: int  # bitmask
    present: int  # bitmask of the slots holding a card
    cover: list[int]  # cards lying on each slot
    accessible: int  # bitmask


def read_structure(view: dict[str, Any], step: int, age: int) -> Structure:
    """`visiblePyramid`: the cards left in the Age's structure, face up or down, and which can be
    taken (`isActive` must agree with the layout)."""
    pyramid_view = field(view, "visiblePyramid", dict, "")
    pyramid = [-1] * N_SLOTS
    hidden: list[tuple[int, bool]] = []
    face_up = present = active_flags = 0
    if step != WONDER_SELECTION:  # the draft's view shows no structure; any is ignored
        for key, entry in pyramid_view.items():
            if not key.isdigit() or not 0 <= int(key) < N_SLOTS:
                raise InvalidStateError(f"visiblePyramid key {key!r} is not a slot 0-19")
            slot = int(key)
            where = f"visiblePyramid.{key}"
            name = field(entry, "cardName", str, where)
            if field(entry, "isActive", bool, where):
                active_flags |= 1 << slot
            present |= 1 << slot
            if name in BACK_NAMES:
                if name != BACK_NAMES[age - 1] and not (age == 3 and name == "GUILD_BACK"):
                    raise InvalidStateError(f"{where}: slot {slot} shows {name} in Age {age}")
                hidden.append((slot, name == "GUILD_BACK"))
                continue
            if name not in CARD_IDS:
                raise InvalidStateError(f"{where}: unknown card {name!r}")
            card = CARD_IDS[name]
            if CARDS[card].age != age:
                raise InvalidStateError(f"{where}: slot {slot} holds {name}, not an Age {age} "
                                        "card")
            pyramid[slot] = card
            face_up |= 1 << slot
    if step == CHOOSE_START and present != (1 << N_SLOTS) - 1:
        raise InvalidStateError("CHOOSE_STARTING_PLAYER comes before any card of the new "
                                "Age is taken: visiblePyramid needs all 20 slots")
    if step == PLAY_CARD and present == 0:
        raise InvalidStateError(f"step {STEP_NAMES[step]} needs cards in visiblePyramid")
    cover = [sum(1 for t in COVERED_BY[age - 1][s] if (present >> t) & 1)
             for s in range(N_SLOTS)]
    accessible = sum(1 << s for s in range(N_SLOTS) if (present >> s) & 1 and cover[s] == 0)
    if accessible != active_flags:
        bad = [s for s in range(N_SLOTS) if ((accessible ^ active_flags) >> s) & 1]
        raise InvalidStateError(f"visiblePyramid: isActive disagrees with the Age {age} layout "
                                f"at slot(s) {bad}")
    return Structure(pyramid, sorted(hidden), face_up, present, cover, accessible)


# ---------------------------------------------------------------------------- cards
def read_discard(view: dict[str, Any]) -> list[int]:
    return names(field(view, "discardedCards", list, ""), CARD_IDS, "discardedCards")


def check_cards(players: list[PlayerState], discard: list[int], structure: Structure,
                step: int, age: int) -> list[int]:
    """Every card shows once at most, none of a later Age, none during the draft. Returns the
    cards seen (cities, discard pile, face up in the structure)."""
    in_play = players[0].cards + players[1].cards + discard
    seen = in_play + [c for c in structure.pyramid if c >= 0]
    if len(set(seen)) != len(seen):
        twice = sorted({CARDS[c].name for c in seen if seen.count(c) > 1})
        raise InvalidStateError(f"a card appears twice (cities, discardedCards, "
                                f"visiblePyramid): {', '.join(twice)}")
    if step == WONDER_SELECTION and (in_play or players[0].tokens or players[1].tokens
                                     or any(p.wonders_built() for p in players)):
        raise InvalidStateError("during WONDER_SELECTION no card, token or wonder can be "
                                "in play yet")
    later = [CARDS[c].name for c in in_play if CARDS[c].age > age]
    if later:
        raise InvalidStateError(f"Age {age} state holds cards of a later Age: "
                                f"{', '.join(later)}")
    return seen


# ---------------------------------------------------------------------------- the step
def check_choice(step: int, current: int, players: list[PlayerState], tokens: Tokens,
                 discard: list[int]) -> None:
    """A step that asks for a choice has something to choose from."""
    opponent = players[1 - current]
    nothing = ""
    if step == DESTROY_BROWN and not opponent.color_count[BROWN]:
        nothing = "the opponent has no brown card to destroy"
    elif step == DESTROY_GREY and not opponent.color_count[GREY]:
        nothing = "the opponent has no grey card to destroy"
    elif step == CHOOSE_TOKEN and not tokens.board:
        nothing = "tokensAvailable is empty"
    elif step == CHOOSE_LIBRARY_TOKEN and not tokens.library:
        nothing = "tokensFromUnavailable is empty"
    elif step == BUILD_FROM_DISCARD and not discard:
        nothing = "discardedCards is empty"
    if nothing:
        raise InvalidStateError(f"step {STEP_NAMES[step]} has nothing to choose: {nothing}")


def read_previous_move(view: dict[str, Any]) -> str:
    """`previousMove`, kept as written (another server's wording included)."""
    prev = view.get("previousMove", "")
    return prev if isinstance(prev, str) else ""


def pending_play_again(step: int, mover: PlayerState, previous_move: str) -> bool:
    """Whether the mover plays again after this step. The format does not say: a wonder being
    resolved (destroy, Great Library, Mausoleum, or a token a Mausoleum build brought) gives it
    with Theology."""
    resolving = step in (DESTROY_BROWN, DESTROY_GREY, CHOOSE_LIBRARY_TOKEN,
                         BUILD_FROM_DISCARD) or (
        step == CHOOSE_TOKEN and "from the discard pile" in previous_move)
    return resolving and mover.has_token(THEOLOGY)


class Ending(NamedTuple):
    winner: int  # a seat, DRAW, or NO_WINNER while the game goes on
    victory: str


def read_ending(view: dict[str, Any], step: int, position: int,
                players: list[PlayerState]) -> Ending:
    """At GAME_END, who won (`player1.won`, `player2.won`) and how (from the pawn and the
    science symbols)."""
    if step != GAME_END:
        return Ending(NO_WINNER, "")
    won = [field(view[k], "won", bool, k) for k in ("player1", "player2")]
    winner = 0 if won[0] else 1 if won[1] else DRAW
    if abs(position) == 9:
        victory = VICTORY_MILITARY
    elif any(p.science_count() >= 6 for p in players):
        victory = VICTORY_SCIENCE
    else:
        victory = VICTORY_CIVILIAN
    return Ending(winner, victory)
