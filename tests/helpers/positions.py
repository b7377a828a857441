"""Small hand-built positions for the rule-scenario tests (tests/engine/test_rules_*.py).

A position is written in the prompt's JSON state format (the same dict `seat_view` returns) and
loaded with `InfoSet.from_view(view).sample(rng)`, so production, discounts, wildcards and science
symbols are derived from the cities' cards by the engine's own reader, never set by hand.

    state = position(age=2, pyramid={18: "AQUEDUCT", 19: "SAWMILL"},
                     p2={"coins": 12, "cards": []}, p1={"cards": ["QUARRY", "STONE_PIT"]},
                     current=2)

Everything not given gets a neutral default: 7 coins, no cards, no tokens, pawn at 0, every loot
token on the track, empty discard pile, no token on the board or in the box. Each player is dealt
up to 4 wonders: the ones the test names (a dict name -> Age built, 0 for not built, or a list of
unbuilt names) and then unbuilt filler wonders nobody named; the last 4 go to `wondersUnavailable`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from duel.engine import InfoSet, Move, seat_view
from duel.engine.data import (
    CARD_IDS,
    CARDS,
    COLOR_GROUP,
    GROUP_ORDER,
    TOKEN_IDS,
    WONDER_IDS,
    WONDER_NAMES,
)
from duel.engine.layout import COVERED_BY

BACK = "BACK"  # in a pyramid dict: the current Age's card back (a face-down card)
GUILD_BACK = "GUILD_BACK"
_BACKS = {1: "AGE_ONE_BACK", 2: "AGE_TWO_BACK", 3: "AGE_THREE_BACK"}

# Filler wonders, in the order they are handed out to complete a player's four.
_FILLER_ORDER = ("THE_PYRAMIDS", "THE_COLOSSUS", "THE_SPHINX", "THE_HANGING_GARDENS",
                 "THE_GREAT_LIBRARY", "THE_MAUSOLEUM", "THE_STATUE_OF_ZEUS", "CIRCUS_MAXIMUS",
                 "THE_APPIAN_WAY", "THE_TEMPLE_OF_ARTEMIS", "PIRAEUS", "THE_GREAT_LIGHTHOUSE")
assert sorted(_FILLER_ORDER) == sorted(WONDER_NAMES)


def sorted_hand(cards: Iterable[str]) -> dict[str, list[str]]:
    """A city's `sortedHand`: the prompt's colour groups, only those with cards."""
    groups: dict[str, list[str]] = {}
    for name in cards:
        groups.setdefault(COLOR_GROUP[CARDS[CARD_IDS[name]].color], []).append(name)
    return {g: groups[g] for g in GROUP_ORDER if g in groups}


def pyramid_view(age: int, slots: dict[int, str]) -> dict[str, dict[str, Any]]:
    """`visiblePyramid` for the given slots, with `isActive` worked out from the Age's layout."""
    out: dict[str, dict[str, Any]] = {}
    for slot in sorted(slots):
        name = slots[slot]
        if name == BACK:
            name = _BACKS[age]
        covered = any(top in slots for top in COVERED_BY[age - 1][slot])
        out[str(slot)] = {"cardName": name, "isActive": not covered}
    return out


def _wonders(spec: Any) -> dict[str, int]:
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return dict(spec)
    return {name: 0 for name in spec}


