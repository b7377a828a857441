"""A game in play: its stored row, its engine state, its seats' agents, the lock its moves take
and the condition its event streams wait on; and how a stored game is brought back to life."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from duel.agents.base import Agent
from duel.agents.observe import inform, recall
from duel.engine import SEATS, Deal, GameState, Perspective, Result, Seat, new_game
from duel.errors import StoreError
from duel.records import MoveRecord
from duel.transcripts import replay_moves
from server.store import GameRow

RECENT = 32  # past states kept per game, for event streams that fell behind


def to_move(state: GameState) -> Seat:
    """The seat of the player to move."""
    return Seat.of_index(state.current)


def start_state(row: GameRow) -> GameState:
    """A stored game's first position."""
    return new_game(deal=Deal.from_json(row.options["deal"]), open_box=row.options["open_box"],
                    code=row.code)


@dataclass
class LiveGame:
    row: GameRow
    state: GameState
    agents: dict[Seat, Agent]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    forfeit: Seat | None = None  # the seat that resigned
    task: asyncio.Task[None] | None = None  # the turn of the player to move (agent or clock)
    recent: dict[int, GameState] = field(default_factory=dict)  # ply -> past state
    # Whose caps the agent seats' searches and LLM moves count against: the address that
    # created the game (a restored game is its own owner).
    owner: str = ""
    # When the game last moved (time.monotonic(); its creation or restoration before the first
    # move here): an unfinished game idle for the server's idle_expiry ends (server/games/turns.py).
    moved_at: float = field(default_factory=time.monotonic)

    @property
    def code(self) -> str:
        return self.row.code

    @property
    def over(self) -> bool:
        return self.forfeit is not None or self.state.is_terminal()

    @property
    def result(self) -> Result | None:
        """The game's result once it is over (a forfeit included)."""
        if self.forfeit is not None:
            return Result.forfeited(self.forfeit, self.state.scores())
        return self.state.result()

    def advance(self, after: GameState) -> None:
        """Move on to `after`, keeping the state it leaves among the recent ones."""
        self.recent[self.state.ply] = self.state
        self.state = after
        for ply in [p for p in self.recent if p < after.ply - RECENT]:
            del self.recent[ply]

    def past(self, ply: int) -> GameState | None:
        """The state after `ply` moves, if it is the current or a recent one."""
        return self.state if self.state.ply == ply else self.recent.get(ply)

    def catch_up(self, records: Sequence[MoveRecord]) -> bool:
        """Play the stored moves past this game's ply (another server's, on a shared store),
        checked as on restore (TranscriptError for one the engine refuses). Whether any was."""
        fresh = [r for r in records if r.ply > self.row.ply]
        if not fresh or self.over:
            return False
        for step in replay_moves(self.state, [m.to_json() for m in fresh]):
            self.advance(step.after)
        if fresh[-1].is_forfeit:
            self.forfeit = fresh[-1].seat
        self.row.ply = fresh[-1].ply
        self.row.over = self.over
        return True

    def view_for(self, seat: Seat | None) -> dict[str, Any]:
        """A seat sees the state with itself as player2 (the prompt's convention); a spectator
        (None) sees the true labels."""
        seen = Perspective(seat)
        view = seen.view(self.state)
        result = self.result
        if result is not None and result.forfeit is not None:
            view["step"] = "GAME_END"
            winner = seen.seat_out(result.forfeit.other)
            view[winner.key]["won"] = True
            view[winner.other.key]["won"] = False
        return view


def restore(row: GameRow, moves: Sequence[MoveRecord], agents: dict[Seat, Agent]) -> LiveGame:
    """A stored game as it stood: its moves replayed (and checked) from its deal. Raises
    TranscriptError for a move the engine refuses, StoreError if the row's ply disagrees."""
    game = LiveGame(row, start_state(row), agents, owner="game:" + row.code)
    seats = [agents.get(s) for s in SEATS]
    for step in replay_moves(game.state, [m.to_json() for m in moves]):
        game.advance(step.after)
        # the seats that keep track of their game (history=) hear its moves again
        inform(seats, step.before, step.move, step.after)
    for seat, agent in agents.items():
        recall(agent, [m.details or {} for m in moves if m.seat is seat])
    if moves and moves[-1].is_forfeit:
        game.forfeit = moves[-1].seat
    # A resignation is a stored move that was never played.
    if game.state.ply + (1 if game.forfeit else 0) != row.ply:
        raise StoreError(f"game {row.code}: stored ply {row.ply} but moves replay to "
                         f"{game.state.ply}")
    return game
