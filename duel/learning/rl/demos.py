"""Teacher demonstrations: games where a teacher agent plays the learner's seat, recorded as
episodes, with a searching teacher's root statistics (what the network is distilled from)."""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from duel.agents.mcts import MCTSAgent
from duel.agents.spec import make_agent
from duel.learning.rl.encoding import N_ACTIONS, action_of
from duel.learning.rl.episodes import Episode, play_episode

# One demonstration game: (deal seed, learner's seat 1 or 2, opponent spec, teacher spec).
DemoJob = tuple[int, int, str, str]


def teacher_episode(job: DemoJob) -> Episode:
    """One game with the teacher in the learner's seat. An MCTS teacher also records, for each
    decision, every searched action's mean value (-1..1) and its share of the root's visits."""
    seed, seat, opponent, teacher_spec = job
    teacher = make_agent(teacher_spec)
    searches = isinstance(teacher, MCTSAgent)
    qs: list[np.ndarray] = []
    ws: list[np.ndarray] = []

    def choose(obs: np.ndarray, mask: np.ndarray, view: dict[str, Any], shown: list[Any],
               rng: random.Random) -> int:
        if not searches:
            return action_of(teacher.choose(view, shown, rng).move)
        assert isinstance(teacher, MCTSAgent)
        decision, children = teacher.analyse(view, shown, rng)
        q = np.zeros(N_ACTIONS, np.float32)
        w = np.zeros(N_ACTIONS, np.float32)
        total = sum(visits for _, visits, _ in children)
        for move, visits, reward in children:
            if visits:
                q[action_of(move)] = 2.0 * reward / visits - 1.0
                w[action_of(move)] = visits / total
        if not children:  # a forced move or an immediate win: certain
            q[action_of(decision.move)] = 1.0 if len(shown) > 1 else 0.0
            w[action_of(decision.move)] = 1.0 if len(shown) > 1 else 0.0
        qs.append(q)
        ws.append(w)
        return action_of(decision.move)

    ep = play_episode(seed, seat, opponent, choose)
    ep.teacher_q, ep.teacher_w = qs, ws
    return ep


def map_episodes(fn: Callable[[Any], Episode], jobs: list[Any],
                 processes: int) -> Iterator[Episode]:
    """`fn` over `jobs` in order, in `processes` worker processes (spawned, so each imports
    duel afresh; 1 runs here)."""
    if processes <= 1:
        yield from map(fn, jobs)
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes) as pool:
        yield from pool.imap(fn, jobs, chunksize=1)
