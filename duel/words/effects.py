"""The one table of what cards and wonders give, read by both its readers: the people's words
(`duel.words.cards`: the pages, the catalogue) and the model's short rules text
(`duel.prompts.reference`: the `{{CARDS}}` and `{{WONDERS}}` tables, the tools' explain and
simulate).

`of_card` and `of_wonder` read a card's or a wonder's fields from the engine's data once, into
`Effect`s in the order both readers list them. `TABLE` holds one row per kind of effect, its two
phrasings side by side: for people, in words and as icons (the pieces the pages draw: [icon,
count] or a short text between them); for the model, in the prompt's vocabulary (every name
spelled as the state spells it, WOOD, SCALE, and the step a wonder's effect opens, so that the
rules text and the state agree). A kind the pages show elsewhere (a card's chain: the catalogue
gives it as its own field) has no people's words.

The two phrasings differ on purpose where their readers do; both are what they were before this
table, byte for byte (the prompt's text is part of each variant's hash).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Effect:
    """One thing a card or a wonder gives: its row of `TABLE` and that row's figures."""

    kind: str
    args: tuple[Any, ...] = ()


# The engine's gains per thing in a city: what is counted, for people and their icon.
GAINS = {GAIN_PER_GREY: ("grey card", "card-grey"), GAIN_PER_BROWN: ("brown card", "card-brown"),
         GAIN_PER_RED: ("red card", "card-red"),
         GAIN_PER_YELLOW: ("yellow card (this one included)", "card-yellow"),
         GAIN_PER_WONDER: ("wonder built", "wonder")}


def of_card(card: Card) -> list[Effect]:
    """What `card` gives, in the order both readers list it."""
    out: list[Effect] = []
    if any(card.produces):
        out.append(Effect("produces", (card.produces,)))
    if card.wild:
        out.append(Effect("wild", (card.wild,)))
    if card.discount_mask:
        out.append(Effect("discount", (card.discount_mask,)))
    if card.symbol != NO_SYMBOL:
        out.append(Effect("symbol", (card.symbol,)))
    if card.shields:
        out.append(Effect("shields", (card.shields,)))
    if card.instant_coins:
        out.append(Effect("coins", (card.instant_coins,)))
    if card.gain in GAINS:
        out.append(Effect("gain", (card.gain, card.gain_amount)))
    if card.guild_kind == GUILD_WONDERS:
        out.append(Effect("guild_wonders"))
    elif card.guild_kind == GUILD_COINS:
        out.append(Effect("guild_coins"))
    elif card.guild_kind == GUILD_PER_CARD:
        if card.gain == GAIN_GUILD_MOST:
            out.append(Effect("guild_coin_per_card", (card.guild_colors,)))
        out.append(Effect("guild_vp_per_card", (card.guild_colors,)))
    if card.vp:
        out.append(Effect("vp", (card.vp,)))
    if card.chain_from:
        out.append(Effect("chain", (card.chain_from,)))
    return out


def of_wonder(wonder: Wonder) -> list[Effect]:
    """What `wonder` gives, in the order both readers list it."""
    out: list[Effect] = []
    if wonder.coins:
        out.append(Effect("coins", (wonder.coins,)))
    if wonder.opp_loses:
        out.append(Effect("opponent_loses", (wonder.opp_loses,)))
    if wonder.shields:
        out.append(Effect("shields", (wonder.shields,)))
    if wonder.destroy in (BROWN, GREY):
        out.append(Effect("destroy", (wonder.destroy,)))
    if wonder.wild:
        out.append(Effect("wild", (wonder.wild,)))
    if wonder.library:
        out.append(Effect("library"))
    if wonder.mausoleum:
        out.append(Effect("mausoleum"))
    if wonder.play_again:
        out.append(Effect("play_again"))
    if wonder.vp:
        out.append(Effect("vp", (wonder.vp,)))
    return out


# ---------------------------------------------------------------------- the phrasings' pieces
def resource_words(amounts: tuple[int, ...]) -> str:
    """Resources for people: "2 wood and 1 stone"."""
    return " and ".join(f"{n} {RESOURCE[RESOURCE_NAMES[r]]}" for r, n in enumerate(amounts) if n)


def _res_pieces(amounts: tuple[int, ...]) -> list[Any]:
    return [[RESOURCE[RESOURCE_NAMES[r]], n] for r, n in enumerate(amounts) if n]


def prompt_resources(amounts: tuple[int, ...]) -> list[str]:
    """Resources in the prompt's spelling: ["2 WOOD", "1 STONE"]."""
    return [f"{n} {RESOURCE_NAMES[r]}" for r, n in enumerate(amounts) if n]


def _bought(mask: int) -> list[str]:
    return [name for r, name in enumerate(RESOURCE_NAMES) if mask >> r & 1]


def _s(n: int) -> str:
    return "s" if n > 1 else ""


def _colours(colors: tuple[int, ...]) -> str:
    return " or ".join(COLOUR[COLOR_NAMES[k]] for k in colors)


def _card_icons(colors: tuple[int, ...]) -> list[Any]:
    return [["card-" + COLOUR[COLOR_NAMES[k]], 1] for k in colors]


_WILD_WORDS = {1: "one wood, brick or stone of your choice each turn",
               2: "one glass or papyrus of your choice each turn"}
