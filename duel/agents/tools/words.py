"""The tool set's words: a card, wonder or progress token explained, and a move said in a line,
in the prompt's vocabulary (its spellings of every name, as the state writes them).

Effects come from the writer of the rules text's card and wonder tables
(`duel.prompts.reference`) and the token texts of the one writer of words (`duel.words`,
rules.md §8), so a tool never restates a rule. Where a thing is in this game, and what it would
cost the seat, are read from the seat's view only (`InfoSet.template`): a face-down card is "not
seen", whatever lies there.
"""

from __future__ import annotations

import difflib
from typing import Any

from duel.engine import CARDS, GameState, Move
from duel.engine.data import (
    BACK_NAMES,
    CARD_IDS,
    CHAIN_FROM,
    COLOR_NAMES,
    RESOURCE_NAMES,
    SYMBOL_NAMES,
    TOKEN_IDS,
    TOKEN_NAMES,
    WONDER_IDS,
    WONDERS,
    YELLOW,
)
from duel.engine.moves import MoveKind
from duel.errors import InvalidMoveError
from duel.prompts.reference import card_effect, wonder_effect
from duel.words.cards import TOKEN_TEXT

from .status import YOU

ME = YOU - 1  # the seat's engine index in its own view
THEM = 1 - ME
_AGES = {1: "I", 2: "II", 3: "III"}
_BACKS = {"AGE_ONE_BACK": 1, "AGE_TWO_BACK": 2, "AGE_THREE_BACK": 3, "GUILD_BACK": 3}
NAME_LIMIT = 100  # characters of a name to explain


def coins(n: int) -> str:
    return f"{n} coin" if n == 1 else f"{n} coins"


def _cost(coin_cost: int, resources: tuple[int, ...]) -> dict[str, Any]:
    return {"coins": coin_cost,
            "resources": {RESOURCE_NAMES[r]: n for r, n in enumerate(resources) if n}}


def _cost_words(coin_cost: int, resources: tuple[int, ...]) -> str:
    parts = ([coins(coin_cost)] if coin_cost else []) + \
        [f"{n} {RESOURCE_NAMES[r]}" for r, n in enumerate(resources) if n]
    return ", ".join(parts) or "nothing"


def canonical(name: str) -> str:
    """A name as the state spells it: "lumber yard" and "Lumber-Yard" are LUMBER_YARD."""
    return "_".join(name.replace("-", " ").replace("_", " ").upper().split())


