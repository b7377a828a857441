"""Telling seats the moves of their game (as OpenSpiel's bots are told with `inform_action`).

An agent that keeps track of its game defines ``observe(view, move, after)``: after every move
of the game, either seat's, the runner calls it with the agent's seat's view before the move, the
move in that view's labels and the seat's view after it (the seat is player2 in both, as in
`choose`). The views are the seat's own, so what an agent learns this way is what its seat saw.
Agents without the method (most), or whose ``observing`` is false, are not told, and cost
nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duel.engine import GameState, Move, Perspective


def inform(agents: Sequence[Any], before: GameState, move: Move, after: GameState) -> None:
    """Tell each observing agent (agents[0] plays player 1) that `move` was played."""
    for number, agent in enumerate(agents, start=1):
        observe = getattr(agent, "observe", None)
        if observe is None or not getattr(agent, "observing", True):
            continue
        seen = Perspective.of_player(number)
        observe(seen.view(before), seen.move_out(move), seen.view(after))
