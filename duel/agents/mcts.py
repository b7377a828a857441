"""Information-set MCTS (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012).

Each iteration samples a complete state consistent with the view (the unseen cards dealt among
those not yet seen), then descends the one tree by UCB over the moves legal in that sample
(counting, for each child, how often it was available), expands one untried move, plays a
rollout to the end of the game and backs the result up from each mover's side. The final move is
the root child with the most visits.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

from duel.agents.base import Decision
from duel.engine import InfoSet, Move
from duel.engine.moves import DISCARD
from duel.engine.state import DRAW, GAME_END, GameState


class Node:
    __slots__ = ("move", "parent", "seat", "children", "visits", "reward", "avail")

    def __init__(self, move: Move | None, parent: Node | None, seat: int) -> None:
        self.move = move
        self.parent = parent
        self.seat = seat  # who made `move`; `reward` is from their side
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


def rollout(state: GameState, rng: random.Random, policy: str, build_bias: float) -> None:
    """Play to the end in place. "heuristic" re-draws a discard, with probability
    `build_bias`, among the other moves: random games discard far more than real ones."""
    rand = rng.random
    if policy == "uniform":
        while state.step != GAME_END:
            moves = state.legal_moves()
            state.play(moves[int(rand() * len(moves))])
        return
    while state.step != GAME_END:
        moves = state.legal_moves()
        move = moves[int(rand() * len(moves))]
        if move.kind == DISCARD and rand() < build_bias:
            others = [m for m in moves if m.kind != DISCARD]
            if others:
                move = others[int(rand() * len(others))]
        state.play(move)


def outcome(state: GameState, margin: float) -> tuple[float, float]:
    """Rewards of seats 0 and 1: 1 for a win, 0.5 a draw, 0 a loss; `margin` > 0 mixes in the
    score difference, which separates otherwise equal lines when few iterations are left."""
    if state.winner == DRAW:
        r0 = 0.5
    else:
        r0 = 1.0 if state.winner == 0 else 0.0
    if margin:
        diff = state.score(0)["TOTAL"] - state.score(1)["TOTAL"]
        bonus = margin * max(-1.0, min(1.0, diff / 20.0))
        r0 = (1 - margin) * r0 + 0.5 * margin + 0.5 * bonus
    return r0, 1.0 - r0


def immediate_win(info: InfoSet, moves: list[Move]) -> Move | None:
    """A move that wins the game at once. Supremacy depends on public facts only, so one
    sample of the hidden cards decides it."""
    base = info.sample(random.Random(0))
    seat = base.current
    for move in moves:
        if move.kind == DISCARD or move.kind.startswith("SELECT"):
            continue
        after = base.clone()
        after.play(move)
        if after.step == GAME_END and after.winner == seat:
            return move
    return None


class MCTSAgent:
    """ISMCTS with a budget in iterations or seconds per move."""

    def __init__(self, iterations: int = 0, time: float = 0.0, c: float = 0.7,
                 rollout: str = "heuristic", build_bias: float = 0.75, margin: float = 0.0,
                 seed: int = -1) -> None:
        if iterations <= 0 and time <= 0:
            iterations = 1000
        if rollout not in ("uniform", "heuristic"):
            raise ValueError("rollout must be 'uniform' or 'heuristic'")
        self.spec = "mcts"
        self.iterations = iterations
        self.time = time
        self.c = c
        self.rollout = rollout
        self.build_bias = build_bias
        self.margin = margin
        self._rng = random.Random(seed) if seed >= 0 else None

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        moves = list(legal)
        if len(moves) == 1:
            return Decision(moves[0], {"iterations": 0})
        rng = self._rng or rng
        info = InfoSet.from_view(view)
        win = immediate_win(info, moves)
        if win is not None:
            # Every line may look won to the search; the quickest win is the safe one.
            return Decision(win, {"iterations": 0, "rule": "win now"})
        root, iterations, seconds = self.search(info, rng)
        ranked = sorted(root.children.values(), key=lambda n: (-n.visits, -n.reward))
        best = ranked[0].move
        assert best is not None and best in moves
        stats = [{"move": n.move.to_json() if n.move else None, "visits": n.visits,
                  "value": round(n.reward / n.visits, 4) if n.visits else 0.0}
                 for n in ranked[:5]]
        return Decision(best, {"iterations": iterations, "seconds": round(seconds, 3),
                               "top": stats})

    def search(self, info: InfoSet, rng: random.Random) -> tuple[Node, int, float]:
        start = time.perf_counter()
        root = Node(None, None, -1)
        c = self.c
        policy = self.rollout
        bias = self.build_bias
        margin = self.margin
        log = math.log
        sqrt = math.sqrt
        limit = self.iterations
        deadline = start + self.time if self.time > 0 else 0.0
        done = 0
        while True:
            if limit and done >= limit:
                break
            if deadline and (done & 7) == 0 and time.perf_counter() >= deadline and done:
                break
            state = info.sample(rng)
            node = root
            # Selection and expansion.
            while state.step != GAME_END:
                legal = state.legal_moves()
                children = node.children
                untried = [m for m in legal if m not in children]
                if untried:
                    move = untried[int(rng.random() * len(untried))]
                    child = Node(move, node, state.current)
                    children[move] = child
                    state.play(move)
                    node = child
                    break
                best: Node | None = None
                best_v = -1.0
                for m in legal:
                    ch = children[m]
                    ch.avail += 1
                    v = ch.reward / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                    if v > best_v:
                        best_v = v
                        best = ch
                assert best is not None and best.move is not None
                state.play(best.move)
                node = best
            rollout(state, rng, policy, bias)
            rewards = outcome(state, margin)
            n: Node | None = node
            while n is not None:
                n.visits += 1
                if n.seat >= 0:
                    n.reward += rewards[n.seat]
                n = n.parent
            done += 1
        return root, done, time.perf_counter() - start
