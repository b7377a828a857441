"""Cards, wonders and progress tokens for people: what each gives, in words and as icons (the
pieces the pages draw: [icon, count] or a short text between them), and a cost in words."""

from __future__ import annotations

from typing import Any

from duel.engine.data import (
    BROWN,
    COLOR_NAMES,
    GAIN_GUILD_MOST,
    GAIN_PER_BROWN,
    GAIN_PER_GREY,
    GAIN_PER_RED,
    GAIN_PER_WONDER,
    GAIN_PER_YELLOW,
    GREY,
    GUILD_COINS,
    GUILD_PER_CARD,
    GUILD_WONDERS,
    NO_SYMBOL,
    RESOURCE_NAMES,
    SYMBOL_NAMES,
    Card,
    Wonder,
)
from duel.words.names import COLOUR, RESOURCE, SYMBOL, coins, plural

# rules.md §8: what each progress token does.
TOKEN_TEXT = {
    "AGRICULTURE": "6 coins now and 4 VP",
    "ARCHITECTURE": "each wonder you build costs 2 fewer resources (of your choice)",
    "ECONOMY": "the coins your opponent spends trading for resources go to you",
    "LAW": "a science symbol (the scale)",
    "MASONRY": "each blue card you build costs 2 fewer resources",
    "MATHEMATICS": "3 VP per progress token you have, this one included",
    "PHILOSOPHY": "7 VP",
    "STRATEGY": "each red card you build moves the conflict pawn one more space",
    "THEOLOGY": "each wonder you build from now on lets you play again",
    "URBANISM": "6 coins now; 4 coins each time you build a card for free by its chain",
}
# A token's effect as icons (the text above is its tooltip and its words).
_TOKEN_ICONS: dict[str, list[Any]] = {
    "AGRICULTURE": [["coin", 6], ["vp", 4]], "ARCHITECTURE": [["wonder", 1], "−2", ["any", 1]],
    "ECONOMY": [["trade", 1], "→", ["coin", 0]], "LAW": [["scale", 1]],
    "MASONRY": [["card-blue", 1], "−2", ["any", 1]], "MATHEMATICS": [["vp", 3], "×", ["token", 1]],
    "PHILOSOPHY": [["vp", 7]], "STRATEGY": [["shield", 1], "+1"],
    "THEOLOGY": [["wonder", 1], ["again", 1]], "URBANISM": [["coin", 6], ["chain", 1], ["coin", 4]],
}


def _res_pieces(amounts: tuple[int, ...]) -> list[Any]:
    return [[RESOURCE[RESOURCE_NAMES[r]], n] for r, n in enumerate(amounts) if n]


def _res_words(amounts: tuple[int, ...]) -> str:
    return " and ".join(f"{n} {RESOURCE[RESOURCE_NAMES[r]]}" for r, n in enumerate(amounts) if n)


_WILD_PIECES = {1: [["wood", 1], "/", ["brick", 1], "/", ["stone", 1]],
                2: [["glass", 1], "/", ["papyrus", 1]]}
_WILD_WORDS = {1: "one wood, brick or stone of your choice each turn",
               2: "one glass or papyrus of your choice each turn"}
_GAIN = {GAIN_PER_GREY: ("grey card", "card-grey"), GAIN_PER_BROWN: ("brown card", "card-brown"),
         GAIN_PER_RED: ("red card", "card-red"),
         GAIN_PER_YELLOW: ("yellow card (this one included)", "card-yellow"),
         GAIN_PER_WONDER: ("wonder built", "wonder")}


def _effect(text: str, icons: list[Any]) -> dict[str, Any]:
    return {"text": text, "icons": icons}


