"""The analyser's search: every legal move's expected score, with a standard error, from what one
seat could see.

The search starts from the seat's information set (``InfoSet.from_view`` of the view the player
had), never from the true state: each iteration deals the unseen cards afresh, as the ISMCTS agent
does (duel.agents.mcts), so hidden cards cannot change a verdict. The value of a move is the
seat's expected score after it (win 1, draw 1/2, loss 0), estimated by the mean result of the
iterations that began with it.

Why not the agent's search: UCB at the root spends its budget on the moves it already likes, so a
poor move that was played gets a handful of visits and a value too noisy to grade. The root is
therefore run by **sequential halving** (Karnin, Koren & Somekh 2013; the root of Gumbel MuZero,
Danihelka et al. 2022): with k legal moves there are R = ceil(log2 k) rounds; each round shares
1/R of the budget equally among the moves still in, then keeps the better half by mean value. The
move that was played is never dropped, so it ends with as many visits as the best one. Below
each root move the tree grows by the agent's own UCT iteration (`duel.agents.mcts.iterate`, same
exploration constant, rollout policy and build bias as `MCTSAgent`'s defaults), so the values
mean what the agent's search means.

Budget (``Settings``): `iterations` per decision (default :data:`DEFAULT_ITERATIONS`), or `time`
seconds per decision split equally among the rounds. Every move gets at least
``iterations / (R * k)`` visits (and at least one per round it is in); the best and the played
move get about ``iterations / R`` each (a quarter of the budget with 20 legal moves), which is
what makes the loss between them precise. The standard error of a value is the sample standard
deviation of its iterations' results over the square root of their number (the iterations of
one subtree are not independent draws, as UCT below steers them, so it is an approximation that
the two-seed stability measurement of `duel bench analyse` checks).

The native core (docs/native.md): when it is built, the sweeps below the root run in C++
(duel.native.Sweeper: the same subtrees, MAST table and generator draws as `_sweep`), about ten
times faster; the halving and every figure stay here, computed from the sums it hands back, so
the values are the Python search's bit for bit. With a guide (``--guide``) the guided subtrees
run there too (duel.native.GuidedSearch, the network called back in Python), with the same
figures as duel.analysis.guided's Python sweeps. ``Settings(native=False)`` or ``DUEL_PURE=1``
runs the Python sweeps.

Seeded: the same view, moves, played move, seed and iteration budget give the same values in any
process (the decision's generator is seeded from the analysis seed and the ply only, see
:func:`decision_seed`). A `time` budget depends on the machine's speed and load: not
reproducible.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from duel.agents.mcts import Mast, MCTSAgent, Node, iterate, no_cyclic_gc
from duel.engine import InfoSet, Move
from duel.errors import UsageError

# Chosen by measurement (README, "Move quality"): two seeds agreed within STABILITY_TOLERANCE on
# 90% of the losses at 1000 iterations, 92% at 2000 and 97% at 4000; one seat of a whole game
# takes 16 s at 4000 with two processes on an idle 2-core machine (target: under 30 s).
DEFAULT_ITERATIONS = 4000
# With --guide (duel/analysis/guided.py): measured in docs/guide.md.
GUIDE_ITERATIONS = 1000
# Two analyses "agree" on a decision when their losses differ by at most this much.
STABILITY_TOLERANCE = 0.05
ROOT_METHOD = "sequential-halving"

_AGENT = MCTSAgent()  # the agent's defaults: the analyser's tree below the root is the agent's


@dataclass(frozen=True)
class Settings:
    """What an analysis was run with; the sidecar records it, so a reused one is the same."""

    iterations: int = DEFAULT_ITERATIONS
    time: float = 0.0  # seconds per decision; when > 0 it replaces `iterations`
    seed: int = 0
    c: float = _AGENT.c
    rollout: str = _AGENT.rollout
    build_bias: float = _AGENT.build_bias
    epsilon: float = _AGENT.epsilon
    # A learned guide below the root (duel.analysis.guided; "default" is the shipped model):
    # PUCT with its priors and its value at the leaves instead of UCT with rollouts. "" for
    # rollouts.
    guide: str = ""
    # The search (the rollouts', or the guide's) in the native core when it is built
    # (docs/native.md; DUEL_PURE=1 turns it off everywhere). Not in the sidecar: at an
    # iteration budget both searches give the same figures, bit for bit
    # (tests/analysis/test_analysis_native.py), so a sidecar made by either is the other's too.
    # False: the Python search, to compare.
    native: bool = True

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise UsageError(f"iterations per decision must be at least 1, got "
                             f"{self.iterations}")
        if not (self.time >= 0 and math.isfinite(self.time)):
            raise UsageError(f"time per decision must be a number of seconds >= 0, got "
                             f"{self.time}")
        if self.seed < 0:
            raise UsageError(f"the analysis seed must be >= 0, got {self.seed}")

    @property
    def deterministic(self) -> bool:
        return self.time <= 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"iterations": self.iterations, "time": self.time,
                               "seed": self.seed, "root": ROOT_METHOD, "c": self.c,
                               "rollout": self.rollout, "build_bias": self.build_bias,
                               "epsilon": self.epsilon}
        if self.guide:
            from duel.analysis.guided import model_id

            # The model's name and a hash of its weights: a retrained model is another judge.
            out["guide"] = self.guide
            out["guide_model"] = model_id(self.guide)
        return out

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Settings:
        # A sidecar from before MAST rollouts has no epsilon; its rollouts never read one.
        return Settings(iterations=obj["iterations"], time=obj["time"], seed=obj["seed"],
                        c=obj["c"], rollout=obj["rollout"], build_bias=obj["build_bias"],
                        epsilon=obj.get("epsilon", _AGENT.epsilon), guide=obj.get("guide", ""))


@dataclass(frozen=True)
class MoveValue:
    """One root move: the seat's expected score after it, its standard error, its visits and
    the number of halving rounds it stayed in (the ranking's first key)."""

    move: Move
    value: float
    se: float
    visits: int
    rounds: int

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move.to_json(), "value": self.value, "se": self.se,
                "visits": self.visits, "rounds": self.rounds}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MoveValue:
        return MoveValue(Move.from_json(obj["move"]), obj["value"], obj["se"], obj["visits"],
                         obj["rounds"])

    def relabelled(self, move: Move) -> MoveValue:
        """The same figures for `move` (the same move in other labels)."""
        return MoveValue(move, self.value, self.se, self.visits, self.rounds)


