"""Information-set MCTS (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012).

Each iteration samples a complete state consistent with the view (the unseen cards dealt among
those not yet seen), then descends the one tree by UCB over the moves legal in that sample
(counting, for each child, how often it was available), expands one untried move, plays a
rollout to the end of the game and backs the result up from each mover's side. The final move is
the root child with the most visits.

Rollouts (``rollout=mast``, the default) use move-average sampling (MAST; Finnsson & Björnsson
2008): the search keeps each player's mean reward for each kind of move it played (the card
built or discarded, the wonder built, the token taken; `mast_key`), and a rollout plays the move
of the best mean, or with probability ``epsilon`` (0.3) a random one. At 0.2 s per move it beat
the previous rollouts ("heuristic": random, most discards redrawn) in 39 of 60 seat-swapped
games (65.0%, 95% CI 52.4-75.8%), at no cost in iterations per second.

Tree reuse (``reuse=1``; off by default since 2026-12-07): the subtree below the move chosen and
the moves the opponent made since is kept as the next search's root, its statistics counting
towards the budget's choice. Off because it lost: head to head against ``reuse=0``, reuse won 42
of 100 seat-swapped games at 20,000 iterations a move (about the Python search's second) and 23
of 56 at 1 s natively (about 170,000), together 65 of 156, 41.7% (95% CI 34.2-49.5%); the kept
statistics were gathered before the cards revealed since were known (docs/native.md). The agent
sees views, not the moves between them, so it finds that subtree by playing the tree's opponent
moves from a sample of the previous view until the public facts match the new view's
(`public_key`); when none matches (a new Age's cards, a view from elsewhere) it starts afresh;
the kept root is pruned to the moves legal now. Against rule at 0.5 s per move a subtree was
kept at 75% of the searched decisions, 14.6% of a root's visits on average (`duel bench reuse`,
6 games, 214 decisions). A seeded search stays reproducible: the tree kept depends only on the
views and generator the agent was given. Server seats and `POST /agents/move` build an agent per
move (the decision depends on the request alone), so they do not reuse.

The native core (``native=1``, the default when it is built; docs/native.md): the same search
in C++, growing the same tree from the same generator (a seeded search with an iteration
budget chooses the same move with the same statistics), about ten times as many iterations per
second. It keeps its tree between decisions as the Python search does: the native tree stays
in C++ (`duel.native.keep` finds, detaches and prunes the subtree), so a seeded game plays the
Python search's moves decision after decision. ``native=0`` or ``DUEL_PURE=1`` runs the Python
search.

Root parallelism (``workers=N``): N processes each grow their own tree from the same view with
the full budget and their own seed (drawn from the agent's generator, so a seeded search stays
reproducible); the root children's visits and rewards are summed and the most visited wins.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import multiprocessing.util
import os
import random
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Final

from duel.agents.base import Decision
from duel.engine import InfoSet, Move
from duel.engine.data import CARD_IDS, TOKEN_IDS, WONDER_IDS
from duel.engine.moves import MOVE_KINDS, MoveKind
from duel.engine.state import GameState
from duel.engine.steps import GAME_END
from duel.errors import SpecError
from duel.util.orphans import die_with_parent


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """The cyclic collector paused for a search. The tree is kept to the end anyway, and a
    search's garbage (states, move lists) is freed by reference counting; the collector
    only walked the growing tree again and again: about a tenth of the compiled search's time
    (perf). Without it, about a sixth more iterations per second from Age I's start (nine
    alternating runs of each build; README, "Performance: both builds")."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


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


