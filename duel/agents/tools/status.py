"""What a seat knows of its game at one moment, whoever hosts the game: its view (in which it is
player2, as the rules prompt says), the moves played so far, whether the game is over and how it
ended. Every answer of the tool set is computed from this and nothing else, so no answer can
depend on a card the seat has not seen."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from duel.engine import InfoSet, Result, Seat

# The view's label of the seat itself and of its opponent ("You are always player2").
YOU = 2
OPPONENT = 1


@dataclass(frozen=True)
class SeatStatus:
    """One seat's knowledge of its game. `seat` is its true seat (player 1 drafts first);
    `view` the prompt's JSON state as the seat sees it; `ply` the moves played (None where the
    host does not say: an agent is handed the view alone); `result` the end of a game that is
    over (true labels)."""

    seat: Seat
    view: dict[str, Any]
    ply: int | None
    over: bool
    result: Result | None = None

    @property
    def your_turn(self) -> bool:
        """Whether the seat is to move (never once the game is over)."""
        return (not self.over and self.view.get("step") != "GAME_END"
                and self.view.get("currentPlayerNumber") == YOU)

    @cached_property
    def info(self) -> InfoSet:
        """The view read by the engine's one state loader (hidden cards stay unknown)."""
        return InfoSet.from_view(self.view)

    def result_json(self) -> dict[str, Any] | None:
        """The end of the game for a tool's answer: `winner` (1, 2 or null for a shared
        victory, in true labels like `seat`), `victory`, and from the seat's side `you`
        ("won", "lost" or "draw") and each side's points."""
        r = self.result
        if r is None:
            return None
        you = "draw" if r.winner is None else ("won" if r.winner is self.seat else "lost")
        out: dict[str, Any] = {
            "winner": None if r.winner is None else r.winner.player, "victory": r.victory,
            "you": you, "points": {"you": r.total(self.seat),
                                   "opponent": r.total(self.seat.other)}}
        if r.forfeit is not None:
            out["forfeit"] = r.forfeit.player
        return out
