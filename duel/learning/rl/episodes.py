"""One game from the learner's side: the observations, masks and actions of its decisions, and
how the game ended for it. Everything the trainer learns from is an `Episode`."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from duel.agents.spec import make_agent
from duel.engine import Seat, new_game
from duel.engine.perspective import Perspective
from duel.learning.rl.encoding import action_mask, encode_view, move_of
from duel.match import decide


@dataclass
class Episode:
    """The learner's decisions of one game, and the final reward from its side."""

    obs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    reward: float = 0.0
    won: float = 0.5
    # A searching teacher's root statistics per decision: each action's value (-1..1) and its
    # share of the visits (0 where not searched). Empty for other players.
    teacher_q: list[np.ndarray] = field(default_factory=list)
    teacher_w: list[np.ndarray] = field(default_factory=list)


# What acts for the learner: (observation, mask, view, legal moves, rng) -> action index.
Chooser = Callable[[np.ndarray, np.ndarray, dict[str, Any], list[Any], random.Random], int]


def play_episode(seed: int, seat: int, opponent: str, choose: Chooser) -> Episode:
    """One game: `choose` acts for `seat` (given the observation, mask, view and legal moves in
    its labels), the opponent agent for the other seat."""
    rng = random.Random(seed * 2 + seat)
    opp = make_agent(opponent)
    state = new_game(seed)
    ep = Episode()
    perspective = Perspective.of_player(seat)
    while not state.is_terminal():
        mover = state.current_player
        if mover != seat:
            move, _, _ = decide(opp, state, rng)
            state.play(move)
            continue
        view = perspective.view(state)
        shown = perspective.moves_out(state.legal_moves())
        obs, mask = encode_view(view), action_mask(shown)
        a = choose(obs, mask, view, shown, rng)
        state.play(perspective.move_in(move_of(a)))
        ep.obs.append(obs)
        ep.masks.append(mask)
        ep.actions.append(a)
    result = state.result()
    assert result is not None
    ep.won = result.points(Seat.of_player(seat))
    ep.reward = 2.0 * ep.won - 1.0
    return ep
