"""Telling seats the moves of their game (as OpenSpiel's bots are told with `inform_action`).

An agent that keeps track of its game defines ``observe(view, move, after)``: after every move
of the game, either seat's, the runner calls it with the agent's seat's view before the move, the
move in that view's labels and the seat's view after it (the seat is player2 in both, as in
`choose`). The views are the seat's own, so what an agent learns this way is what its seat saw.
Agents without the method (most), or whose ``observing`` is false, are not told, and cost
nothing.

A game resumed from its stored moves (a server's restart) tells its seats the moves again
(``inform`` for each), and hands each seat's agent the details it recorded with its own moves
(``recall``): what an agent kept from one turn to the next (an LLM seat's note) survives."""

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


def recall(agent: Any, details: Sequence[dict[str, Any]]) -> None:
    """Hand an agent the details it recorded with its own moves, oldest first, when its game
    is resumed (agents without a ``recall`` method keep nothing between turns)."""
    method = getattr(agent, "recall", None)
    if method is not None:
        method(list(details))
