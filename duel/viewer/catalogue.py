"""What the board shows of each card, wonder and progress token: colour, cost, chains and effect
in words, read from the engine's tables (duel.engine.data), so the pages never restate a rule.
The pages' JavaScript gets it as one JSON object."""

from __future__ import annotations

from functools import cache
from typing import Any

from pyphen import Pyphen

from duel.engine.data import (
    CARDS,
    COLOR_NAMES,
    GAIN_GUILD_MOST,
    GAIN_PER_BROWN,
    GAIN_PER_GREY,
    GAIN_PER_RED,
    GAIN_PER_WONDER,
    GAIN_PER_YELLOW,
    GUILD_COINS,
    GUILD_PER_CARD,
    GUILD_WONDERS,
    RESOURCE_NAMES,
    SYMBOL_NAMES,
    TOKEN_NAMES,
    WONDERS,
    Card,
    Wonder,
)

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
GAIN_TEXT = {
    GAIN_PER_GREY: "coins per grey card in your city",
    GAIN_PER_BROWN: "coins per brown card in your city",
    GAIN_PER_RED: "coin per red card in your city",
    GAIN_PER_YELLOW: "coin per yellow card in your city",
    GAIN_PER_WONDER: "coins per wonder built in your city",
}


def pretty(name: str) -> str:
    """A card's, wonder's or token's name as people write it: "THE_GREAT_LIBRARY" -> "The
    Great Library"."""
    return " ".join(w.capitalize() for w in name.split("_"))


def _resources(cost: tuple[int, ...]) -> list[str]:
    return [RESOURCE_NAMES[r] for r, n in enumerate(cost) for _ in range(n)]


def _colors(colors: tuple[int, ...]) -> str:
    return " and ".join(COLOR_NAMES[c].lower() for c in colors)


def card_effects(c: Card) -> list[str]:
    """The card's effects, short, in the order the rulebook prints them."""
    out: list[str] = []
    made = _resources(c.produces)
    if made:
        out.append("produces " + " + ".join(r.lower() for r in made))
    if c.wild == 1:
        out.append("one wood, brick or stone a turn")
    if c.wild == 2:
        out.append("one glass or papyrus a turn")
    if c.discount_mask:
        out.append(" and ".join(RESOURCE_NAMES[r].lower() for r in range(5)
                                if c.discount_mask >> r & 1) + " bought at 1 coin")
    if c.shields:
        out.append(f"{c.shields} shield{'s' if c.shields > 1 else ''}")
    if c.symbol >= 0:
        out.append(f"science: {SYMBOL_NAMES[c.symbol].lower()}")
    if c.instant_coins:
        out.append(f"+{c.instant_coins} coins")
    if c.gain in GAIN_TEXT:
        out.append(f"+{c.gain_amount} {GAIN_TEXT[c.gain]}")
    if c.guild_kind == GUILD_WONDERS:
        out.append("2 VP per wonder in the city with the most")
    if c.guild_kind == GUILD_COINS:
        out.append("1 VP per 3 coins in the richest city")
    if c.guild_kind == GUILD_PER_CARD:
        what = _colors(c.guild_colors)
        gain = " (and 1 coin per such card now)" if c.gain == GAIN_GUILD_MOST else ""
        out.append(f"1 VP per {what} card in the city with the most{gain}")
    if c.vp:
        out.append(f"{c.vp} VP")
    return out


def wonder_effects(w: Wonder) -> list[str]:
    out: list[str] = []
    if w.coins:
        out.append(f"+{w.coins} coins")
    if w.opp_loses:
        out.append(f"opponent loses {w.opp_loses} coins")
    if w.shields:
        out.append(f"{w.shields} shield{'s' if w.shields > 1 else ''}")
    if w.destroy >= 0:
        out.append(f"destroy one of the opponent's {COLOR_NAMES[w.destroy].lower()} cards")
    if w.wild == 1:
        out.append("one wood, brick or stone a turn")
    if w.wild == 2:
        out.append("one glass or papyrus a turn")
    if w.library:
        out.append("pick one of 3 progress tokens from the box")
    if w.mausoleum:
        out.append("build a discarded card for free")
    if w.play_again:
        out.append("play again")
    if w.vp:
        out.append(f"{w.vp} VP")
    return out


SOFT_HYPHEN = "\u00ad"


@cache
def _hyphenator() -> Pyphen:
    return Pyphen(lang="en_US")


def breakable(name: str) -> str:
    """`name` with soft hyphens where English hyphenation (pyphen's patterns, LibreOffice's)
    allows a break in its long words: a narrow card tile or token then shows "Car-/avansery",
    never "Caravanser/y". Browsers' own hyphenation (CSS `hyphens: auto`) needs dictionaries
    Chromium on Linux may not have."""
    return " ".join(_hyphenator().inserted(w, hyphen=SOFT_HYPHEN) if len(w) >= 7 else w
                    for w in name.split(" "))


@cache
def catalogue() -> dict[str, Any]:
    """Every card, wonder and token by name: its name as people write it (and as a label to
    show in a narrow box, with soft hyphens), colour, Age, cost
    (coins and resources), chains (built free from / leads to) and effects in words (its
    printed VP among them). No scoring data: the pages show the engine's points, never count."""
    chains: dict[str, list[str]] = {}
    for c in CARDS:
        if c.chain_from:
            chains.setdefault(c.chain_from, []).append(c.name)
    cards = {c.name: {"name": pretty(c.name), "label": breakable(pretty(c.name)),
                      "color": COLOR_NAMES[c.color].lower(),
                      "age": c.age, "coins": c.coins, "resources": _resources(c.cost),
                      "chainFrom": c.chain_from or None, "chainTo": chains.get(c.name, []),
                      "effects": card_effects(c), "shields": c.shields,
                      "symbol": SYMBOL_NAMES[c.symbol].lower() if c.symbol >= 0 else None}
             for c in CARDS}
    wonders = {w.name: {"name": pretty(w.name), "resources": _resources(w.cost),
                        "effects": wonder_effects(w)} for w in WONDERS}
    tokens = {t: {"name": pretty(t), "label": breakable(pretty(t)), "effects": [TOKEN_TEXT[t]]}
              for t in TOKEN_NAMES}
    return {"cards": cards, "wonders": wonders, "tokens": tokens}
