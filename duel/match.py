"""Playing one game between two agents, each seeing only its seat's view."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duel.agents.account import SeatAccount
from duel.agents.base import Agent, Decision
from duel.agents.observe import inform
from duel.agents.search_time import SearchTime
from duel.agents.spec import make_agent
from duel.engine import (
    SEATS,
    Deal,
    GameState,
    IllegalMoveError,
    Move,
    Perspective,
    Result,
    Seat,
    new_game,
)
from duel.records import GameSummary, MoveRecord


@dataclass
class MatchResult:
    seed: int
    specs: tuple[str, str]
    deal: Deal
    records: list[MoveRecord]
    final: GameState
    seconds: float
    result: Result
    transcript: Path | None = None  # where the game was recorded, when it was

    @property
    def forfeit(self) -> Seat | None:
        return self.result.forfeit

    def summary(self) -> GameSummary:
        """The tournament's per-game record: each seat's account, and the LLM seats' totals
        if there are any."""
        from duel.accounting.games import llm_totals

        totals = {str(s.player): llm_totals(r.details for r in self.records if r.seat is s)
                  for s in SEATS}
        search = {str(s.player): SearchTime.of_records((r.seconds, r.details)
                                                       for r in self.records if r.seat is s)
                  for s in SEATS}
        searched = {player: t for player, t in search.items() if t.moves}
        return GameSummary(self.seed, self.specs, self.result, len(self.records),
                           round(self.seconds, 3), totals if any(totals.values()) else None,
                           self.accounts(), searched or None)

    def accounts(self) -> dict[str, SeatAccount]:
        """Whose moves each seat's were (duel.agents.account), by player "1", "2"."""
        return {str(s.player): SeatAccount.of_decisions(r.details for r in self.records
                                                        if r.seat is s) for s in SEATS}


def agent_rng(seed: int, seat: Seat) -> random.Random:
    """Each seat's generator depends on the match seed and the seat only, never on the deal."""
    return random.Random(agent_seed(seed, seat))


def agent_seed(seed: int, seat: Seat) -> int:
    """The seed of `agent_rng(seed, seat)`, for a decision made in another process."""
    return seed * 2 + seat.index


def decide(agent: Agent, state: GameState, rng: random.Random
           ) -> tuple[Move, dict[str, Any], bool]:
    """Ask `agent` for the move of the player to move. It sees the view in which it is player2,
    as the prompt says; its answer and its details are mapped back to the true labels."""
    seen = Perspective.to_move(state)
    decision = agent.choose(seen.view(state), seen.moves_out(state.legal_moves()), rng)
    return taken(state, decision, agent.spec)


def taken(state: GameState, decision: Decision, spec: str) -> tuple[Move, dict[str, Any], bool]:
    """A decision made in the view of the player to move (who is player2 there), mapped back to
    the true labels: the move, its details, and whether the agent resigns. IllegalMoveError if
    the move is not legal. (The server gets its agents' decisions from other processes.)"""
    seen = Perspective.to_move(state)
    move = seen.move_in(decision.move)
    if move not in state.legal_moves():
        raise IllegalMoveError(f"agent {spec} chose an illegal move {decision.move}: "
                               f"{seen.text_out(state.why_illegal(move))}")
    return move, seen.details_in(decision.details), decision.forfeit


@dataclass(frozen=True)
class Taken:
    """A decision taken: its record, the position after it (the same position when the seat
    resigned) and the game's result if it ended there."""

    record: MoveRecord
    after: GameState
    result: Result | None


def take(state: GameState, move: Move, seconds: float, details: dict[str, Any],
         resigned: bool = False, reason: str = "", checked: bool = False) -> Taken:
    """The one way a decision is taken, by every loop that plays games (matches, the text
    environment, the MCP server's games, the HTTP server's): its record, then the move applied
    (`checked`: already judged legal by the generator, so applied without asking it again) or
    the resignation's forfeit (`reason` said in the result). The agents that keep track of
    their game are told by the caller (duel.agents.observe.inform), after what it records."""
    record = MoveRecord.decided(state, move, seconds, details, resigned)
    if resigned:
        return Taken(record, state, Result.forfeited(record.seat, state.scores(), reason))
    if checked:
        after = state.clone()
        after.play(move)
    else:
        after = state.apply(move)
    return Taken(record, after, after.result())


OnMove = Callable[[MoveRecord, GameState, GameState], None]


def play_match(p1: Agent | str, p2: Agent | str, seed: int = 0, deal: Deal | None = None,
               open_box: bool = True, on_move: OnMove | None = None,
               transcript: str | Path | None = None) -> MatchResult:
    """Play a whole game. The deal comes from `deal` or from `seed`; agents' generators from
    `seed` and their seat. `on_move(record, before, after)` is called after every decision (a
    resignation too, with `after` the position it was made in). With `transcript`, the game is
    recorded there as it goes (duel.transcripts: a killed game leaves a readable partial file)
    and finished with its result."""
    agents = [make_agent(p) if isinstance(p, str) else p for p in (p1, p2)]
    if transcript is None:
        return _play(agents, seed, deal, open_box, on_move)
    from duel.transcripts import TranscriptWriter

    deal = deal if deal is not None else new_game(seed).deal
    writer = TranscriptWriter.for_match(transcript, seed, deal, agents, open_box)

    def record(rec: MoveRecord, before: GameState, after: GameState) -> None:
        writer.record(rec)
        if on_move is not None:
            on_move(rec, before, after)

    try:
        result = _play(agents, seed, deal, open_box, record)
    finally:
        writer.close()
    writer.finish(result.result)
    result.transcript = writer.path
    return result


def _play(agents: list[Agent], seed: int, deal: Deal | None, open_box: bool,
          on_move: OnMove | None) -> MatchResult:
    state = new_game(seed, deal=deal, open_box=open_box)
    rngs = [agent_rng(seed, Seat.P1), agent_rng(seed, Seat.P2)]
    records: list[MoveRecord] = []
    start = time.perf_counter()
    result: Result | None = None
    while result is None:
        mover = state.current  # the engine's index of the player to move
        t0 = time.perf_counter()
        move, details, resigned = decide(agents[mover], state, rngs[mover])
        taken_ = take(state, move, time.perf_counter() - t0, details, resigned)
        records.append(taken_.record)
        if on_move is not None:
            on_move(taken_.record, state, taken_.after)
        if not resigned:
            inform(agents, state, move, taken_.after)  # the agents that keep track of their game
            state = taken_.after
        result = taken_.result
    return MatchResult(seed, (agents[0].spec, agents[1].spec), state.deal, records, state,
                       time.perf_counter() - start, result)
