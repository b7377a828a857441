"""The vocabulary every other words module uses: names as people write them ("The Great
Library", not THE_GREAT_LIBRARY), counted nouns, the Ages, steps, score rows and victories, and
the "{1}"/"{2}" placeholders a move's text leaves for each reader's own labels (`fill`)."""

from __future__ import annotations

import re

from duel.engine.data import COLOR_NAMES, RESOURCE_NAMES

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
