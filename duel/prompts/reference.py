"""Card and wonder tables for short rules texts, written from the engine's own data.

A rules text names a table with a placeholder on a line of its own (``{{CARDS}}``,
``{{WONDERS}}``); the variant loader puts the table there. The tables are read from
`duel.engine.data`, so a short prompt states every cost and effect exactly as the engine plays it
(docs/rules.md §1-§2) and spells every name as the state does.
"""

from __future__ import annotations

from collections.abc import Callable

from duel.engine.data import (
    BROWN,
    CARDS,
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
    WONDERS,
    Card,
    Wonder,
)

_AGES = {1: "Age I", 2: "Age II", 3: "Age III"}
_WILD = {1: "1 WOOD, BRICK or STONE of your choice each turn",
         2: "1 GLASS or PAPYRUS of your choice each turn"}
_GAIN = {GAIN_PER_GREY: "grey card", GAIN_PER_BROWN: "brown card", GAIN_PER_RED: "red card",
         GAIN_PER_YELLOW: "yellow card (this one included)", GAIN_PER_WONDER: "wonder built"}


def _resources(amounts: tuple[int, ...]) -> list[str]:
    return [f"{n} {RESOURCE_NAMES[r]}" for r, n in enumerate(amounts) if n]


def _cost(coins: int, resources: tuple[int, ...]) -> str:
    parts = ([f"{coins} coin{'s' if coins > 1 else ''}"] if coins else []) + _resources(resources)
    return ", ".join(parts) or "free"


def _colours(colors: tuple[int, ...]) -> str:
    return " or ".join(COLOR_NAMES[c].lower() for c in colors)


def card_effect(card: Card) -> str:
    """What a card gives, in the words the short rules text uses."""
    out: list[str] = []
    if any(card.produces):
        out.append("produces " + ", ".join(_resources(card.produces)))
    if card.wild:
        out.append("produces " + _WILD[card.wild])
    if card.discount_mask:
        bought = [name for r, name in enumerate(RESOURCE_NAMES) if card.discount_mask >> r & 1]
        out.append(" and ".join(bought) + " bought for 1 coin each")
    if card.symbol != NO_SYMBOL:
        out.append("symbol " + SYMBOL_NAMES[card.symbol])
    if card.shields:
        out.append(f"{card.shields} shield{'s' if card.shields > 1 else ''}")
    if card.instant_coins:
        out.append(f"take {card.instant_coins} coins")
    if card.gain in _GAIN:
        out.append(f"take {card.gain_amount} coin{'s' if card.gain_amount > 1 else ''} "
                   f"per {_GAIN[card.gain]} in your city")
    if card.guild_kind == GUILD_WONDERS:
        out.append("2 VP per wonder built in the city with the most wonders built")
    elif card.guild_kind == GUILD_COINS:
        out.append("1 VP per 3 coins in the richest city")
    elif card.guild_kind == GUILD_PER_CARD:
        what = _colours(card.guild_colors) + " card"
        if card.gain == GAIN_GUILD_MOST:
            out.append(f"take 1 coin per {what} in the city with the most")
        out.append(f"at the end 1 VP per {what} in the city with the most")
    if card.vp:
        out.append(f"{card.vp} VP")
    if card.chain_from:
        out.append(f"free if you own {card.chain_from}")
    return "; ".join(out)


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
    out: list[str] = []
    if wonder.coins:
        out.append(f"take {wonder.coins} coins")
    if wonder.opp_loses:
        out.append(f"the opponent loses {wonder.opp_loses} coins")
    if wonder.shields:
        out.append(f"{wonder.shields} shield{'s' if wonder.shields > 1 else ''}")
    if wonder.destroy in (BROWN, GREY):
        out.append(f"discard a {COLOR_NAMES[wonder.destroy].lower()} card of the opponent's "
                   f"city (step DESTROY_{COLOR_NAMES[wonder.destroy]})")
    if wonder.wild:
        out.append("produces " + _WILD[wonder.wild])
    if wonder.library:
        out.append("choose 1 of 3 progress tokens from the box "
                   "(step CHOOSE_PROGRESS_TOKEN_FROM_DISCARD)")
    if wonder.mausoleum:
        out.append("construct a card of the discard pile for free (step CONSTRUCT_FROM_DISCARD)")
    if wonder.play_again:
        out.append("play again")
    if wonder.vp:
        out.append(f"{wonder.vp} VP")
    return "; ".join(out)


def wonder_table() -> str:
    """Every wonder: `NAME: cost -> effect`."""
    return "\n".join(f"{w.name}: {_cost(0, w.cost)} -> {wonder_effect(w)}" for w in WONDERS)


TABLES: dict[str, Callable[[], str]] = {"CARDS": card_table, "WONDERS": wonder_table}
