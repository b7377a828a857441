"""What an LLM seat keeps from one turn to the next, under its harness settings: the moves of
the game as its seat saw them (``history=``), and its own last note (``notes=on``).

The moves come from the game's runner, which tells every seat that observes (an agent with an
``observe`` method, duel.agents.observe) each move played: the seat's view before it, the move
in that view's labels, and the seat's view after it. A move is written from those views alone,
in the game's words (duel.words, the one writer): a sample of the view before it prices the
move and says what it set off (the views hold every fact the words need: a card taken is face
up, prices and loot are public), and the cards it revealed are those shown in the view after it
that lay face down before. No hidden card can reach the words, since none is in a view.

A seat's memory belongs to one game: a view of another game (its code) or of a game's start
empties it.
"""

from __future__ import annotations

import random
from typing import Any

from duel import words
from duel.engine import InfoSet, Move

NAMES = {1: "player 1", 2: "player 2 (you)"}
_BACKS = ("AGE_ONE_BACK", "AGE_TWO_BACK", "AGE_THREE_BACK", "GUILD_BACK")


def move_line(view: dict[str, Any], move: Move, after: dict[str, Any]) -> str:
    """One move, from the seat's views before and after it, in the game's words:
    "Age I: player 1 builds Lumber Yard for 2 coins; revealed: Baths"."""
    before = InfoSet.from_view(view).sample(random.Random(0))
    mover = NAMES[before.current + 1]
    text = words.fill(words.move_text(before, move, before.apply(move)), NAMES)
    age = "Draft" if view.get("step") == "WONDER_SELECTION" else \
        words.AGES.get(int(view.get("age", 1)), "")
    line = f"{age}: {mover[0].upper()}{mover[1:]} {text}"
    shown = revealed(view, after)
    if shown:
        line += "; revealed: " + ", ".join(words.name(c) for c in shown)
    if after.get("age") != view.get("age") and after.get("step") != "GAME_END":
        line += f" [{words.AGES.get(int(after.get('age', 1)), '')} begins]"
    return line


def revealed(view: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The cards of the structure that lay face down in `view` and show in `after` (the same
    Age's structure), in slot order."""
    if view.get("age") != after.get("age"):
        return []
    old = view.get("visiblePyramid") or {}
    new = after.get("visiblePyramid") or {}
    out = []
    for slot in sorted(new, key=int):
        card = new[slot].get("cardName")
        was = (old.get(slot) or {}).get("cardName")
        if was in _BACKS and card not in _BACKS:
            out.append(card)
    return out


def _game_start(view: dict[str, Any]) -> bool:
    return view.get("step") == "WONDER_SELECTION" and not any(
        view.get(p, {}).get("wonders") for p in ("player1", "player2"))


class SeatMemory:
    """One seat's moves so far (lines of words) and its last note, for one game at a time."""

    def __init__(self) -> None:
        self.code: str | None = None
        self.lines: list[str] = []
        self.note: str | None = None
        self.observed = False  # a runner has told this seat the game's moves

    def _game(self, view: dict[str, Any]) -> None:
        code = view.get("code")
        if code != self.code or (_game_start(view) and self.lines):
            self.code = code
            self.lines = []
            self.note = None
            self.observed = False

    def observe(self, view: dict[str, Any], move: Move, after: dict[str, Any]) -> None:
        self._game(view)
        self.observed = True
        self.lines.append(f"{len(self.lines) + 1:3d}. {move_line(view, move, after)}")

    def history(self, view: dict[str, Any]) -> list[str] | None:
        """The lines so far, or None when this position's past is unknown (a position asked
        alone, not in a game that was observed from its start)."""
        self._game(view)
        if not self.observed and not _game_start(view):
            return None
        return list(self.lines)

    def last_note(self, view: dict[str, Any]) -> str | None:
        self._game(view)
        return self.note
