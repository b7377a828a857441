"""Kinds of decisions, by the step a decision is made in: what the analyser's figures, the
position suites and their published schemas group decisions by."""

from __future__ import annotations

from typing import Final

from duel.engine.moves import Move, MoveKind

__all__ = ["KINDS", "decision_kind"]

# Decision kinds, by the step the decision was made in (and, on a turn, by the move played:
# a wonder built is a "wonder" decision, a card built or discarded a "card" one).
KINDS: Final = ("draft", "card", "wonder", "token", "destroy", "start_player")
_KIND_OF_STEP: Final = {
    "WONDER_SELECTION": "draft",
    "CHOOSE_PROGRESS_TOKEN": "token",
    "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD": "token",
    "DESTROY_GREY": "destroy",
    "DESTROY_BROWN": "destroy",
    "CONSTRUCT_FROM_DISCARD": "card",  # the Mausoleum's card: a card decision
    "CHOOSE_STARTING_PLAYER": "start_player",
}


def decision_kind(step: str, move: Move) -> str:
    """The kind of a decision made at `step` (the step's name) by playing `move`."""
    if step == "PLAY_CARD":
        return "wonder" if move.kind == MoveKind.CONSTRUCT_WONDER else "card"
    return _KIND_OF_STEP[step]
