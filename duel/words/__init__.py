"""The one writer of names and texts for people: the play page, the replay viewer, the lobby,
`duel match`'s narration and the leaderboard all say a card, a wonder, a step, a move, an agent
or a score row in these words, never in the identifiers of the prompt's JSON
(`THE_HANGING_GARDENS`, `CONSTRUCT_FROM_DISCARD`, `{"rule": "win now"}`).

One module per thing named: `names` (the vocabulary: names, counts, Ages, steps, score rows,
victories, the players' placeholders), `cards` (what cards, wonders and tokens give, in words and
icons), `effects` (the one table of what cards and wonders give, which the prompt reads too),
`moves` (a move and what it set off), `agents` (a spec, an attempt's category, an
agent's details), `pages` (what the pages embed as data), `narrate` (a game's lines).

The pages get what they need as data (`page_words()`, embedded with the card catalogue) and the
texts of moves written here (the server's log endpoint, the viewer's frames), so no page
restates a sentence. A move's text leaves its players as placeholders, "{1}" and "{2}" (the
player numbers of the state it was written from), for each reader to fill with its own labels
("You", "MCTS (player 2)"): `fill()`.

The names below stay importable from `duel.words` for the callers that say `words.name(...)`;
new code imports from the module that holds a name.
"""

from __future__ import annotations

from duel.engine.data import TOKEN_NAMES, WONDERS
from duel.words.agents import CATEGORY, agent_name, details_words
from duel.words.cards import TOKEN_TEXT, card_effects, cost_text, token_effects, wonder_effects
from duel.words.moves import move_json_text, move_notes, move_text
from duel.words.names import (
    AGES,
    COLOUR,
    RESOURCE,
    SCORE,
    STEP,
    SYMBOL,
    VICTORY,
    coins,
    fill,
    name,
    plural,
)
from duel.words.pages import FORCED, FORCED_FOR_YOU, page_words

__all__ = ["AGES", "CATEGORY", "COLOUR", "FORCED", "FORCED_FOR_YOU", "RESOURCE", "SCORE", "STEP",
           "SYMBOL", "TOKEN_NAMES", "TOKEN_TEXT", "VICTORY", "WONDERS", "agent_name",
           "card_effects", "coins", "cost_text", "details_words", "fill", "move_json_text",
           "move_notes", "move_text", "name", "page_words", "plural", "token_effects",
           "wonder_effects"]
