"""The analyser on the guide (`duel analyse --guide`): below each root move, the guided search's
tree (PUCT with the network's priors, its value at the leaves, capped chance nodes) instead of
UCT with rollouts. The root stays the analyser's own sequential halving over every legal move
(duel.analysis.search), so each move's value is still the mean of the simulations that began
with it, from the deciding seat's side, and the move played is never dropped. The simulations
run in the native core when it is built (`native_guided`), with the same figures.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from duel.agents.guided.runtime import load_guide, model_path
from duel.agents.guided.search import GNode, Params, expand, simulate
from duel.agents.mcts import public_sample
from duel.engine import InfoSet, Move

# The guided agent's defaults (duel.agents.guided.agent.GuidedAgent).
C = 1.5
FPU = 0.2
CAP = 11


def guided_sweep(info: InfoSet, moves: list[Move], stats: dict[Move, Any], settings: Any,
                 make_stats: Callable[[GNode], Any]
                 ) -> Callable[[list[Move], random.Random], int]:
    """Fill `stats` (the analyser's per-move figures, each made by `make_stats` from the move's
    subtree: the analyser's own type, passed in so that this module need not import the
    analyser) with the root moves' subtrees and return the sweep: one guided simulation below
    each move still in."""
    guide = load_guide(settings.guide)
    base = public_sample(info)
    root = GNode(None, base.current, 1.0)
    expand(root, base, moves, guide)
    assert root.children is not None
    by_move = {}
    for child in root.children:
        assert child.move is not None
        stats[child.move] = make_stats(child)
        by_move[child.move] = child
    seat = base.current
    params = Params(C, FPU, CAP, 0.0, 0.3)

    def sweep(alive: list[Move], rng: random.Random) -> int:
        for move in alive:
            value0 = simulate(root, info.sample(rng), rng, params, guide, by_move[move])
            stats[move].add(value0 if seat == 0 else 1.0 - value0)
        return len(alive)

    return sweep


def native_guided(info: InfoSet, moves: list[Move], settings: Any, rng: random.Random) -> Any:
    """`guided_sweep`'s subtrees in the native core (duel/native/guided.h, a GuidedSearch):
    the root expanded here as there, the simulations below its moves in C++ with the network
    called back in Python, so every figure is guided_sweep's, bit for bit. Reads `rng` from
    now on; its `finish(rng)` hands it back where the Python sweeps would have left it."""
    from duel.agents.guided.agent import _evaluator, feature_layout
    from duel.native import GuidedSearch

    guide = load_guide(settings.guide)
    base = public_sample(info)
    root = GNode(None, base.current, 1.0)
    value = expand(root, base, moves, guide)
    assert root.children is not None
    priors = [child.prior for child in root.children]
    tree = GuidedSearch(info, moves, priors, value, C, FPU, CAP, 0.0, 0.3, _evaluator(guide),
                        feature_layout())
    tree.start(rng)
    return tree


def model_id(name: str) -> str:
    """A short hash of the model's weights (what the sidecar records beside its name)."""
    path = model_path(name)
    return _hash(str(path), path.stat().st_mtime_ns if path.exists() else 0)


@lru_cache(maxsize=16)
def _hash(path: str, mtime: int) -> str:
    try:
        return hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]
    except OSError:
        return "missing"
