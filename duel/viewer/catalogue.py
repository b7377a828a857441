"""What the board shows of each card, wonder and progress token: colour, cost, chains and effect
in words and as icons, read from the engine's tables (duel.engine.data) through the one writer
of names and texts (duel.words), so the pages never restate a rule or a name. The pages'
JavaScript gets it as one JSON object, with the words of steps, moves, scores and agents."""

from __future__ import annotations

from functools import cache
from typing import Any

from pyphen import Pyphen

from duel.engine.data import CARDS, COLOR_NAMES, RESOURCE_NAMES, SYMBOL_NAMES, TOKEN_NAMES, WONDERS
from duel.words.cards import card_effects, token_effects, wonder_effects
from duel.words.names import SYMBOL
from duel.words.names import name as pretty
from duel.words.pages import page_words


def _resources(cost: tuple[int, ...]) -> list[str]:
    return [RESOURCE_NAMES[r] for r, n in enumerate(cost) for _ in range(n)]


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
                      "symbol": SYMBOL[SYMBOL_NAMES[c.symbol]] if c.symbol >= 0 else None}
             for c in CARDS}
    wonders = {w.name: {"name": pretty(w.name), "label": breakable(pretty(w.name)),
                        "resources": _resources(w.cost),
                        "effects": wonder_effects(w)} for w in WONDERS}
    tokens = {t: {"name": pretty(t), "label": breakable(pretty(t)),
                  "effects": token_effects(t)} for t in TOKEN_NAMES}
    return {"cards": cards, "wonders": wonders, "tokens": tokens, "words": page_words()}