def rollout(state: GameState, rng: random.Random, policy: str, build_bias: float,
            mast: Mast | None = None) -> None:
    """Play to the end in place. "heuristic" re-draws a discard, with probability
    `build_bias`, among the other moves: random games discard far more than real ones. "mast"
    plays, except with probability `mast.epsilon`, the move whose kind of move has done best
    for its player in this search so far (MAST), and records the moves for the table."""
    rand = rng.random
    if policy == "uniform":
        while state.step != GAME_END:
            moves = state.legal_moves()
            state.play(moves[int(rand() * len(moves))])
        return
    while state.step != GAME_END:
        moves = state.legal_moves()
        if mast is not None:
            seat = state.current
            if rand() >= mast.epsilon:
                move = mast.best(state, moves, seat)
            else:
                move = moves[int(rand() * len(moves))]
            mast.trail.append(mast_key(state, move) * 2 + seat)
            state.play(move)
            continue
        move = moves[int(rand() * len(moves))]
        if move.kind is MoveKind.DISCARD and rand() < build_bias:
            others = [m for m in moves if m.kind is not MoveKind.DISCARD]
            if others:
                move = others[int(rand() * len(others))]
        state.play(move)


# MAST's keys: a block of 100 for each kind of move, and in it the card built or discarded (by
# card, not by pyramid slot), the wonder built or drafted, the token taken, the card destroyed
# or built from the discard, or the player named to start. The engine's ids, never hashes: a
# string's hash changes from process to process, and the search must not.
MAST_BLOCK: Final[dict[str, int]] = {kind: 100 * i for i, kind in enumerate(MOVE_KINDS)}
MAST_KEYS: Final = 100 * len(MOVE_KINDS)


def mast_key(state: GameState, move: Move) -> int:
    """What MAST averages over (see MAST_BLOCK)."""
    kind = move.kind
    block = MAST_BLOCK[kind]
    if kind is MoveKind.CONSTRUCT_BUILDING or kind is MoveKind.DISCARD:
        return block + state.pyramid[move.card_index]
    if move.wonder:
        return block + WONDER_IDS[move.wonder]
    if move.token:
        return block + TOKEN_IDS[move.token]
    if move.card_name:
        return block + CARD_IDS[move.card_name]
    return block + move.player_number


class Mast:
    """Move-average sampling (Finnsson & Björnsson 2008): each player's mean reward for each
    kind of move (`mast_key`) over the iterations that played it, this search."""

    def __init__(self, epsilon: float) -> None:
        self.epsilon = epsilon
        self.total = [0.0] * (2 * MAST_KEYS)
        self.count = [0.0] * (2 * MAST_KEYS)
        self.trail: list[int] = []

    def best(self, state: GameState, moves: list[Move], seat: int) -> Move:
        """The move of the best mean for `seat` (an untried kind counts as a win: try it)."""
        total = self.total
        count = self.count
        best = moves[0]
        best_v = -1.0
        for m in moves:
            k = mast_key(state, m) * 2 + seat
            n = count[k]
            v = total[k] / n if n > 0 else 1.0
            if v > best_v:
                best_v = v
                best = m
        return best

    def learn(self, rewards: tuple[float, float]) -> None:
        """Add the iteration's rewards to every move of its trail, from its mover's side."""
        total = self.total
        count = self.count
        for k in self.trail:
            total[k] += rewards[k & 1]
            count[k] += 1.0
        self.trail.clear()


def outcome(state: GameState, margin: float) -> tuple[float, float]:
    """Rewards of seats 0 and 1: 1 for a win, 0.5 a draw, 0 a loss; `margin` > 0 mixes in the
    score difference, which separates otherwise equal lines when few iterations are left."""
    r0 = state.points(0)
    if margin:
        diff = state.score(0)["TOTAL"] - state.score(1)["TOTAL"]
        bonus = margin * max(-1.0, min(1.0, diff / 20.0))
        r0 = (1 - margin) * r0 + 0.5 * margin + 0.5 * bonus
    return r0, 1.0 - r0


