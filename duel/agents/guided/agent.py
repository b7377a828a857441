"""`mcts:guide=MODEL`: the search guided by the learned network (duel.agents.guided.search's tree).

The root is the seat's information set (`InfoSet.from_view`): every simulation deals its hidden
cards afresh; nothing else of the game reaches the search. Two ways to spend the budget at the
root:

- ``root=gumbel`` (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022):
  draw a Gumbel variable g(a) per move, keep the `m` moves of the largest g(a) + logit(a), and
  run sequential halving over them: each of ceil(log2 m) phases shares its part of the budget
  equally among the moves still in, then keeps the better half by g(a) + logit(a) + sigma(q(a)),
  sigma(q) = (50 + max visits) * q. The move left is played. With few simulations this does not
  waste them re-visiting the moves the prior likes, and it never drops a move the search shows
  to be good. Below the root, PUCT.
- ``root=puct``: PUCT at the root too, the most visited move played (AlphaZero).

``root=auto`` (the default) takes Gumbel for budgets up to :data:`GUMBEL_BELOW` simulations and
PUCT above (measured in docs/guide.md). A time budget is split into the phases' time slices.
A seeded search (or the match's generator) with an iteration budget is reproducible.

The native core (``native=1``, the default when it is built; docs/native.md) runs the tree below
the root in C++ (duel/native/guided.h), the network still in Python through a callback: a seeded
search with an iteration budget makes the same simulations, the same root statistics and the
same choice as the Python tree with ``reuse=0``, the default (keeping the subtree made no
measurable difference head to head: docs/guide.md). The native tree keeps nothing between
decisions, so ``reuse=1`` runs the Python tree (a spec means the same search in every build);
``native=0`` or ``DUEL_PURE=1`` runs the Python tree too.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

from duel.agents.base import Decision
from duel.agents.guided.reuse import follow, public_key, usable
from duel.agents.guided.runtime import Guide, load_guide, softmax
from duel.agents.guided.search import GNode, Params, expand, simulate
from duel.agents.mcts import immediate_win, no_cyclic_gc, public_sample
from duel.engine import GameState, InfoSet, Move
from duel.errors import SpecError

GUMBEL_BELOW = 2000  # root=auto: Gumbel up to this many simulations per move
C_VISIT = 50.0  # sigma's constants (the paper's, for values in [0, 1])
C_SCALE = 1.0
ROOTS = ("auto", "gumbel", "puct")


class GuidedAgent:
    """The guided search with a budget in simulations (`iterations`) or seconds per move."""

    def __init__(self, guide: str = "default", iterations: int = 0, time: float = 0.0,
                 c: float = 1.5, fpu: float = 0.2, cap: int = 11, mix: float = 0.3,
                 root: str = "auto", m: int = 16, noise: float = 1.0, epsilon: float = 0.3,
                 runtime: str = "numpy", seed: int = -1, reuse: int = 0, native: int = 1) -> None:
        if iterations < 0:
            raise SpecError(f"iterations must be >= 0, got {iterations}")
        if not (time >= 0 and math.isfinite(time)):
            raise SpecError(f"time must be >= 0 seconds, got {time}")
        if not (c >= 0 and math.isfinite(c)):
            raise SpecError(f"c must be >= 0, got {c}")
        if not (0 <= fpu <= 1):
            raise SpecError(f"fpu must be between 0 and 1, got {fpu}")
        if cap < 0:
            raise SpecError(f"cap must be >= 0 (0: no cap), got {cap}")
        if not 0 <= mix <= 1:
            raise SpecError(f"mix must be between 0 and 1, got {mix}")
        if root not in ROOTS:
            raise SpecError(f"root must be one of {', '.join(ROOTS)}, got {root!r}")
        if m < 1:
            raise SpecError(f"m must be >= 1, got {m}")
        if not (noise >= 0 and math.isfinite(noise)):
            raise SpecError(f"noise must be >= 0, got {noise}")
        if seed < -1:
            raise SpecError(f"seed must be >= 0, or -1 for the match's generator; got {seed}")
        if reuse not in (0, 1):
            raise SpecError(f"reuse must be 0 or 1, got {reuse}")
        if native not in (0, 1, 2):
            raise SpecError(f"native must be 0, 1 or 2, got {native}")
        if native == 2 and reuse == 1:
            raise SpecError("native=2 (the network in C++) runs on the native tree, which keeps "
                            "nothing between decisions: reuse=1 needs the Python tree (native=0)")
        if native == 2 and runtime != "numpy":
            raise SpecError("native=2 (the network in C++) reads the numpy runtime's weights: "
                            "runtime=numpy")
        if iterations <= 0 and time <= 0:
            iterations = 400
        self.guide = load_guide(guide, runtime)
        self.spec = f"mcts:guide={guide}"
        self.iterations = iterations
        self.time = time
        self.params = (c, fpu, cap, mix, epsilon)
        self.root = root
        self.m = m
        self.noise = noise
        self._rng = random.Random(seed) if seed >= 0 else None
        self.reuse = reuse == 1
        # The native tree when asked for and built (and not stale, nor DUEL_PURE=1), and no
        # tree is to be kept (the native one keeps none).
        self.native = native >= 1 and not self.reuse and _native_available()
        # native=2: the network in C++ too (float32 in another order: not bit for bit).
        self.native_net = native == 2 and self.native
        # The node of the move chosen last, a sample of the position after it, and the seat
        # (duel.agents.guided.reuse).
        self._last: tuple[GNode, GameState, int] | None = None

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return self.analyse(view, legal, rng)[0]

    def gumbel(self) -> bool:
        if self.root != "auto":
            return self.root == "gumbel"
        return self.time <= 0 and self.iterations <= GUMBEL_BELOW

    def analyse(self, view: dict[str, Any], legal: Sequence[Move], rng: random.Random
                ) -> tuple[Decision, list[tuple[Move, int, float]]]:
        """The decision and each root move's visits and total value (as MCTSAgent.analyse);
        the decision's details also hold the root's prior and value, and `target`, the
        improved policy the network learns from."""
        moves = list(legal)
        last, self._last = self._last, None
        if len(moves) == 1:
            return Decision(moves[0], {"iterations": 0}), []
        info = InfoSet.from_view(view)
        base = public_sample(info)
        win = immediate_win(base, moves)
        if win is not None:
            return Decision(win, {"iterations": 0, "rule": "win now"}), []
        rng = self._rng or rng
        start = time.perf_counter()
        params = Params(*self.params)
        evaluations = self.guide.evaluations
        with no_cyclic_gc():
            root = self._kept(last, base, moves)
            reused = root.visits if root is not None else 0
            tree: Any = None
            if root is None:
                root = GNode(None, base.current, 1.0)
                value = expand(root, base, moves, self.guide)
                root.visits = 1
                root.value = value
                if self.native:
                    tree = self._native_tree(info, root, moves, value)
            else:
                own = root.value / root.visits
                value = own if root.seat == base.current else 1.0 - own
            if self.gumbel():
                done, best = self._gumbel(root, info, rng, params, tree)
            else:
                done = self._puct(root, info, rng, params, tree)
                best = max(root.children or [], key=lambda ch: (ch.visits, ch.q()))
        seconds = time.perf_counter() - start
        children = root.children or []
        assert best.move is not None and best.move in moves
        if self.reuse:  # the Python tree (the native one never runs with reuse)
            after = base.clone()
            after.play(best.move)
            self._last = (best, after, base.current)
        stats = [(ch.move, ch.visits, ch.value) for ch in children if ch.move is not None]
        ranked = sorted(children, key=lambda ch: (-ch.visits, -ch.q()))
        details: dict[str, Any] = {
            "iterations": done, "seconds": round(seconds, 3),
            "evaluations": self.guide.evaluations - evaluations,
            "value": round(value, 4),
            "top": [{"move": ch.move.to_json(), "visits": ch.visits, "value": round(ch.q(), 4),
                     "prior": round(ch.prior, 4)} for ch in ranked[:5] if ch.move is not None],
            "prior": [round(ch.prior, 5) for ch in children],
            "target": [round(p, 5) for p in improved_policy(root, value)],
        }
        if reused:
            details["reused"] = reused
        return Decision(best.move, details), stats

    def _kept(self, last: tuple[GNode, GameState, int] | None, base: GameState,
              moves: list[Move]) -> GNode | None:
        """The last search's node for this position, detached, or None
        (duel.agents.guided.reuse)."""
        if last is None:
            return None
        child, after, me = last
        found = follow(child, after, public_key(base), me)
        if found is None or not usable(found, moves):
            return None
        found.move = None
        found.outcomes = None
        found.snap = None
        return found

    def _native_tree(self, info: InfoSet, root: GNode, moves: list[Move], value: float) -> Any:
        """The native tree below `root` (just expanded): duel.native.GuidedSearch."""
        from duel.native import GuidedSearch

        c, fpu, cap, mix, epsilon = self.params
        priors = [ch.prior for ch in root.children or []]
        tree = GuidedSearch(info, moves, priors, value, c, fpu, cap, mix, epsilon,
                            _evaluator(self.guide), feature_layout())
        if self.native_net:
            tree.use_net(native_net(self.guide))
        return tree

    def _puct(self, root: GNode, info: InfoSet, rng: random.Random, params: Params,
              tree: Any = None) -> int:
        if tree is not None:
            tree.start(rng)
            done = int(tree.run(self.iterations, self.time))
            tree.finish(rng)
            _copy_stats(root, tree)
            return done
        limit = self.iterations
        deadline = time.perf_counter() + self.time if self.time > 0 else 0.0
        done = 0
        while True:
            if limit and done >= limit:
                break
            if deadline and (done & 7) == 0 and done and time.perf_counter() >= deadline:
                break
            simulate(root, info.sample(rng), rng, params, self.guide)
            done += 1
        return done

    def _gumbel(self, root: GNode, info: InfoSet, rng: random.Random, params: Params,
                tree: Any = None) -> tuple[int, GNode]:
        """Sequential halving over the top-m moves by Gumbel + logit (see the module).
        `tree`: the native tree, which runs the phases' simulations."""
        children = root.children
        assert children is not None
        scores = {id(ch): self.noise * _gumbel(rng) + math.log(max(ch.prior, 1e-12))
                  for ch in children}
        if tree is not None:
            tree.start(rng)  # after the Gumbel draws, as the Python simulations come
            where = {id(ch): i for i, ch in enumerate(children)}
        ranked = sorted(children, key=lambda ch: -scores[id(ch)])
        alive = ranked[:min(self.m, len(children))]
        phases = max(1, math.ceil(math.log2(len(alive)))) if len(alive) > 1 else 1
        budget = self.iterations
        deadline_total = time.perf_counter() + self.time if self.time > 0 else 0.0
        done = 0
        for phase in range(phases):
            if tree is not None:
                alive_at = [where[id(ch)] for ch in alive]
                if deadline_total:
                    left = deadline_total - time.perf_counter()
                    done += tree.sweep(alive_at, 0, max(0.0, left) / (phases - phase), True)
                else:
                    share = max(1, (budget - done) // ((phases - phase) * len(alive)))
                    done += tree.sweep(alive_at, share, 0.0, False)
                _copy_stats(root, tree)
            elif deadline_total:
                left = deadline_total - time.perf_counter()
                phase_end = time.perf_counter() + max(0.0, left) / (phases - phase)
                while True:
                    for ch in alive:
                        simulate(root, info.sample(rng), rng, params, self.guide, ch)
                        done += 1
                    if time.perf_counter() >= phase_end:
                        break
            else:
                share = max(1, (budget - done) // ((phases - phase) * len(alive)))
                for _ in range(share):
                    for ch in alive:
                        simulate(root, info.sample(rng), rng, params, self.guide, ch)
                        done += 1
            if len(alive) > 1:
                top = max(ch.visits for ch in children)
                alive.sort(key=lambda ch: -(scores[id(ch)] + sigma(ch.q(), top)))
                if phase < phases - 1:
                    alive = alive[:math.ceil(len(alive) / 2)]
        if tree is not None:
            tree.finish(rng)
        return done, alive[0]


def _native_available() -> bool:
    from duel.native import available

    return available()


_NETS: dict[int, Any] = {}


def native_net(guide: Guide) -> Any:
    """The native core's copy of `guide`'s network (a NumpyGuide), made once per guide."""
    from duel.native import Net

    net = _NETS.get(id(guide))
    if net is None:
        net = Net(guide)
        _NETS[id(guide)] = net
    return net


def feature_layout() -> dict[str, int]:
    """duel.agents.guided.features' layout constants by name, for the native tree's encoder."""
    from duel.agents.guided import features

    return {name: value for name, value in vars(features).items()
            if (name[:2] in ("F_", "P_", "S_", "A_") or name == "MAX_COINS")
            and isinstance(value, int)}


def _evaluator(guide: Guide) -> Any:
    """Guide.evaluate for the native tree, which hands over the features and policy slots it
    computed: the same numpy arithmetic and softmax, the same count of evaluations."""
    raw = guide.raw

    def evaluate(idx: list[int], val: list[float], slots: list[int]
                 ) -> tuple[float, list[float]]:
        value, logits = raw(idx, val, slots)
        guide.evaluations += 1
        return value, softmax(logits)

    return evaluate


def _copy_stats(root: GNode, tree: Any) -> None:
    """The native tree's root statistics onto `root` and its children (in the moves' order)."""
    root.visits, root.value, children = tree.stats()
    for ch, (visits, value) in zip(root.children or [], children, strict=True):
        ch.visits = visits
        ch.value = value


def _gumbel(rng: random.Random) -> float:
    return -math.log(-math.log(max(rng.random(), 1e-300)))


def sigma(q: float, max_visits: int) -> float:
    """Gumbel MuZero's monotone transform of a value in [0, 1]."""
    return (C_VISIT + max_visits) * C_SCALE * q


def improved_policy(root: GNode, value: float) -> list[float]:
    """softmax(logit + sigma(completed q)) over the root's children: the visited ones' q, the
    others the mixed value estimate (Danihelka et al. 2022, appendix D)."""
    children = root.children or []
    top = max((ch.visits for ch in children), default=0)
    visited = [ch for ch in children if ch.visits]
    total_n = sum(ch.visits for ch in visited)
    mass = sum(ch.prior for ch in visited)
    if visited and mass > 0:
        weighted = sum(ch.prior * ch.q() for ch in visited) / mass
        mixed = (value + total_n * weighted) / (1 + total_n)
    else:
        mixed = value
    logits = [math.log(max(ch.prior, 1e-12)) + sigma(ch.q() if ch.visits else mixed, top)
              for ch in children]
    peak = max(logits)
    exps = [math.exp(x - peak) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]
