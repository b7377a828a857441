"""Seat-swapped tournaments: every deal is played twice, once with each agent as player 1."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from duel.agents.spec import make_agent
from duel.match import play_match
from duel.stats import wilson


def _play(task: tuple[int, str, str]) -> dict[str, Any]:
    seed, p1, p2 = task
    return play_match(p1, p2, seed=seed).summary()


def schedule(a: str, b: str, games: int, seed: int) -> list[tuple[int, str, str]]:
    """`games` games on games/2 deals (seeds seed, seed+1, ...), each deal with both seatings."""
    tasks = []
    for i in range((games + 1) // 2):
        tasks.append((seed + i, a, b))
        tasks.append((seed + i, b, a))
    return tasks[:games]


@dataclass
class Standings:
    """Results from agent A's side."""

    a: str
    b: str
    games: list[dict[str, Any]] = field(default_factory=list)

    def add(self, game: dict[str, Any]) -> None:
        self.games.append(game)

    def _a_seat(self, g: dict[str, Any]) -> int:
        return 1 if g["player1"] == self.a else 2

    def counts(self) -> tuple[int, int, int]:
        wins = draws = losses = 0
        for g in self.games:
            if g["winner"] == "draw":
                draws += 1
            elif g["winner"] == self._a_seat(g):
                wins += 1
            else:
                losses += 1
        return wins, draws, losses

    def report(self, wall: float | None = None) -> str:
        n = len(self.games)
        if n == 0:
            return "no games"
        wins, draws, losses = self.counts()
        lo, hi = wilson(wins, n)
        slo, shi = wilson(wins + 0.5 * draws, n)
        a_scores = [g["scores"][self._a_seat(g) - 1] for g in self.games]
        b_scores = [g["scores"][2 - self._a_seat(g)] for g in self.games]
        victory: Counter[tuple[str, str]] = Counter()
        for g in self.games:
            if g["winner"] == "draw":
                victory[("draw", g["victory"])] += 1
            else:
                who = self.a if g["winner"] == self._a_seat(g) else self.b
                victory[(who, g["victory"])] += 1
        moves = sum(g["moves"] for g in self.games)
        seconds = sum(g["seconds"] for g in self.games)
        lines = [
            f"{self.a} vs {self.b}: {n} games (seat-swapped pairs)",
            f"  {self.a}: {wins} wins, {draws} draws, {losses} losses",
            f"  win rate {wins / n:.1%} (95% CI {lo:.1%}-{hi:.1%}); "
            f"score rate (draw = 1/2) {(wins + 0.5 * draws) / n:.1%} (95% CI {slo:.1%}-{shi:.1%})",
            f"  mean score {self.a} {sum(a_scores) / n:.1f}, {self.b} {sum(b_scores) / n:.1f}",
        ]
        for who in (self.a, self.b, "draw"):
            kinds = {k: victory[(who, k)] for k in ("military", "science", "civilian")
                     if victory[(who, k)]}
            if kinds:
                label = "shared" if who == "draw" else f"{who} won by"
                lines.append(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
        rate = moves / seconds if seconds else 0.0
        lines.append(f"  {moves} moves, {rate:.1f} moves/s per game process"
                     + (f", wall {wall:.1f} s" if wall is not None else ""))
        return "\n".join(lines)


def _read_done(path: Path) -> list[dict[str, Any]]:
    done = []
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                done.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a kill: that game is simply played again
    return done


def run(a: str, b: str, games: int, seed: int = 0, jobs: int = 1, out: str | None = None,
        progress: bool = True) -> Standings:
    """Play (or resume) a tournament; games already recorded in `out` are not replayed."""
    make_agent(a)
    make_agent(b)  # fail fast on a bad spec, before any process starts
    tasks = schedule(a, b, games, seed)
    standings = Standings(a, b)
    sink = None
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        path = Path(out) / "games.jsonl"
        done = {(g["seed"], g["player1"], g["player2"]): g for g in _read_done(path)}
        for t in tasks:
            if t in done:
                standings.add(done[t])
        tasks = [t for t in tasks if t not in done]
        sink = path.open("a")
    bar = tqdm(total=len(tasks) + len(standings.games), initial=len(standings.games),
               disable=not progress, unit="game")
    try:
        for game in _results(tasks, jobs):
            standings.add(game)
            if sink is not None:
                sink.write(json.dumps(game) + "\n")
                sink.flush()
            bar.update(1)
    finally:
        bar.close()
        if sink is not None:
            sink.close()
    return standings


def _results(tasks: list[tuple[int, str, str]], jobs: int) -> Iterator[dict[str, Any]]:
    if jobs <= 1:
        for t in tasks:
            yield _play(t)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_play, t) for t in tasks]
        for f in as_completed(futures):
            yield f.result()
