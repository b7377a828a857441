"""The one writer of names and texts for people: the play page, the replay viewer, the lobby,
`duel match`'s narration and the leaderboard all say a card, a wonder, a step, a move, an agent
or a score row in these words, never in the identifiers of the prompt's JSON
(`THE_HANGING_GARDENS`, `CONSTRUCT_FROM_DISCARD`, `{"rule": "win now"}`).

The pages get what they need as data (`page_words()`, embedded with the card catalogue) and the
texts of moves written here (the server's log endpoint, the viewer's frames), so no page
restates a sentence. A move's text leaves its players as placeholders, "{1}" and "{2}" (the
player numbers of the state it was written from), for each reader to fill with its own labels
("You", "MCTS (player 2)"): `fill()`.
"""

from __future__ import annotations

import re
from typing import Any

from duel.engine import CARDS, GameState, Move
from duel.engine.data import (
    BROWN,
    CHAIN_FROM,
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
    TOKEN_NAMES,
    WONDERS,
    YELLOW,
    Card,
    Wonder,
)
from duel.engine.moves import MoveKind
from duel.engine.steps import CHOOSE_START, LOOT2_P1, LOOT2_P2, LOOT5_P1, LOOT5_P2, PLAY_CARD
from duel.errors import InvalidMoveError
from duel.prompts.harness import OPTIONS as HARNESS_OPTIONS

AGES = {1: "Age I", 2: "Age II", 3: "Age III"}

# Names as the cards print them: words capitalised, "of", "the" and "and" inside a name not
# ("Chamber of Commerce", "The Statue of Zeus"); any name spelled otherwise goes here.
_SPELLED: dict[str, str] = {}

RESOURCE = {n: n.lower() for n in RESOURCE_NAMES}
SYMBOL = {"WHEEL": "wheel", "PENDULUM": "pendulum", "QUILL": "quill", "MORTAR": "mortar",
          "SUNDIAL": "sundial", "GLOBE": "globe", "SCALE": "scale"}
COLOUR = {n: n.lower() for n in COLOR_NAMES}

STEP = {
    "WONDER_SELECTION": "wonder draft",
    "PLAY_CARD": "take a card",
    "CHOOSE_PROGRESS_TOKEN": "choose a progress token",
    "DESTROY_GREY": "destroy a grey card",
    "DESTROY_BROWN": "destroy a brown card",
    "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD": "choose a token with the Great Library",
    "CONSTRUCT_FROM_DISCARD": "build from the discard pile with the Mausoleum",
    "CHOOSE_STARTING_PLAYER": "choose who starts the Age",
    "GAME_END": "game over",
}

SCORE = (("CIVILIAN_BUILDING", "blue cards"), ("SCIENTIFIC_BUILDING", "green cards"),
         ("COMMERCIAL_BUILDING", "yellow cards"), ("GUILD", "guilds"),
         ("MILITARY_BUILDING", "military"), ("WONDER", "wonders"), ("MONEY", "coins"),
         ("PROGRESS_TOKEN", "progress tokens"), ("TOTAL", "total"))

VICTORY = {"military": "by military supremacy", "science": "by scientific supremacy",
           "civilian": "on points", "forfeit": "by forfeit"}

# An LLM's or a remote bot's attempt, by its category (duel.agents.llm.categories).
CATEGORY = {"OK": "a legal move", "ILLEGAL": "an illegal move", "SCHEMA": "not a move",
            "UNPARSABLE": "no move in the reply", "EMPTY": "an empty reply",
            "TRUNCATED": "cut off at its token limit", "TRANSPORT": "no answer in time",
            "REFUSED": "refused by the remote server", "TOOLS": "looked something up",
            "TOOL_STEPS": "its tool steps used up without a move"}

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

_SMALL = {"OF", "THE", "AND"}
_PLAYER = re.compile(r"\{([12])\}")


def name(identifier: str) -> str:
    """A card's, wonder's, token's, resource's or symbol's name as people write it:
    "THE_GREAT_LIBRARY" -> "The Great Library", "LUMBER_YARD" -> "Lumber Yard"."""
    if identifier in _SPELLED:
        return _SPELLED[identifier]
    parts = identifier.split("_")
    return " ".join(w.lower() if k and w in _SMALL else w.capitalize()
                    for k, w in enumerate(parts))


def coins(n: int) -> str:
    return f"{n} coin" if n == 1 else f"{n} coins"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def fill(text: str, names: dict[int, str]) -> str:
    """A move's text with its "{1}"/"{2}" placeholders replaced by `names`."""
    return _PLAYER.sub(lambda m: names.get(int(m.group(1)), f"player {m.group(1)}"), text)


# ---------------------------------------------------------------------- effects
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


