"""Playing one game between two agents, each seeing only its seat's view."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from duel.agents.base import Agent
from duel.agents.spec import make_agent
from duel.engine import Deal, GameState, IllegalMoveError, Move, new_game, relabel_move, seat_view


@dataclass
class MoveRecord:
    ply: int
    player: int  # 1 or 2
    step: str
    move: Move  # in the true labels
    price: int
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class MatchResult:
    seed: int
    specs: tuple[str, str]
    deal: Deal
    records: list[MoveRecord]
    final: GameState
    seconds: float
    forfeit: int | None = None  # the player (1 or 2) who resigned, if one did

    @property
    def result(self) -> dict[str, Any]:
        if self.forfeit is not None:
            return {"winner": 3 - self.forfeit, "victory": "forfeit",
                    "player1": self.final.score(0), "player2": self.final.score(1)}
        r = self.final.result()
        assert r is not None
        return r

    @property
    def winner(self) -> int | str:
        w: int | str = self.result["winner"]
        return w

    def summary(self) -> dict[str, Any]:
        """The tournament's per-game record."""
        r = self.result
        return {"seed": self.seed, "player1": self.specs[0], "player2": self.specs[1],
                "winner": r["winner"], "victory": r["victory"],
                "scores": [r["player1"]["TOTAL"], r["player2"]["TOTAL"]],
                "moves": len(self.records), "seconds": round(self.seconds, 3)}


def agent_rng(seed: int, seat: int) -> random.Random:
    """Each seat's generator depends on the match seed and the seat only, never on the deal."""
    return random.Random(seed * 2 + seat)


def decide(agent: Agent, state: GameState, rng: random.Random
           ) -> tuple[Move, dict[str, Any], bool]:
    """Ask `agent` for the move of the player to move. It sees the view in which it is player2,
    as the prompt says, and its answer is mapped back to the true labels."""
    seat = state.current_player
    flip = seat == 1
    view = seat_view(state, as_player2=seat)
    legal = state.legal_moves()
    shown = [relabel_move(m) for m in legal] if flip else legal
    decision = agent.choose(view, shown, rng)
    move = relabel_move(decision.move) if flip else decision.move
    if move not in legal:
        raise IllegalMoveError(f"agent {agent.spec} chose an illegal move {decision.move}: "
                               f"{state.why_illegal(move)}")
    return move, decision.details, decision.forfeit


def play_match(p1: Agent | str, p2: Agent | str, seed: int = 0, deal: Deal | None = None,
               open_box: bool = True,
               on_move: Callable[[MoveRecord, GameState, GameState], None] | None = None
               ) -> MatchResult:
    """Play a whole game. The deal comes from `deal` or from `seed`; agents' generators from
    `seed` and their seat. `on_move(record, before, after)` is called after every move."""
    agents = [make_agent(p) if isinstance(p, str) else p for p in (p1, p2)]
    state = new_game(seed, deal=deal, open_box=open_box)
    rngs = [agent_rng(seed, 0), agent_rng(seed, 1)]
    records: list[MoveRecord] = []
    start = time.perf_counter()
    forfeit: int | None = None
    while not state.is_terminal():
        seat = state.current
        t0 = time.perf_counter()
        move, details, resigned = decide(agents[seat], state, rngs[seat])
        elapsed = time.perf_counter() - t0
        if resigned:
            forfeit = seat + 1
            records.append(MoveRecord(len(records) + 1, seat + 1, state.step_name, move, 0,
                                      elapsed, {**details, "forfeit": True}))
            break
        price = state.price(move)
        after = state.apply(move)
        record = MoveRecord(len(records) + 1, seat + 1, state.step_name, move, price, elapsed,
                            details)
        records.append(record)
        if on_move is not None:
            on_move(record, state, after)
        state = after
    return MatchResult(seed, (agents[0].spec, agents[1].spec), state.deal, records, state,
                       time.perf_counter() - start, forfeit)