def view(*, age: int = 1, pyramid: dict[int, str] | None = None, step: str = "PLAY_CARD",
         current: int = 1, p1: dict[str, Any] | None = None, p2: dict[str, Any] | None = None,
         military: int = 0, loot: dict[str, bool] | None = None,
         discard: Iterable[str] = (), board: Iterable[str] = (), box: Iterable[str] = (),
         library: Iterable[str] = (), previous_move: str = "") -> dict[str, Any]:
    """The prompt-format state dict of a position (see the module docstring)."""
    p1 = dict(p1 or {})
    p2 = dict(p2 or {})
    w1 = _wonders(p1.get("wonders"))
    w2 = _wonders(p2.get("wonders"))
    named = set(w1) | set(w2)
    spare = [w for w in _FILLER_ORDER if w not in named]
    for w in (w1, w2):
        while len(w) < 4:
            w[spare.pop(0)] = 0
    players = []
    for label, spec, wonders in ((1, p1, w1), (2, p2, w2)):
        players.append({
            "id": label,
            "money": spec.get("coins", 7),
            "wonders": wonders,
            "tokens": list(spec.get("tokens", [])),
            "won": False,
            "score": {},
            "sortedHand": sorted_hand(spec.get("cards", [])),
        })
    mil = {"id": 1, "militaryPosition": military, "loot5Player1Available": True,
           "loot2Player1Available": True, "loot2Player2Available": True,
           "loot5Player2Available": True}
    mil.update(loot or {})
    return {
        "code": "TEST",
        "step": step,
        "age": age,
        "currentPlayerNumber": current,
        "player1": players[0],
        "player2": players[1],
        "military": mil,
        "discardedCards": list(discard),
        "tokensAvailable": list(board),
        "tokensUnavailable": list(box),
        "tokensFromUnavailable": list(library),
        "wondersAvailable": [],
        "wondersUnavailable": spare,
        "visiblePyramid": pyramid_view(age, pyramid or {}),
        "previousMove": previous_move,
    }


def position(*, seed: int = 0, tokens_box: Iterable[str] | None = None, **kw: Any):
    """A complete `GameState` for `view(**kw)`; face-down cards and later Ages are drawn with
    `random.Random(seed)`. `tokens_box` fixes the box order (the Great Library draws the first 3);
    by default the box holds `box` in the given order."""
    state = InfoSet.from_view(view(**kw)).sample(random.Random(seed))
    order = kw.get("box", ()) if tokens_box is None else tokens_box
    state.tokens_box = [TOKEN_IDS[t] for t in order]
    return state


# ---- moves, in the prompt's JSON form
def build(slot: int) -> Move:
    return Move.from_json({"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": slot}})


def discard(slot: int) -> Move:
    return Move.from_json({"move": "DISCARD", "moveData": {"cardIndex": slot}})


def wonder(slot: int, name: str) -> Move:
    return Move.from_json({"move": "CONSTRUCT_WONDER",
                           "moveData": {"cardIndex": slot, "wonder": name}})


def token(name: str) -> Move:
    return Move.from_json({"move": "CHOOSE_PROGRESS_TOKEN", "moveData": {"progressToken": name}})


def library_token(name: str) -> Move:
    return Move.from_json({"move": "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD",
                           "moveData": {"progressToken": name}})


def destroy(name: str) -> Move:
    return Move.from_json({"move": "DESTROY_CARD", "moveData": {"cardName": name}})


def from_discard(name: str) -> Move:
    return Move.from_json({"move": "CONSTRUCT_FROM_DISCARD", "moveData": {"cardName": name}})


def start(player: int) -> Move:
    return Move.from_json({"move": "CHOOSE_STARTING_PLAYER",
                           "moveData": {"playerNumber": player}})


# ---- reading a state back
def coins(state) -> tuple[int, int]:
    """(player 1's coins, player 2's coins)."""
    return state.players[0].coins, state.players[1].coins


def city(state, player: int) -> list[str]:
    """Names of the buildings in player `player`'s (1 or 2) city, in the order built."""
    return [CARDS[c].name for c in state.players[player - 1].cards]


def tokens(state, player: int) -> list[str]:
    return list(seat_view(state)[f"player{player}"]["tokens"])


def price(state, player: int, card: str) -> int:
    return state.card_price(player - 1, CARD_IDS[card])


def wonder_price(state, player: int, name: str) -> int:
    return state.wonder_price(player - 1, WONDER_IDS[name])


def play(state, *moves: Move):
    """Apply each move with the legality check; return the final state."""
    for m in moves:
        state = state.apply(m)
    return state


# A city that produces every resource it could need: WOOD 4, BRICK 4, STONE 4, GLASS 2, PAPYRUS 2
# (Age I and II brown and grey cards; use it in Age II or III positions only).
RICH = ["LUMBER_YARD", "LOGGING_CAMP", "SAWMILL", "CLAY_POOL", "CLAY_PIT", "BRICKYARD", "QUARRY",
        "STONE_PIT", "SHELF_QUARRY", "GLASSWORKS", "GLASSBLOWER", "PRESS", "DRYING_ROOM"]


def moves_of(state, kind: str) -> set:
    """The legal moves of one kind, as a set."""
    return {m for m in state.legal_moves() if m.kind == kind}