_WILD_PIECES = {1: [["wood", 1], "/", ["brick", 1], "/", ["stone", 1]],
                2: [["glass", 1], "/", ["papyrus", 1]]}
_WILD_PROMPT = {1: "1 WOOD, BRICK or STONE of your choice each turn",
                2: "1 GLASS or PAPYRUS of your choice each turn"}


@dataclass(frozen=True)
class Row:
    """One kind of effect. `people` gives the words and icons the pages show (None: the pages
    show it elsewhere); `prompt` the words of the model's rules text. Both take the Effect's
    args."""

    people: Callable[..., tuple[str, list[Any]]] | None
    prompt: Callable[..., str]


TABLE: dict[str, Row] = {
    "produces": Row(
        lambda a: ("produces " + resource_words(a), _res_pieces(a)),
        lambda a: "produces " + ", ".join(prompt_resources(a))),
    "wild": Row(
        lambda w: ("produces " + _WILD_WORDS[w], _WILD_PIECES[w]),
        lambda w: "produces " + _WILD_PROMPT[w]),
    "discount": Row(
        lambda m: (" and ".join(RESOURCE[b] for b in _bought(m)) + " bought for 1 coin each",
                   [*([RESOURCE[b], 1] for b in _bought(m)), "=", ["coin", 1]]),
        lambda m: " and ".join(_bought(m)) + " bought for 1 coin each"),
    "symbol": Row(
        lambda s: (f"a science symbol (the {SYMBOL[SYMBOL_NAMES[s]]})",
                   [[SYMBOL[SYMBOL_NAMES[s]], 1]]),
        lambda s: "symbol " + SYMBOL_NAMES[s]),
    "shields": Row(
        lambda n: (plural(n, "shield"), [["shield", n]]),
        lambda n: f"{n} shield{_s(n)}"),
    "coins": Row(
        lambda n: (f"take {coins(n)}", [["coin", n]]),
        lambda n: f"take {n} coins"),  # no card or wonder gives 1 coin
    "gain": Row(
        lambda gain, n: (f"take {coins(n)} per {GAINS[gain][0]} in your city",
                         [["coin", n], "per", [GAINS[gain][1], 1]]),
        lambda gain, n: f"take {n} coin{_s(n)} per {GAINS[gain][0]} in your city"),
    "guild_wonders": Row(
        lambda: ("2 VP per wonder built in the city with the most wonders built",
                 [["vp", 2], "per", ["wonder", 1], "most"]),
        lambda: "2 VP per wonder built in the city with the most wonders built"),
    "guild_coins": Row(
        lambda: ("1 VP per 3 coins in the richest city", [["vp", 1], "per", ["coin", 3], "most"]),
        lambda: "1 VP per 3 coins in the richest city"),
    "guild_coin_per_card": Row(
        lambda cs: (f"take 1 coin per {_colours(cs)} card in the city with the most",
                    [["coin", 1], "per", *_card_icons(cs), "most"]),
        lambda cs: f"take 1 coin per {_colours(cs)} card in the city with the most"),
    "guild_vp_per_card": Row(
        lambda cs: (f"at the end 1 VP per {_colours(cs)} card in the city with the most",
                    [["vp", 1], "per", *_card_icons(cs), "most"]),
        lambda cs: f"at the end 1 VP per {_colours(cs)} card in the city with the most"),
    "vp": Row(
        lambda n: (f"{n} VP", [["vp", n]]),
        lambda n: f"{n} VP"),
    "chain": Row(
        None,  # the catalogue gives a card's chains as their own field
        lambda name: f"free if you own {name}"),
    "opponent_loses": Row(
        lambda n: (f"your opponent loses {coins(n)}", [["coin", -n]]),
        lambda n: f"the opponent loses {n} coins"),
    "destroy": Row(
        lambda c: (f"destroy a {COLOUR[COLOR_NAMES[c]]} card of your opponent's city",
                   [["destroy", 1], ["card-" + COLOUR[COLOR_NAMES[c]], 1]]),
        lambda c: (f"discard a {COLOR_NAMES[c].lower()} card of the opponent's city "
                   f"(step DESTROY_{COLOR_NAMES[c]})")),
    "library": Row(
        lambda: ("take 1 of 3 progress tokens drawn from those out of the game",
                 [["token", 1], "1 of 3"]),
        lambda: ("choose 1 of 3 progress tokens from the box "
                 "(step CHOOSE_PROGRESS_TOKEN_FROM_DISCARD)")),
    "mausoleum": Row(
        lambda: ("build a card of the discard pile for free", [["discard", 1], "free"]),
        lambda: "construct a card of the discard pile for free (step CONSTRUCT_FROM_DISCARD)"),
    "play_again": Row(
        lambda: ("play again", [["again", 1]]),
        lambda: "play again"),
}


def for_people(effects: list[Effect]) -> list[dict[str, Any]]:
    """The effects the pages show, each as {"text": words, "icons": pieces}."""
    out = []
    for e in effects:
        people = TABLE[e.kind].people
        if people is not None:
            text, icons = people(*e.args)
            out.append({"text": text, "icons": icons})
    return out


def for_prompt(effects: list[Effect]) -> str:
    """The effects in the words of the model's rules text, "; " between them."""
    return "; ".join(TABLE[e.kind].prompt(*e.args) for e in effects)
