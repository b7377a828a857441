"""The agent protocol: a seat's view and its legal moves in, a move (and details) out."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from duel.engine import Move


@dataclass
class Decision:
    """An agent's answer: the move, plus whatever it wants recorded (search statistics,
    reasoning, LLM attempts)."""

    move: Move
    details: dict[str, Any] = field(default_factory=dict)
    forfeit: bool = False  # the agent resigns instead of playing `move` (an LLM fallback)


class Agent(Protocol):
    """Anything that picks a move from what its seat can see.

    `view` is the prompt's JSON state (the match runner relabels it so the agent is player2, as
    the prompt says); `legal` are the legal moves of the player to move, in the view's labels.
    Agents never see the true state: hidden cards are only in the engine.
    """

    spec: str

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision: ...


class RandomAgent:
    """Uniform over the legal moves."""

    def __init__(self) -> None:
        self.spec = "random"

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return Decision(rng.choice(list(legal)))
