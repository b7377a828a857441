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
    RESOURCE_NAMES,
    SYMBOL_NAMES,
    TOKEN_NAMES,
    WONDERS,
    Card,
    Wonder,
)
from duel.prompts.reference import card_effect, wonder_effect

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


def pretty(name: str) -> str:
    """A card's, wonder's or token's name as people write it: "THE_GREAT_LIBRARY" -> "The
    Great Library"."""
    return " ".join(w.capitalize() for w in name.split("_"))


def _resources(cost: tuple[int, ...]) -> list[str]:
    return [RESOURCE_NAMES[r] for r, n in enumerate(cost) for _ in range(n)]


def card_effects(c: Card) -> list[str]:
    """The card's effects in words: the same words the local rules text gives the LLM
    (`duel.prompts.reference`), one entry per effect."""
    return [e for e in card_effect(c).split("; ") if e]


def wonder_effects(w: Wonder) -> list[str]:
    return [e for e in wonder_effect(w).split("; ") if e]


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
