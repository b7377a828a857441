"""The one tool set's `Table` (duel.agents.tools) for a TextEnv's seat: what the TRL tools
(duel.envs.trl) and Inspect's `tools=on` (duel.inspect.tools) look things up on."""

from __future__ import annotations

from typing import Any

from duel.agents.tools import SeatStatus
from duel.engine import Move, Perspective
from duel.envs.text import TextEnv
from duel.errors import ConflictError


class SeatTable:
    """A TextEnv's seat as the tool set sees it: its view and nothing else; a move is played
    through the env's step, never here."""

    def __init__(self, env: TextEnv) -> None:
        self.env = env

    def status(self) -> SeatStatus:
        env = self.env
        view = Perspective(env.seat).view(env.state)
        return SeatStatus(env.seat, view, env.state.ply, env.done, env.result)

    def play(self, move: Move, details: dict[str, Any]) -> tuple[SeatStatus, list[str]]:
        raise ConflictError("make_move is played through the environment's step")
