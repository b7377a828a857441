"""Seat-swapped tournaments: every deal is played twice, once with each agent as player 1."""

from __future__ import annotations

import json
import time
from collections import Counter
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from duel.agents.llm.limits import LimitSpec
from duel.agents.spec import make_agent
from duel.budget import Budget, GameCost, is_llm
from duel.engine import Seat, new_game
from duel.match import play_match
from duel.records import GameSummary, read_games
from duel.schedule import Gate, now, run_gated
from duel.stats import wilson
from duel.totals import combine, summary_line
from duel.transcripts import header_line, move_line, prompt_of, render_line, result_line

PAIRING = "pairing"  # the budget's one group: every game of a tournament costs alike


TRANSCRIPTS = "transcripts"  # the folder of a tournament's transcripts, under its --out


def _play(task: tuple[int, str, str]) -> GameSummary:
    seed, p1, p2 = task
    return play_match(p1, p2, seed=seed).summary()


def _play_recorded(task: tuple[int, str, str]) -> tuple[GameSummary, str]:
    """A game and its transcript's text, for the run's own process to write into its folder
    (a game played in another process, or on another machine, included)."""
    seed, p1, p2 = task
    agents = make_agent(p1), make_agent(p2)
    deal = new_game(seed).deal
    started = time.time()
    match = play_match(agents[0], agents[1], seed=seed, deal=deal)
    header = header_line(seed, deal, new_game(deal=deal).code, True,
                         [(a.spec, prompt_of(a)) for a in agents], started)
    lines = [header, *(move_line(r) for r in match.records),
             result_line(match.result, match.records)]
    return match.summary(), "".join(render_line(line) for line in lines)