def public_key(state: GameState) -> tuple[object, ...]:
    """The facts both players see, cards still face down or newly revealed aside: a tree's node
    reached from a sample of an older view has the key of the real position it stands for."""
    present = 0
    pyramid = state.pyramid
    for slot in range(len(pyramid)):
        if pyramid[slot] >= 0:
            present |= 1 << slot
    return (state.step, state.age, state.current, state.military, state.loot, present,
            tuple(sorted(state.discard)), tuple(sorted(state.tokens_board)),
            tuple(sorted(state.wonders_available)), state.draft_pick,
            state.wonders_built, state.play_again,
            tuple((p.coins, p.built, p.tokens, p.wonders, p.wonder_age) for p in state.players))


def find_subtree(node: Node, state: GameState, key: tuple[object, ...], me: int,
                 depth: int = 4) -> Node | None:
    """The node below `node` (reached by `state`, a sample of its position) whose position has
    the public `key`, following only the moves of the seat other than `me`: `me`'s own moves
    were decisions it would have been asked about."""
    if public_key(state) == key:
        return node
    if depth == 0 or state.step == GAME_END or state.current == me:
        return None
    legal = set(state.legal_moves())
    for move, child in node.children.items():
        if move in legal:
            after = state.clone()
            after.play(move)
            found = find_subtree(child, after, key, me, depth - 1)
            if found is not None:
                return found
    return None


def public_sample(info: InfoSet) -> GameState:
    """One fixed sample of `info`'s position, for what depends on public facts alone (an
    immediate win, the key that finds a kept subtree): every sample agrees on them."""
    return info.sample(random.Random(0))


def immediate_win(base: GameState, moves: list[Move]) -> Move | None:
    """A move that wins the game at once from `base`, a `public_sample`. Supremacy depends on
    public facts only, so one sample of the hidden cards decides it."""
    seat = base.current
    for move in moves:
        if move.kind is MoveKind.DISCARD or move.kind is MoveKind.SELECT_WONDER:
            continue
        after = base.clone()
        after.play(move)
        if after.step == GAME_END and after.winner == seat:
            return move
    return None