def explain(t: GameState, name: Any) -> dict[str, Any]:
    """`name` (a card, wonder, progress token or card back) in words, with where it is in this
    game as the seat sees it and what it would cost the seat. InvalidMoveError names an
    unknown name and the closest known ones."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidMoveError("explain needs the name of a card, wonder or progress token")
    if len(name) > NAME_LIMIT:
        raise InvalidMoveError(f"a name is at most {NAME_LIMIT} characters, got {len(name)}")
    key = canonical(name)
    if key in CARD_IDS:
        return _card(t, CARD_IDS[key])
    if key in WONDER_IDS:
        return _wonder(t, WONDER_IDS[key])
    if key in TOKEN_IDS:
        return _token(t, key)
    if key in _BACKS:
        age = _BACKS[key]
        what = "a guild" if key == "GUILD_BACK" else f"an Age {_AGES[age]} card"
        return {"kind": "card back", "name": key,
                "text": f"{key}: the back of {what} lying face down. Which card it is stays "
                        "unknown until the cards on it are taken and it turns face up."}
    known = [*CARD_IDS, *WONDER_IDS, *TOKEN_NAMES, *BACK_NAMES]
    close = difflib.get_close_matches(key, known, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else \
        " (names are spelled as in the state, e.g. LUMBER_YARD, THE_COLOSSUS, AGRICULTURE)"
    raise InvalidMoveError(f"no card, wonder or progress token is named {name!r}{hint}")


def _card(t: GameState, card: int) -> dict[str, Any]:
    c = CARDS[card]
    chains_to = [d.name for d in CARDS if d.chain_from == c.name]
    colour = COLOR_NAMES[c.color]
    effect = card_effect(c)
    where, price = _card_place(t, card)
    text = (f"{c.name}: Age {_AGES[c.age]} {colour.lower()} card; costs "
            f"{_cost_words(c.coins, c.cost)}; {effect or 'no effect'}")
    if chains_to:
        text += f"; later builds {', '.join(chains_to)} for free"
    out: dict[str, Any] = {
        "kind": "card", "name": c.name, "age": c.age, "color": colour,
        "cost": _cost(c.coins, c.cost), "effect": effect,
        "symbol": SYMBOL_NAMES[c.symbol] if c.symbol >= 0 else None,
        "chain_from": c.chain_from or None, "chains_to": chains_to, "where": where,
        "text": text + ". " + where[0].upper() + where[1:] + "."}
    if price is not None:
        out["price_for_you"] = price
    return out


def _card_place(t: GameState, card: int) -> tuple[str, int | None]:
    """Where `card` is, as the seat sees it, and its price to the seat when it could build
    it from the structure (None otherwise)."""
    if t.players[ME].has_card(card):
        return "in your city", None
    if t.players[THEM].has_card(card):
        return "in your opponent's city", None
    if card in t.discard:
        return "in the discard pile", None
    if card in t.pyramid:
        slot = t.pyramid.index(card)
        price = t.card_price(ME, card)
        if (t.accessible >> slot) & 1:
            return f"in the structure, slot {slot}, free to take: it costs you {coins(price)}", \
                price
        return f"in the structure, slot {slot}, face up but covered", price
    return ("not seen in this game (face down, in a deck still to come, or out of the game)",
            None)


def _wonder(t: GameState, w: int) -> dict[str, Any]:
    wonder = WONDERS[w]
    effect = wonder_effect(wonder)
    where, price = _wonder_place(t, w)
    out: dict[str, Any] = {
        "kind": "wonder", "name": wonder.name, "cost": _cost(0, wonder.cost), "effect": effect,
        "where": where,
        "text": f"{wonder.name}: wonder; costs {_cost_words(0, wonder.cost)}; {effect}. "
                f"{where[0].upper() + where[1:]}."}
    if price is not None:
        out["price_for_you"] = price
    return out


def _wonder_place(t: GameState, w: int) -> tuple[str, int | None]:
    for seat, whose in ((ME, "yours"), (THEM, "your opponent's")):
        p = t.players[seat]
        if w in p.wonders:
            age = p.wonder_age[p.wonders.index(w)]
            if age:
                return f"{whose}, built in Age {_AGES[age]}", None
            if seat == ME:
                price = t.wonder_price(ME, w)
                return f"yours, not built yet: it costs you {coins(price)}", price
            return f"{whose}, not built yet", None
    if w in t.wonders_available:
        return "offered in the wonder draft now (wondersAvailable)", None
    if w in t.wonders_removed:
        return "out of the game: seven wonders were built", None
    return "not drafted by either player (out of the game, or not revealed yet)", None


def _token(t: GameState, name: str) -> dict[str, Any]:
    token = TOKEN_IDS[name]
    if token in t.players[ME].token_list:
        where = "yours"
    elif token in t.players[THEM].token_list:
        where = "your opponent's"
    elif token in t.tokens_board:
        where = "on the board (tokensAvailable): a pair of science symbols takes it"
    elif token in t.library:
        where = "drawn by THE_GREAT_LIBRARY (tokensFromUnavailable)"
    elif t.open_box:
        where = "in the box (tokensUnavailable): only THE_GREAT_LIBRARY can draw it"
    else:
        where = "not on the board: in the box, which this game keeps closed"
    effect = TOKEN_TEXT[name]
    return {"kind": "progress token", "name": name, "effect": effect, "where": where,
            "text": f"{name}: progress token; {effect}. {where[0].upper() + where[1:]}."}


def move_text(t: GameState, move: Move, price: int) -> str:
    """`move` of the seat in `t` (its own view, the seat to move) in a line: "build
    LUMBER_YARD (slot 3) for 2 coins", "discard BATHS (slot 7) for 3 coins"."""
    kind = move.kind
    if kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD, MoveKind.CONSTRUCT_WONDER):
        card = t.pyramid[move.card_index]
        name = CARDS[card].name
        slot = f"(slot {move.card_index})"
        if kind == MoveKind.DISCARD:
            return f"discard {name} {slot} for {coins(2 + t.players[ME].color_count[YELLOW])}"
        if kind == MoveKind.CONSTRUCT_WONDER:
            return f"build wonder {move.wonder} with {name} {slot} for {coins(price)}"
        chain = CHAIN_FROM[card]
        if chain >= 0 and t.players[ME].has_card(chain):
            return f"build {name} {slot} free through your {CARDS[chain].name}"
        return f"build {name} {slot} for {coins(price)}"
    if kind == MoveKind.SELECT_WONDER:
        return f"take wonder {move.wonder}"
    if kind in (MoveKind.CHOOSE_PROGRESS_TOKEN, MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD):
        return f"take progress token {move.token}"
    if kind == MoveKind.DESTROY_CARD:
        return f"destroy your opponent's {move.card_name}"
    if kind == MoveKind.CONSTRUCT_FROM_DISCARD:
        return f"build {move.card_name} from the discard pile for free"
    if kind == MoveKind.CHOOSE_STARTING_PLAYER:
        who = "you start" if move.player_number == YOU else "your opponent starts"
        return f"{who} Age {_AGES[t.age]}"
    return str(move)