def transcript_name(i: int, seed: int) -> str:
    """The transcript of the schedule's game `i` (on deal `seed`), under the tournament's
    folder: stable across resumes and longer runs, as the schedule is."""
    return f"{TRANSCRIPTS}/game{i + 1:05d}-deal{seed}.jsonl"


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
    games: list[GameSummary] = field(default_factory=list)
    # A's seat in each game: needed when A and B have the same spec (a self-play tournament).
    seats: list[Seat] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # lines about the run (its money)

    def add(self, game: GameSummary, a_seat: Seat | None = None) -> None:
        if a_seat is None:
            a_seat = Seat.P1 if game.specs[0] == self.a else Seat.P2
        self.games.append(game)
        self.seats.append(a_seat)

    def counts(self) -> tuple[int, int, int]:
        points = [g.points(seat) for g, seat in zip(self.games, self.seats, strict=True)]
        return points.count(1.0), points.count(0.5), points.count(0.0)

    def report(self, wall: float | None = None) -> str:
        n = len(self.games)
        if n == 0:
            return "\n".join(["no games", *self.notes])
        wins, draws, losses = self.counts()
        lo, hi = wilson(wins, n)
        slo, shi = wilson(wins + 0.5 * draws, n)
        pairs = list(zip(self.games, self.seats, strict=True))
        a_scores = [g.result.total(seat) for g, seat in pairs]
        b_scores = [g.result.total(seat.other) for g, seat in pairs]
        # Labels for the victory lines: "A" and "B" when both sides have the same spec.
        a_name, b_name = (self.a, self.b) if self.a != self.b else (f"{self.a} (A)",
                                                                     f"{self.b} (B)")
        victory: Counter[tuple[str, str]] = Counter()
        for g, seat in pairs:
            r = g.result
            who = "draw" if r.winner is None else a_name if r.winner is seat else b_name
            victory[(who, r.victory)] += 1
        moves = sum(g.moves for g in self.games)
        seconds = sum(g.seconds for g in self.games)
        lines = [
            f"{self.a} vs {self.b}: {n} games (seat-swapped pairs)",
            f"  {self.a}: {wins} wins, {draws} draws, {losses} losses",
            f"  win rate {wins / n:.1%} (95% CI {lo:.1%}-{hi:.1%}); "
            f"score rate (draw = 1/2) {(wins + 0.5 * draws) / n:.1%} (95% CI {slo:.1%}-{shi:.1%})",
            f"  mean score {self.a} {sum(a_scores) / n:.1f}, {self.b} {sum(b_scores) / n:.1f}",
        ]
        kinds_seen = ["military", "science", "civilian"]
        kinds_seen += sorted({k for _, k in victory} - set(kinds_seen))  # e.g. forfeit
        for who in (a_name, b_name, "draw"):
            kinds = {k: victory[(who, k)] for k in kinds_seen if victory[(who, k)]}
            if kinds:
                label = "shared" if who == "draw" else f"{who} won by"
                lines.append(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
        for name, a_side in ((a_name, True), (b_name, False)):  # LLM sides: cost, reasoning
            per_game = [g.totals.get(str((seat if a_side else seat.other).player))
                        for g, seat in pairs if g.totals]
            if any(per_game):
                lines.append(summary_line(name, combine(per_game)))
        rate = moves / seconds if seconds else 0.0
        lines.append(f"  {moves} moves, {rate:.1f} moves/s per game process"
                     + (f", wall {wall:.1f} s" if wall is not None else ""))
        return "\n".join([*lines, *self.notes])


def run(a: str, b: str, games: int, seed: int = 0, jobs: int = 1, out: str | None = None,
        progress: bool = True, budget_usd: float | None = None,
        ray: str | None = None, llm_limit: LimitSpec | None = None,
        transcripts: bool = True) -> Standings:
    """Play (or resume) a tournament; games already recorded in `out` are not replayed.
    `transcripts`: with `out`, each game's transcript goes to `out`/transcripts/ too, its line
    in games.jsonl naming it (what `duel leaderboard` links to the replay viewer).
    `budget_usd`: start no game that would take the LLM money spent past it (duel.budget); the
    games recorded in `out` count. `ray`: play the games as tasks of that Ray cluster (see
    duel.cluster), at most `jobs` at once (0: one per CPU of the cluster), the LLM seats'
    requests under `llm_limit` cluster-wide."""
    # Fail fast on a bad spec, before any process starts; and use the specs as the games record
    # them (stripped), so that seats are told apart and a resumed run finds its games.
    agents = make_agent(a), make_agent(b)
    a, b = agents[0].spec, agents[1].spec
    budget = Budget(budget_usd, out or "")
    budget.check_agents(agents)
    tasks = schedule(a, b, games, seed)
    seats = {i: Seat.P1 if i % 2 == 0 else Seat.P2 for i in range(len(tasks))}  # A's, task i
    standings = Standings(a, b)
    sink = None
    todo = list(range(len(tasks)))
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        path = Path(out) / "games.jsonl"
        done: dict[tuple[int, str, str], list[GameSummary]] = {}
        for g in read_games(path):
            if g.seed is not None:
                done.setdefault((g.seed, *g.specs), []).append(g)
        todo = []
        for i, t in enumerate(tasks):
            # By count, not presence: with A == B both games of a deal have the same key.
            if done.get(t):
                g = done[t].pop(0)
                standings.add(g, seats[i])
                budget.add_earlier(PAIRING, GameCost.of_game(g))
            else:
                todo.append(i)
        _end_partial_line(path)
        sink = path.open("a")
    recorded = transcripts and sink is not None
    play = _play_recorded if recorded else _play
    show_money = budget_usd is not None or is_llm(a) or is_llm(b)
    bar = tqdm(total=len(tasks), initial=len(standings.games), disable=not progress,
               unit="game")
    if show_money:
        bar.set_postfix_str(budget.money())

    def finished(i: int, done: GameSummary | tuple[GameSummary, str]) -> None:
        game, text = done if isinstance(done, tuple) else (done, None)
        standings.add(game, seats[i])
        if sink is not None:
            line = game.to_json()
            if text is not None and out:
                name = transcript_name(i, tasks[i][0])
                _write_whole(Path(out) / name, text)  # before the line that names it
                line["transcript"] = name
            sink.write(json.dumps(line) + "\n")
            sink.flush()
        bar.update(1)
        # an unknown cost under a budget stops the run here
        budget.finished(PAIRING, GameCost.of_game(game))
        if show_money:
            bar.set_postfix_str(budget.money())

    def gate(i: int) -> Gate:
        return budget.gate(PAIRING)

    remote = None
    if ray is not None:
        from duel.cluster import RayPool, connect

        cpus = connect(ray, jobs or None)
        jobs = jobs or cpus
        remote = RayPool(play, llm_limit, agents)
    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 and remote is None else None

    def submit(i: int) -> Future[Any]:
        budget.started(PAIRING)
        if remote is not None:
            return remote.submit(tasks[i])
        return pool.submit(play, tasks[i]) if pool is not None else now(play, tasks[i])

    try:
        run_gated(todo, submit, jobs, gate, finished)
    finally:
        bar.close()
        if sink is not None:
            sink.close()
        if pool is not None:
            # On an interrupt or an error, do not wait for the games not yet started.
            pool.shutdown(wait=True, cancel_futures=True)
        if remote is not None:
            remote.shutdown()
    standings.notes = [line for line in (budget.summary(len(standings.games), len(tasks)),)
                       if line]
    return standings


def _write_whole(path: Path, text: str) -> None:
    """A transcript written whole (a run killed meanwhile leaves none, or the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_text(text)
    partial.replace(path)


def _end_partial_line(path: Path) -> None:
    """A run killed mid-write leaves a line without its newline: end it, so the next game
    starts on a line of its own (the broken line is skipped when read)."""
    if path.exists() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, 2)
            last = f.read(1)
        if last != b"\n":
            with path.open("a") as f:
                f.write("\n")
