"""Cards, wonders and progress tokens for people: what each gives, in words and as icons (the
pieces the pages draw: [icon, count] or a short text between them), and a cost in words."""

from __future__ import annotations

from typing import Any

from duel.engine.data import Card, Wonder
from duel.words.effects import for_people, of_card, of_wonder, resource_words
from duel.words.names import coins

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


def card_effects(c: Card) -> list[dict[str, Any]]:
    """What a card gives, each effect in words and as icons (pieces: [icon, count] or a short
    text between them), from the one table of effects (duel.words.effects)."""
    return for_people(of_card(c))


def wonder_effects(w: Wonder) -> list[dict[str, Any]]:
    return for_people(of_wonder(w))


def token_effects(token: str) -> list[dict[str, Any]]:
    return [{"text": TOKEN_TEXT[token], "icons": _TOKEN_ICONS[token]}]


def cost_text(coin_cost: int, resources: tuple[int, ...]) -> str:
    parts = ([coins(coin_cost)] if coin_cost else []) + (
        [resource_words(resources)] if any(resources) else [])
    return " and ".join(parts) or "free"
