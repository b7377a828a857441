"""Information-set MCTS (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012).

Each iteration samples a complete state consistent with the view (the unseen cards dealt among
those not yet seen), then descends the one tree by UCB over the moves legal in that sample
(counting, for each child, how often it was available), expands one untried move, plays a
rollout to the end of the game and backs the result up from each mover's side. The final move is
the root child with the most visits.

Root parallelism (``workers=N``): N processes each grow their own tree from the same view with
the full budget and their own seed (drawn from the agent's generator, so a seeded search stays
reproducible); the root children's visits and rewards are summed and the most visited wins.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.util
import os
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from duel.agents.base import Decision
from duel.engine import InfoSet, Move
from duel.engine.moves import DISCARD
from duel.engine.state import GameState
from duel.engine.steps import GAME_END


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
    r0 = state.points(0)
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
    """ISMCTS with a budget in iterations or seconds per move (per tree with `workers` > 1)."""

    def __init__(self, iterations: int = 0, time: float = 0.0, c: float = 0.7,
                 rollout: str = "heuristic", build_bias: float = 0.75, margin: float = 0.0,
                 seed: int = -1, workers: int = 1) -> None:
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        if not (time >= 0 and math.isfinite(time)):
            raise ValueError(f"time must be >= 0 seconds, got {time}")
        if not (c >= 0 and math.isfinite(c)):
            raise ValueError(f"c must be >= 0, got {c}")
        if rollout not in ("uniform", "heuristic"):
            raise ValueError("rollout must be 'uniform' or 'heuristic'")
        if not 0 <= build_bias <= 1:
            raise ValueError(f"build_bias must be between 0 and 1, got {build_bias}")
        if not 0 <= margin <= 1:
            raise ValueError(f"margin must be between 0 and 1, got {margin}")
        if seed < -1:
            raise ValueError(f"seed must be >= 0, or -1 for the match's generator; got {seed}")
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if iterations <= 0 and time <= 0:
            iterations = 1000
        self.spec = "mcts"
        self.iterations = iterations
        self.time = time
        self.c = c
        self.rollout = rollout
        self.build_bias = build_bias
        self.margin = margin
        self.workers = workers
        self._rng = random.Random(seed) if seed >= 0 else None

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return self.analyse(view, legal, rng)[0]

    def analyse(self, view: dict[str, Any], legal: Sequence[Move], rng: random.Random
                ) -> tuple[Decision, list[tuple[Move, int, float]]]:
        """The decision, and every root move's visits and total reward (empty when no search
        ran: a single legal move or an immediate win). Learning agents distil these."""
        moves = list(legal)
        if len(moves) == 1:
            return Decision(moves[0], {"iterations": 0}), []
        rng = self._rng or rng
        info = InfoSet.from_view(view)
        win = immediate_win(info, moves)
        if win is not None:
            # Every line may look won to the search; the quickest win is the safe one.
            return Decision(win, {"iterations": 0, "rule": "win now"}), []
        if self.workers > 1:
            children, iterations, seconds = self._search_parallel(view, rng)
        else:
            root, iterations, seconds = self.search(info, rng)
            children = [(n.move, n.visits, n.reward) for n in root.children.values()
                        if n.move is not None]
        ranked = sorted(children, key=lambda ch: (-ch[1], -ch[2]))
        best = ranked[0][0]
        assert best in moves
        stats = [{"move": move.to_json(), "visits": visits,
                  "value": round(reward / visits, 4) if visits else 0.0}
                 for move, visits, reward in ranked[:5]]
        details: dict[str, Any] = {"iterations": iterations, "seconds": round(seconds, 3),
                                   "top": stats}
        if self.workers > 1:
            details["workers"] = self.workers
        return Decision(best, details), children

    def _params(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "time": self.time, "c": self.c,
                "rollout": self.rollout, "build_bias": self.build_bias, "margin": self.margin}

    def _search_parallel(self, view: dict[str, Any], rng: random.Random
                         ) -> tuple[list[tuple[Move, int, float]], int, float]:
        """Root parallelism: one tree per worker process, root statistics summed. Seeds come
        from `rng` and results are merged in worker order, so the outcome is reproducible."""
        start = time.perf_counter()
        seeds = [rng.getrandbits(62) for _ in range(self.workers)]
        pool = shared_pool(self.workers)
        params = self._params()
        futures = [pool.submit(_worker_search, view, params, seed) for seed in seeds]
        totals: dict[Move, list[float]] = {}
        done = 0
        for future in futures:
            children, iterations = future.result()
            done += iterations
            for move, visits, reward in children:
                total = totals.setdefault(move, [0, 0.0])
                total[0] += visits
                total[1] += reward
        merged = [(move, int(v), r) for move, (v, r) in totals.items()]
        return merged, done, time.perf_counter() - start

    def search(self, info: InfoSet, rng: random.Random) -> tuple[Node, int, float]:
        start = time.perf_counter()
        root = Node(None, None, -1)
        limit = self.iterations
        deadline = start + self.time if self.time > 0 else 0.0
        done = 0
        while True:
            if limit and done >= limit:
                break
            if deadline and (done & 7) == 0 and time.perf_counter() >= deadline and done:
                break
            iterate(root, info.sample(rng), rng, self.c, self.rollout, self.build_bias,
                    self.margin)
            done += 1
        return root, done, time.perf_counter() - start


def iterate(node: Node, state: GameState, rng: random.Random, c: float, policy: str,
            bias: float, margin: float) -> tuple[float, float]:
    """One ISMCTS iteration below `node`, `state` being a sample of its position (played on in
    place): UCB selection among the moves legal in the sample, expansion of one untried move, a
    rollout, and the result backed up through `node` to the root. Returns the seats' rewards.
    (The analyser, duel.analysis.search, calls it below the root move it chose itself.)"""
    log = math.log
    sqrt = math.sqrt
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
    return rewards


def _worker_search(view: dict[str, Any], params: dict[str, Any], seed: int
                   ) -> tuple[list[tuple[Move, int, float]], int]:
    """One root-parallel tree, in a worker process: the root children's statistics."""
    agent = MCTSAgent(**params)
    root, done, _ = agent.search(InfoSet.from_view(view), random.Random(seed))
    return [(n.move, n.visits, n.reward) for n in root.children.values()
            if n.move is not None], done


_POOLS: dict[tuple[int, int], ProcessPoolExecutor] = {}


def shared_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool per size, shared by the agents of this process and kept between moves.
    Keyed by pid too: a pool inherited through fork belongs to the parent."""
    key = (os.getpid(), workers)
    pool = _POOLS.get(key)
    if pool is None:
        methods = multiprocessing.get_all_start_methods()
        # Fork (no `if __name__ == "__main__"` guard needed) only while this process has a single
        # thread: forking a threaded process (the server runs agents in a thread pool) can
        # deadlock the child.
        if "fork" in methods and threading.active_count() == 1:
            method = "fork"
        else:
            method = "forkserver" if "forkserver" in methods else "spawn"
        context = multiprocessing.get_context(method)
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        _POOLS[key] = pool
        # Shut the pool down when this process ends. A finalizer, not atexit: when the agent
        # plays inside a worker process (a tournament's), multiprocessing ends that process by
        # joining its children without running atexit, and our idle workers would never exit.
        # Priority above the queues' own finalizers (10), which stop the threads that feed them.
        multiprocessing.util.Finalize(None, _close_pool, args=(key,), exitpriority=100)
    return pool


def _close_pool(key: tuple[int, int]) -> None:
    pool = _POOLS.pop(key, None)
    if pool is not None and key[0] == os.getpid():
        pool.shutdown(wait=True, cancel_futures=True)
