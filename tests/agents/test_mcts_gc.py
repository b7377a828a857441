"""A search pauses the cyclic garbage collector and leaves it as it found it: on after a search
when it was on, off when the caller had turned it off, and on again when the search fails."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator

import pytest

from duel.agents.mcts import MCTSAgent, Node, iterate, no_cyclic_gc
from duel.analysis.search import Settings, evaluate
from duel.engine import InfoSet, new_game, seat_view

# The first generation's threshold during these tests. A collection starts when the objects
# kept since the last one pass it, and a search keeps a few hundred (its nodes) per 300
# iterations once the engine's caches are warm, as they are deep in the suite: at CPython's
# 700, the control below started no collection there, so the check could not fail.
THRESHOLD = 100


@pytest.fixture(autouse=True)
def restore_gc() -> Iterator[None]:
    was, thresholds = gc.isenabled(), gc.get_threshold()
    gc.set_threshold(THRESHOLD, 10, 10)
    yield
    gc.set_threshold(*thresholds)
    if was:
        gc.enable()
    else:
        gc.disable()


def _info() -> InfoSet:
    return InfoSet.from_view(seat_view(new_game(3)))


def _collections() -> int:
    return sum(generation["collections"] for generation in gc.get_stats())


def test_no_collection_runs_during_a_search_and_the_collector_is_on_after_it() -> None:
    gc.enable()
    # A search this size allocates enough to start many collections with the collector on.
    agent, info = MCTSAgent(iterations=300, reuse=0), _info()
    before = _collections()
    agent.search(info, random.Random(0))
    # At most one: the first allocation after the search, the collector on again, may start one
    # for everything allocated meanwhile.
    assert _collections() <= before + 1
    assert gc.isenabled()
    # The same iterations outside a search start several: the check above can fail.
    root, rng = Node(None, None, -1), random.Random(0)
    before = _collections()
    for _ in range(300):
        iterate(root, info.sample(rng), rng, agent.c, agent.rollout, agent.build_bias, 0.0)
    assert _collections() > before + 1


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    MCTSAgent(iterations=10).search(_info(), random.Random(0))
    assert not gc.isenabled()
    with no_cyclic_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_the_collector_is_on_again_when_the_search_fails() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), no_cyclic_gc():
        assert not gc.isenabled()
        raise RuntimeError("a search that fails")
    assert gc.isenabled()


def test_the_analyser_leaves_the_collector_on() -> None:
    gc.enable()
    info = _info()
    legal = info.sample(random.Random(0)).legal_moves()
    values, done = evaluate(seat_view(new_game(3)), legal, None,
                            Settings(iterations=len(legal) * 4), random.Random(0))
    assert done > 0 and len(values) == len(legal)
    assert gc.isenabled()