class MCTSAgent:
    """ISMCTS with a budget in iterations or seconds per move (per tree with `workers` > 1)."""

    def __init__(self, iterations: int = 0, time: float = 0.0, c: float = 0.7,
                 rollout: str = "mast", build_bias: float = 0.75, margin: float = 0.0,
                 epsilon: float = 0.3,
                 seed: int = -1, workers: int = 1, reuse: int = 0, native: int = 1,
                 tree: str = "game") -> None:
        if iterations < 0:
            raise SpecError(f"iterations must be >= 0, got {iterations}")
        if not (time >= 0 and math.isfinite(time)):
            raise SpecError(f"time must be >= 0 seconds, got {time}")
        if not (c >= 0 and math.isfinite(c)):
            raise SpecError(f"c must be >= 0, got {c}")
        if rollout not in ("uniform", "heuristic", "mast"):
            raise SpecError("rollout must be 'uniform', 'heuristic' or 'mast'")
        if not 0 <= epsilon <= 1:
            raise SpecError(f"epsilon must be between 0 and 1, got {epsilon}")
        if not 0 <= build_bias <= 1:
            raise SpecError(f"build_bias must be between 0 and 1, got {build_bias}")
        if not 0 <= margin <= 1:
            raise SpecError(f"margin must be between 0 and 1, got {margin}")
        if seed < -1:
            raise SpecError(f"seed must be >= 0, or -1 for the match's generator; got {seed}")
        if workers < 1:
            raise SpecError(f"workers must be >= 1, got {workers}")
        if reuse not in (0, 1):
            raise SpecError(f"reuse must be 0 or 1, got {reuse}")
        if native not in (0, 1):
            raise SpecError(f"native must be 0 or 1, got {native}")
        if tree not in ("game", "age"):
            raise SpecError(f"tree must be 'game' or 'age', got {tree!r}")
        if iterations <= 0 and time <= 0:
            iterations = 1000
        self.spec = "mcts"
        self.iterations = iterations
        self.time = time
        self.c = c
        self.rollout = rollout
        self.epsilon = epsilon
        self.build_bias = build_bias
        self.margin = margin
        # "age": the tree stops where the next Age starts, and a playout goes on from there.
        self.tree = tree
        self.workers = workers
        self.reuse = reuse == 1 and workers == 1
        # The native search when asked for and built (and not stale, nor DUEL_PURE=1).
        self.native = native == 1 and _native_available()
        self._rng = random.Random(seed) if seed >= 0 else None
        # The node of the move chosen last, and a sample of the position after it (reuse).
        self._last: tuple[Node, GameState] | None = None
        # The native search's: its tree (a duel.native.Tree), the move chosen, a sample of the
        # position before it; and the tree the last native search grew.
        self._last_native: tuple[Any, Move, GameState] | None = None
        self._grown: Any = None

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return self.analyse(view, legal, rng)[0]

    def analyse(self, view: dict[str, Any], legal: Sequence[Move], rng: random.Random
                ) -> tuple[Decision, list[tuple[Move, int, float]]]:
        """The decision, and every root move's visits and total reward (empty when no search
        ran: a single legal move or an immediate win). Learning agents distil these."""
        moves = list(legal)
        info = InfoSet.from_view(view)
        base = public_sample(info)
        kept: Any = self._kept_native(base, moves) if self.native else self._kept(base, moves)
        self._last = None
        self._last_native = None
        if len(moves) == 1:
            self._remember(kept, base, moves[0])
            return Decision(moves[0], {"iterations": 0}), []
        rng = self._rng or rng
        win = immediate_win(base, moves)
        if win is not None:
            # Every line may look won to the search; the quickest win is the safe one.
            return Decision(win, {"iterations": 0, "rule": "win now"}), []
        reused = 0
        if self.workers > 1:
            children, iterations, seconds = self._search_parallel(view, rng)
        else:
            if kept is not None:
                # What the choice stands on: the kept children's visits (the node's own count
                # includes those of the children pruned as no longer legal).
                reused = (kept.root_visits() if self.native
                          else sum(ch.visits for ch in kept.children.values()))
            root, iterations, seconds = self.search(info, rng, kept)
            children = [(n.move, n.visits, n.reward) for n in root.children.values()
                        if n.move is not None]
        ranked = sorted(children, key=lambda ch: (-ch[1], -ch[2]))
        best = ranked[0][0]
        assert best in moves
        if self.workers == 1:
            self._remember(self._grown if self.native else root, base, best)
        stats = [{"move": move.to_json(), "visits": visits,
                  "value": round(reward / visits, 4) if visits else 0.0}
                 for move, visits, reward in ranked[:5]]
        details: dict[str, Any] = {"iterations": iterations, "seconds": round(seconds, 3),
                                   "top": stats}
        if reused:
            details["reused"] = reused
        if self.workers > 1:
            details["workers"] = self.workers
        return Decision(best, details), children

    def _kept(self, base: GameState, legal: list[Move]) -> Node | None:
        """The subtree of the last search that stands for the position of `base` (a
        `public_sample`), detached and pruned to the moves `legal` now, or None."""
        if not self.reuse or self._last is None:
            return None
        node, after = self._last
        found = find_subtree(node, after, public_key(base), node.seat)
        if found is None:
            return None
        # The old samples' children include moves that are not legal here (a card taken by a
        # slot that held another card in them): the final choice must never be one of them.
        allowed = set(legal)
        found.children = {m: ch for m, ch in found.children.items() if m in allowed}
        if not found.children:
            return None
        found.parent = None
        return found

    def _kept_native(self, base: GameState, legal: list[Move]) -> Any:
        """`_kept` for the native search: the native tree's subtree, or None."""
        if not self.reuse or self._last_native is None:
            return None
        from duel.native import keep

        tree, move, before = self._last_native
        after = before.clone()
        after.play(move)
        return keep(tree, move, after, base, legal)

    def _remember(self, node: Any, base: GameState, move: Move) -> None:
        """Keep `node`'s child for `move` (and `base`, a `public_sample`, played on by it) for
        the next decision. `node`: a native tree when the search is native."""
        if not self.reuse or node is None:
            return
        if self.native:
            self._last_native = (node, move, base)
            return
        child = node.children.get(move)
        if child is None:
            return
        after = base.clone()
        after.play(move)
        self._last = (child, after)

    def _params(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "time": self.time, "c": self.c,
                "rollout": self.rollout, "build_bias": self.build_bias, "margin": self.margin,
                "epsilon": self.epsilon, "native": int(self.native), "tree": self.tree}

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

    def search(self, info: InfoSet, rng: random.Random, root: Any = None
               ) -> tuple[Node, int, float]:
        """Grow `root` (a new tree by default; natively, a kept native tree) from `info` for
        the budget: `iterations` more, or `time` seconds."""
        start = time.perf_counter()
        if self.native:
            return self._search_native(info, rng, start, root)
        if root is None:
            root = Node(None, None, -1)
        limit = self.iterations
        deadline = start + self.time if self.time > 0 else 0.0
        done = 0
        mast = Mast(self.epsilon) if self.rollout == "mast" else None
        age_tree = self.tree == "age"
        with no_cyclic_gc():
            while True:
                if limit and done >= limit:
                    break
                if deadline and (done & 7) == 0 and time.perf_counter() >= deadline and done:
                    break
                iterate(root, info.sample(rng), rng, self.c, self.rollout, self.build_bias,
                        self.margin, mast, age_tree)
                done += 1
        return root, done, time.perf_counter() - start


    def _search_native(self, info: InfoSet, rng: random.Random, start: float, kept: Any = None
                       ) -> tuple[Node, int, float]:
        """The search in native code: a root with its children's statistics (the tree below
        them stays in C++: `self._grown`, for reuse)."""
        from duel.native import search

        children, done, self._grown = search(info, rng, self.iterations, self.time, self.c,
                                             self.rollout, self.build_bias, self.margin,
                                             self.epsilon, kept, self.tree == "age")
        root = Node(None, None, -1)
        root.visits = done
        mover = info.template.current
        for move, visits, reward in children:
            child = Node(move, root, mover)
            child.visits = visits
            child.reward = reward
            root.children[move] = child
        return root, done, time.perf_counter() - start