def card_effects(c: Card) -> list[dict[str, Any]]:
    """What a card gives, each effect in words and as icons (pieces: [icon, count] or a short
    text between them)."""
    out: list[dict[str, Any]] = []
    if any(c.produces):
        out.append(_effect("produces " + _res_words(c.produces), _res_pieces(c.produces)))
    if c.wild:
        out.append(_effect("produces " + _WILD_WORDS[c.wild], _WILD_PIECES[c.wild]))
    if c.discount_mask:
        bought = [RESOURCE[n] for r, n in enumerate(RESOURCE_NAMES) if c.discount_mask >> r & 1]
        out.append(_effect(" and ".join(bought) + " bought for 1 coin each",
                           [*([b, 1] for b in bought), "=", ["coin", 1]]))
    if c.symbol != NO_SYMBOL:
        sym = SYMBOL[SYMBOL_NAMES[c.symbol]]
        out.append(_effect(f"a science symbol (the {sym})", [[sym, 1]]))
    if c.shields:
        out.append(_effect(plural(c.shields, "shield"), [["shield", c.shields]]))
    if c.instant_coins:
        out.append(_effect(f"take {coins(c.instant_coins)}", [["coin", c.instant_coins]]))
    if c.gain in _GAIN:
        what, icon = _GAIN[c.gain]
        out.append(_effect(f"take {coins(c.gain_amount)} per {what} in your city",
                           [["coin", c.gain_amount], "per", [icon, 1]]))
    if c.guild_kind == GUILD_WONDERS:
        out.append(_effect("2 VP per wonder built in the city with the most wonders built",
                           [["vp", 2], "per", ["wonder", 1], "most"]))
    elif c.guild_kind == GUILD_COINS:
        out.append(_effect("1 VP per 3 coins in the richest city",
                           [["vp", 1], "per", ["coin", 3], "most"]))
    elif c.guild_kind == GUILD_PER_CARD:
        colours = " or ".join(COLOUR[COLOR_NAMES[k]] for k in c.guild_colors)
        icons: list[Any] = [["card-" + COLOUR[COLOR_NAMES[k]], 1] for k in c.guild_colors]
        if c.gain == GAIN_GUILD_MOST:
            out.append(_effect(f"take 1 coin per {colours} card in the city with the most",
                               [["coin", 1], "per", *icons, "most"]))
        out.append(_effect(f"at the end 1 VP per {colours} card in the city with the most",
                           [["vp", 1], "per", *icons, "most"]))
    if c.vp:
        out.append(_effect(f"{c.vp} VP", [["vp", c.vp]]))
    return out


def wonder_effects(w: Wonder) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if w.coins:
        out.append(_effect(f"take {coins(w.coins)}", [["coin", w.coins]]))
    if w.opp_loses:
        out.append(_effect(f"your opponent loses {coins(w.opp_loses)}",
                           [["coin", -w.opp_loses]]))
    if w.shields:
        out.append(_effect(plural(w.shields, "shield"), [["shield", w.shields]]))
    if w.destroy in (BROWN, GREY):
        colour = COLOUR[COLOR_NAMES[w.destroy]]
        out.append(_effect(f"destroy a {colour} card of your opponent's city",
                           [["destroy", 1], ["card-" + colour, 1]]))
    if w.wild:
        out.append(_effect("produces " + _WILD_WORDS[w.wild], _WILD_PIECES[w.wild]))
    if w.library:
        out.append(_effect("take 1 of 3 progress tokens drawn from those out of the game",
                           [["token", 1], "1 of 3"]))
    if w.mausoleum:
        out.append(_effect("build a card of the discard pile for free",
                           [["discard", 1], "free"]))
    if w.play_again:
        out.append(_effect("play again", [["again", 1]]))
    if w.vp:
        out.append(_effect(f"{w.vp} VP", [["vp", w.vp]]))
    return out


def token_effects(token: str) -> list[dict[str, Any]]:
    return [_effect(TOKEN_TEXT[token], _TOKEN_ICONS[token])]


def cost_text(coin_cost: int, resources: tuple[int, ...]) -> str:
    parts = ([coins(coin_cost)] if coin_cost else []) + (
        [_res_words(resources)] if any(resources) else [])
    return " and ".join(parts) or "free"
