"""Card and wonder tables for short rules texts, written from the engine's own data.

A rules text names a table with a placeholder on a line of its own (``{{CARDS}}``,
``{{WONDERS}}``); the variant loader puts the table there. The tables are read from
`duel.engine.data`, so a short prompt states every cost and effect exactly as the engine plays it
(docs/rules.md §1-§2) and spells every name as the state does. The effects are the one table
that the people's words read too (duel.words.effects), in the prompt's phrasing.
"""

from __future__ import annotations

from collections.abc import Callable

from duel.engine.data import CARDS, COLOR_NAMES, WONDERS, Card, Wonder
from duel.words.effects import for_prompt, of_card, of_wonder, prompt_resources

_AGES = {1: "Age I", 2: "Age II", 3: "Age III"}


def _cost(coins: int, resources: tuple[int, ...]) -> str:
    parts = ([f"{coins} coin{'s' if coins > 1 else ''}"] if coins else []) + \
        prompt_resources(resources)
    return ", ".join(parts) or "free"


def card_effect(card: Card) -> str:
    """What a card gives, in the words the short rules text uses (the one table of effects,
    duel.words.effects, in the prompt's phrasing)."""
    return for_prompt(of_card(card))


def card_table() -> str:
    """Every card, by Age and colour: `NAME: cost -> effect`."""
    lines: list[str] = []
    for age in (1, 2, 3):
        for color in range(len(COLOR_NAMES)):
            cards = [c for c in CARDS if c.age == age and c.color == color]
            if not cards:
                continue
            title = "guilds (purple)" if COLOR_NAMES[color] == "PURPLE" \
                else COLOR_NAMES[color].lower()
            lines.append(f"{_AGES[age]}, {title}:")
            lines.extend(f"{c.name}: {_cost(c.coins, c.cost)} -> {card_effect(c)}" for c in cards)
    return "\n".join(lines)


def wonder_effect(wonder: Wonder) -> str:
    return for_prompt(of_wonder(wonder))


def wonder_table() -> str:
    """Every wonder: `NAME: cost -> effect`."""
    return "\n".join(f"{w.name}: {_cost(0, w.cost)} -> {wonder_effect(w)}" for w in WONDERS)


TABLES: dict[str, Callable[[], str]] = {"CARDS": card_table, "WONDERS": wonder_table}
