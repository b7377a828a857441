"""What the pages embed as data (`page_words()`, beside the card catalogue), so that no page
restates a sentence of duel's words."""

from __future__ import annotations

from typing import Any

from duel.words.agents import CATEGORY
from duel.words.names import AGES, RESOURCE, SCORE, STEP, SYMBOL, VICTORY

FORCED = "the only move"
FORCED_FOR_YOU = "played for you: the only move"


def page_words() -> dict[str, Any]:
    """What the pages embed: the tables of words the pages say themselves."""
    return {"step": STEP, "score": [list(r) for r in SCORE], "victory": VICTORY,
            "category": CATEGORY, "resource": RESOURCE, "symbol": SYMBOL, "ages": AGES,
            "forced": FORCED, "forcedForYou": FORCED_FOR_YOU}