def _native_available() -> bool:
    from duel.native import available

    return available()


def iterate(node: Node, state: GameState, rng: random.Random, c: float, policy: str,
            bias: float, margin: float, mast: Mast | None = None, age_tree: bool = False
            ) -> tuple[float, float]:
    """One ISMCTS iteration below `node`, `state` being a sample of its position (played on in
    place): UCB selection among the moves legal in the sample, expansion of one untried move, a
    rollout, and the result backed up through `node` to the root. Returns the seats' rewards.
    `age_tree`: the descent stops where the next Age starts (the sample's next Age is a guess
    the tree would branch on card by card), and the rollout plays on from there.
    (The analyser, duel.analysis.search, calls it below the root move it chose itself.)"""
    log = math.log
    sqrt = math.sqrt
    # The Age the tree may grow in (0: every Age).
    tree_age = state.age if age_tree else 0
    # Selection and expansion.
    while state.step != GAME_END and (tree_age == 0 or state.age == tree_age):
        legal = state.legal_moves()
        children = node.children
        untried = [m for m in legal if m not in children]
        if untried:
            move = untried[int(rng.random() * len(untried))]
            child = Node(move, node, state.current)
            children[move] = child
            if mast is not None:
                mast.trail.append(mast_key(state, move) * 2 + state.current)
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
        if mast is not None:
            mast.trail.append(mast_key(state, best.move) * 2 + state.current)
        state.play(best.move)
        node = best
    rollout(state, rng, policy, bias, mast)
    rewards = outcome(state, margin)
    if mast is not None:
        mast.learn(rewards)
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
        # Each tree's process dies with this one (a server's search worker killed at its
        # deadline, or when the server dies): duel/orphans.py.
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                   initializer=die_with_parent)
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
