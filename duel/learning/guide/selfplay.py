"""Self-play games that the guide learns from: both seats played by one searching agent, every
searched decision's root statistics recorded.

A game is stored as its deal's seed, its moves (true labels) and, for each searched decision, the
root's children (move, visits, mean value from the mover's side), then the result. The positions
themselves are not stored: `duel.learning.guide.dataset` re-plays the moves from the seed and
encodes each position from the mover's side, so a change of encoding needs no new games.

Exploration: for the first `explore` searched decisions of a game the move is drawn in
proportion to the root's visits (AlphaZero's temperature 1), then the most visited is played.
The searcher is any agent with ``analyse(view, legal, rng) -> (Decision, children)``: the
ISMCTS agent (the bootstrap) or the guided search (later generations).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duel.engine import Move, Perspective, new_game

# A game to play: (index in the run, deal seed, the searcher's spec, decisions explored).
Job = tuple[int, int, str, int]


@dataclass
class GameRecord:
    """One self-play game: enough to re-play and learn from it."""

    index: int
    seed: int
    spec: str
    moves: list[Move]
    # ply -> root children (move in true labels, visits, mean value for the mover)
    searches: dict[int, list[tuple[Move, int, float]]]
    winner: int  # 0, 1 (seat index) or -1 (draw)
    victory: str
    iterations: int  # search iterations over the game
    # ply -> the search's own policy target per child (the guided search's improved policy),
    # in the order of `searches[ply]`; absent for the ISMCTS bootstrap (visit shares then)
    targets: dict[int, list[float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "seed": self.seed, "spec": self.spec,
                "moves": [m.to_json() for m in self.moves],
                "searches": {str(p): [[m.to_json(), v, round(q, 4)] for m, v, q in ch]
                             for p, ch in self.searches.items()},
                "winner": self.winner, "victory": self.victory, "iterations": self.iterations,
                "targets": {str(p): t for p, t in self.targets.items()}}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> GameRecord:
        return GameRecord(obj["index"], obj["seed"], obj["spec"],
                          [Move.from_json(m) for m in obj["moves"]],
                          {int(p): [(Move.from_json(m), int(v), float(q)) for m, v, q in ch]
                           for p, ch in obj["searches"].items()},
                          obj["winner"], obj["victory"], obj.get("iterations", 0),
                          {int(p): [float(x) for x in t]
                           for p, t in obj.get("targets", {}).items()})


Searcher = Callable[[str], Any]  # spec -> agent with analyse()


def _default_searcher(spec: str) -> Any:
    from duel.agents.spec import make_agent

    return make_agent(spec)


def play_game(job: Job, make: Searcher = _default_searcher) -> GameRecord:
    """One self-play game of `job` (one agent object per seat, so tree reuse works)."""
    index, seed, spec, explore = job
    agents = (make(spec), make(spec))
    rng = random.Random(seed * 7919 + 17)
    state = new_game(seed)
    moves: list[Move] = []
    searches: dict[int, list[tuple[Move, int, float]]] = {}
    targets: dict[int, list[float]] = {}
    searched = 0
    iterations = 0
    while not state.is_terminal():
        legal = state.legal_moves()
        seen = Perspective.to_move(state)
        if len(legal) == 1:
            move = legal[0]
            agent = agents[state.current]
            # The agent still hears of the position (a forced move keeps its tree in step).
            agent.analyse(seen.view(state), seen.moves_out(legal), rng)
        else:
            decision, children = agents[state.current].analyse(
                seen.view(state), seen.moves_out(legal), rng)
            iterations += int(decision.details.get("iterations", 0))
            move = seen.move_in(decision.move)
            if children:
                stats = [(seen.move_in(m), int(v), (r / v) if v else 0.0)
                         for m, v, r in children]
                searches[state.ply] = stats
                if "target" in decision.details:
                    targets[state.ply] = list(decision.details["target"])
                if searched < explore:
                    move = _sample(stats, rng)
                searched += 1
        moves.append(move)
        state.play(move)
    winner = state.winner if state.winner in (0, 1) else -1
    return GameRecord(index, seed, spec, moves, searches, winner, state.victory, iterations,
                      targets)


def _sample(stats: Sequence[tuple[Move, int, float]], rng: random.Random) -> Move:
    """A move drawn in proportion to its visits."""
    total = sum(v for _, v, _ in stats)
    x = rng.random() * total
    for move, visits, _ in stats:
        x -= visits
        if x < 0:
            return move
    return max(stats, key=lambda s: s[1])[0]


def read_games(path: Path) -> list[GameRecord]:
    """The games of a file (a line cut short by a killed run is skipped)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(GameRecord.from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            continue
    return out


def generate(path: Path, spec: str, games: int, first_seed: int, explore: int, jobs: int = 1,
             make: Searcher = _default_searcher, progress: Callable[[int], object] | None = None
             ) -> list[GameRecord]:
    """Play until `path` holds `games` games (resumable: the games there count), appending each
    as it ends. Seeds first_seed, first_seed + 1, ...; the same settings give the same games."""
    done = read_games(path)
    have = {g.index for g in done}
    todo = [(i, first_seed + i, spec, explore) for i in range(games) if i not in have]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            cut = f.read(1) != b"\n"
        if cut:  # a line cut short by a killed run: end it, so it is skipped, not joined
            with path.open("a") as f:
                f.write("\n")
    with path.open("a") as out:
        for record in _map(todo, jobs, make):
            out.write(json.dumps(record.to_json()) + "\n")
            out.flush()
            os.fsync(out.fileno())
            done.append(record)
            if progress is not None:
                progress(1)
    done.sort(key=lambda g: g.index)
    return done


def _run(job: Job) -> GameRecord:
    return play_game(job)


def _map(todo: list[Job], jobs: int, make: Searcher) -> Iterator[GameRecord]:
    if jobs <= 1 or len(todo) <= 1:
        for job in todo:
            yield play_game(job, make)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs, initializer=_single_thread) as pool:
        yield from pool.imap_unordered(_run, todo, chunksize=1)


def _single_thread() -> None:
    """Worker processes: one thread each for numpy/onnxruntime/torch (jobs are the parallelism)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