def decision_seed(seed: int, ply: int) -> int:
    """The generator seed of the decision at `ply`: from the analysis seed and the ply alone, so
    the result does not depend on which worker runs it or in what order."""
    digest = hashlib.sha256(f"duel-analyse:{seed}:{ply}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class _Stats:
    __slots__ = ("node", "visits", "total", "squares", "rounds")

    def __init__(self, node: Any) -> None:
        self.node = node  # the move's subtree: an mcts.Node, or a guided search's GNode
        self.visits = 0
        self.total = 0.0  # sum of results from the seat's side
        self.squares = 0.0  # sum of squared results, for the standard error
        self.rounds = 0

    def add(self, result: float) -> None:
        self.visits += 1
        self.total += result
        self.squares += result * result

    @property
    def mean(self) -> float:
        n = self.visits
        return self.total / n if n else 0.0

    @property
    def se(self) -> float:
        n = self.visits
        if n < 2:
            return 0.5  # nothing measured: the widest spread a result in [0, 1] can have
        var = (self.squares - n * self.mean ** 2) / (n - 1)
        return math.sqrt(max(0.0, var) / n)


def evaluate(view: dict[str, Any], legal: Sequence[Move], keep: Move | None,
             settings: Settings, rng: random.Random) -> tuple[list[MoveValue], int]:
    """Every move of `legal` (in the view's labels) valued from `view`, ranked best first (moves
    that stayed in more rounds first, then by value), and the iterations run. `keep` (the move
    played) stays in every round."""
    moves = list(legal)
    if not moves:
        raise UsageError("nothing to analyse: no legal move")
    if keep is not None and keep not in moves:
        raise UsageError(f"the move played, {keep}, is not one of the legal moves")
    info = InfoSet.from_view(view)
    seat = info.template.current
    stats: dict[Move, _Stats] = {}
    run: _Run
    sweeper = None
    if settings.guide and settings.native and _native_available():
        from duel.analysis.guided import native_guided

        # The guided subtrees in C++ (the network called back here): the same figures.
        for move in moves:
            stats[move] = _Stats(None)
        sweeper = native_guided(info, moves, settings, rng)
        run = _native_guided_run(sweeper, moves, stats)
    elif settings.guide:
        from duel.analysis.guided import guided_sweep

        run = _repeat(guided_sweep(info, moves, stats, settings, _Stats))
    elif settings.native and _native_available():
        from duel.native import Sweeper

        # The same subtrees and MAST table in C++, from the same generator state; the halving
        # below stays here and reads the moves' figures back after every round's sweeps.
        for move in moves:
            stats[move] = _Stats(None)
        sweeper = Sweeper(info, moves, rng, settings.c, settings.rollout, settings.build_bias,
                          settings.epsilon, 0 if settings.time > 0 else settings.iterations)
        run = _native_run(sweeper, moves, stats)
    else:
        root = Node(None, None, -1)
        for move in moves:
            child = Node(move, root, seat)
            root.children[move] = child
            stats[move] = _Stats(child)
        # The agent's MAST table too, one per decision, learnt from every root move's
        # iterations.
        mast = Mast(settings.epsilon) if settings.rollout == "mast" else None

        def sweep(alive: list[Move], rng: random.Random) -> int:
            return _sweep(info, alive, stats, seat, settings, rng, mast)

        run = _repeat(sweep)

    rounds = max(1, math.ceil(math.log2(len(moves))))
    with no_cyclic_gc():  # as in the agent's search: the trees are kept to the end anyway
        done = _rounds(moves, keep, stats, settings, rng, rounds, run)
    if sweeper is not None:
        sweeper.finish(rng)  # the generator where the Python sweeps leave it
    # Rounded once, here, so that a sidecar read back holds exactly the figures computed. On a
    # tie (a won position: every move 1.0) the move played ranks first: nothing better existed.
    values = [MoveValue(m, round(s.mean, 4), round(s.se, 4), s.visits, s.rounds)
              for m, s in stats.items()]
    values.sort(key=lambda v: (-v.rounds, -v.value, v.move != keep))
    return values, done


# One iteration for each move still in (a fresh sample each); returns the iterations run.
_Sweep = Callable[[list[Move], random.Random], int]
# A round's sweeps: (alive, rng, count, deadline) runs `count` sweeps, or with a deadline (a
# time.perf_counter() value, else 0) sweeps until it has passed, one at least. Returns the
# iterations run.
_Run = Callable[[list[Move], random.Random, int, float], int]


def _repeat(sweep: _Sweep) -> _Run:
    """A round's sweeps from a Python sweep, one call a sweep."""
    def run(alive: list[Move], rng: random.Random, count: int, deadline: float) -> int:
        done = 0
        if deadline:
            while True:
                done += sweep(alive, rng)
                if time.perf_counter() >= deadline:
                    break
        else:
            for _ in range(count):
                done += sweep(alive, rng)
        return done

    return run


def _native_run(sweeper: Any, moves: list[Move], stats: dict[Move, _Stats]) -> _Run:
    """A round's sweeps in the native core (one call a round: the deadline is kept there),
    then every move's figures copied back for the halving to rank."""
    def run(alive: list[Move], rng: random.Random, count: int, deadline: float) -> int:
        # A deadline already passed still runs one sweep, as the Python loop does.
        seconds = max(1e-9, deadline - time.perf_counter()) if deadline else 0.0
        done: int = sweeper.sweep(alive, count, seconds)
        for move, (visits, total, squares) in zip(moves, sweeper.stats(), strict=True):
            s = stats[move]
            s.visits, s.total, s.squares = visits, total, squares
        return done

    return run


def _native_guided_run(tree: Any, moves: list[Move], stats: dict[Move, _Stats]) -> _Run:
    """`_native_run` for the guided subtrees (duel.native.GuidedSearch's sweep and results)."""
    index = {move: i for i, move in enumerate(moves)}

    def run(alive: list[Move], rng: random.Random, count: int, deadline: float) -> int:
        seconds = max(1e-9, deadline - time.perf_counter()) if deadline else 0.0
        done: int = tree.sweep([index[m] for m in alive], count, seconds, bool(deadline))
        for move, (visits, total, squares) in zip(moves, tree.results(), strict=True):
            s = stats[move]
            s.visits, s.total, s.squares = visits, total, squares
        return done

    return run


def _native_available() -> bool:
    from duel.native import available

    return available()


def _rounds(moves: list[Move], keep: Move | None, stats: dict[Move, _Stats],
            settings: Settings, rng: random.Random, rounds: int, run: _Run) -> int:
    """Successive halving: each round gives every move still in its share of the budget, then
    keeps the better half (and the move played). Returns the iterations run."""
    alive = list(moves)
    done = 0
    for r in range(rounds):
        if settings.time > 0:
            done += run(alive, rng, 0, time.perf_counter() + settings.time / rounds)
        else:
            done += run(alive, rng, max(1, settings.iterations // (rounds * len(alive))), 0.0)
        for move in alive:
            stats[move].rounds = r + 1
        if r < rounds - 1:
            ranked = sorted(alive, key=lambda m: -stats[m].mean)  # stable: legal order on ties
            alive = ranked[:math.ceil(len(alive) / 2)]
            if keep is not None and keep not in alive:
                alive.append(keep)
    return done


def _sweep(info: InfoSet, alive: list[Move], stats: dict[Move, _Stats], seat: int,
           settings: Settings, rng: random.Random, mast: Mast | None) -> int:
    """One iteration for each move still in: a fresh sample of the hidden cards, the move, then
    the agent's UCT iteration below it. Root moves are legal in every sample (which moves are
    legal depends on face-up cards, coins and cities only)."""
    for move in alive:
        state = info.sample(rng)
        state.play(move)
        s = stats[move]
        s.add(iterate(s.node, state, rng, settings.c, settings.rollout, settings.build_bias,
                      0.0, mast)[seat])
    return len(alive)