# ---------------------------------------------------------------------- moves
def move_text(before: GameState, move: Move, after: GameState | None = None) -> str:
    """`move`, played in `before`, in words without its player ("builds Lumber Yard for 2
    coins"), the players it names as "{1}"/"{2}" (fill()). With `after`, what followed is
    added: "; plays again", "; player 2 loses 5 coins (military)"."""
    seat = before.current
    kind = move.kind
    if kind == MoveKind.SELECT_WONDER:
        text = f"takes {name(move.wonder)}"
    elif kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD, MoveKind.CONSTRUCT_WONDER):
        card = before.pyramid[move.card_index]
        card_name = name(CARDS[card].name) if card >= 0 else f"the card in slot {move.card_index}"
        if kind == MoveKind.DISCARD:
            gain = 2 + before.players[seat].color_count[YELLOW]
            text = f"discards {card_name} for {coins(gain)}"
        elif kind == MoveKind.CONSTRUCT_WONDER:
            price = before.price(move)
            text = (f"builds {name(move.wonder)} with {card_name}"
                    + (f" for {coins(price)}" if price else " for free"))
        else:
            chain = CHAIN_FROM[card] if card >= 0 else -1
            if chain >= 0 and before.players[seat].has_card(chain):
                text = f"builds {card_name} for free by its chain from {name(CARDS[chain].name)}"
            else:
                price = before.price(move)
                text = f"builds {card_name}" + (f" for {coins(price)}" if price else " for free")
    elif kind == MoveKind.CHOOSE_PROGRESS_TOKEN:
        text = f"takes the progress token {name(move.token)}"
    elif kind == MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD:
        text = f"takes the progress token {name(move.token)} with the Great Library"
    elif kind == MoveKind.DESTROY_CARD:
        text = f"destroys {{{2 - seat}}}'s {name(move.card_name)}"
    elif kind == MoveKind.CONSTRUCT_FROM_DISCARD:
        text = f"builds {name(move.card_name)} from the discard pile with the Mausoleum"
    elif kind == MoveKind.CHOOSE_STARTING_PLAYER:
        age = AGES.get(before.age, f"Age {before.age}")
        text = (f"starts {age}" if move.player_number == seat + 1
                else f"lets {{{move.player_number}}} start {age}")
    else:  # pragma: no cover - every kind is named above
        raise InvalidMoveError(f"no words for a move of kind {kind}")
    if after is not None:
        notes = move_notes(before, move, after)
        if notes:
            text += "; " + "; ".join(notes)
    return text


_LOOT = ((LOOT2_P1, 1, 2), (LOOT5_P1, 1, 5), (LOOT2_P2, 2, 2), (LOOT5_P2, 2, 5))


def move_notes(before: GameState, move: Move, after: GameState) -> list[str]:
    """What a move set off: military loot, a second turn."""
    notes = []
    seat = before.current
    for bit, victim, n in _LOOT:
        if before.loot & bit and not after.loot & bit:
            notes.append(f"{{{victim}}} loses {coins(n)} (military)")
    # The turn is over and the same player goes on (a play-again wonder, Theology).
    if (after.step == PLAY_CARD and after.current == seat and before.step != CHOOSE_START
            and after.age == before.age and move.kind != MoveKind.CHOOSE_STARTING_PLAYER):
        notes.append("plays again")
    return notes


def move_json_text(before: GameState, move_json: Any) -> str | None:
    """A move given as the prompt's JSON, in words (None if it is not a legal move there)."""
    try:
        move = Move.from_json(move_json)
        return move_text(before, move) if move in before.legal_moves() else None
    except Exception:  # noqa: BLE001 - a bad record is shown without words, never a crash
        return None


# ---------------------------------------------------------------------- agents
_KIND = {"random": "random", "rule": "rule-based", "dqn": "the learned agent (DQN)",
         "external": "a person or bot", "human": "a person"}


def agent_name(spec: str | None) -> str:
    """An agent spec in words: "mcts:time=1" -> "MCTS at 1 s a move", "llm:local" -> "the
    local model", "llm:openai:gpt-5-mini" -> "gpt-5-mini on openai"."""
    if not spec:
        return "unknown"
    kind, _, rest = spec.partition(":")
    opts = dict(o.partition("=")[::2] for o in rest.split(",") if "=" in o)
    if kind in _KIND and not rest:
        return _KIND[kind]
    if kind == "mcts":
        if "time" in opts:
            return f"MCTS at {opts['time']} s a move"
        if "iterations" in opts:
            return f"MCTS at {opts['iterations']} iterations"
        return "MCTS"
    if kind == "llm":
        provider, _, model = rest.split(",")[0].partition(":")
        # a player is its spec, harness settings included (duel.prompts.harness)
        harness = [f"{k}={opts[k]}" for k in HARNESS_OPTIONS if k in opts]
        tail = f" ({', '.join(harness)})" if harness else ""
        if not model:  # only the shipped model is named without one (llm:local)
            return "the local model" + tail
        model = model.split("@")[0] or provider
        return (f"{model} on {provider}" if model != provider else model) + tail
    if kind == "http":
        return "a remote bot"
    return _KIND.get(kind, spec.split(",")[0])


def details_words(details: dict[str, Any]) -> list[str]:
    """The lines of an agent's details that are not search statistics or LLM calls, in words
    (the rule agent's reason, a search's reuse)."""
    out = []
    if "rule" in details:
        out.append(f"Why: {details['rule']}")
    if details.get("reused"):
        out.append(f"kept {details['reused']} visits from its previous search")
    if details.get("workers"):
        out.append(f"searched in {details['workers']} processes")
    return out


FORCED = "the only move"
FORCED_FOR_YOU = "played for you: the only move"


def page_words() -> dict[str, Any]:
    """What the pages embed: every table of words above."""
    return {"step": STEP, "score": [list(r) for r in SCORE], "victory": VICTORY,
            "category": CATEGORY, "resource": RESOURCE, "symbol": SYMBOL, "ages": AGES,
            "forced": FORCED, "forcedForYou": FORCED_FOR_YOU}


__all__ = ["AGES", "CATEGORY", "SCORE", "STEP", "TOKEN_NAMES", "VICTORY", "WONDERS",
           "agent_name", "card_effects", "coins", "fill", "move_text", "name", "page_words",
           "token_effects", "wonder_effects"]
