"""Seat-swapped tournaments: every deal is played twice, once with each agent as player 1."""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duel.accounting.totals import combine, summary_line
from duel.agents.account import SeatAccount
from duel.agents.llm.transport.limits import LimitSpec
from duel.agents.search_time import SearchTime
from duel.agents.spec import make_agent
from duel.engine import Seat
from duel.match import play_match
from duel.records import GameSummary, read_games
from duel.runs.budget import Budget, GameCost, is_llm
from duel.runs.campaign import Campaign
from duel.runs.campaign import run as campaign_run
from duel.runs.dryrun import DryRun, project, recorded_spend
from duel.runs.schedule import seat_swapped
from duel.stats import wilson
from duel.util.files import append_jsonl, atomic_write


@dataclass(frozen=True)
class GameTask:
    """One game of a tournament: its place in the schedule (with A and B the same spec, two
    games of one deal are told apart by it), the deal's seed and the two seats' specs."""

    index: int
    seed: int
    p1: str
    p2: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "seed": self.seed, "player1": self.p1, "player2": self.p2}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> GameTask:
        return GameTask(int(obj["index"]), int(obj["seed"]), str(obj["player1"]),
                        str(obj["player2"]))

    @property
    def a_seat(self) -> Seat:
        """Agent A's seat: player 1 in the even games, player 2 in the odd ones."""
        return Seat.P1 if self.index % 2 == 0 else Seat.P2


TRANSCRIPTS = "transcripts"  # the folder of a tournament's transcripts, under its --out


def play_game(seed: int, p1: str, p2: str) -> GameSummary:
    return play_match(p1, p2, seed=seed).summary()


def play_recorded(seed: int, p1: str, p2: str) -> tuple[GameSummary, str]:
    """A game and its transcript's text, for the run's own process to write into its folder (a
    game played in another process, or on another machine, included)."""
    with tempfile.TemporaryDirectory(prefix="duel-game-") as tmp:
        result = play_match(p1, p2, seed=seed, transcript=Path(tmp) / "game.jsonl")
        assert result.transcript is not None
        return result.summary(), result.transcript.read_text()


def transcript_name(task: GameTask) -> str:
    """Where the transcript of the schedule's game goes under the tournament's folder: stable
    across resumes and longer runs, as the schedule is."""
    return f"{TRANSCRIPTS}/game{task.index + 1:05d}-deal{task.seed}.jsonl"


def schedule(a: str, b: str, games: int, seed: int) -> list[GameTask]:
    """`games` games on games/2 deals (seeds seed, seed+1, ...), each deal with both seatings."""
    return [GameTask(i, *game) for i, game in enumerate(seat_swapped(a, b, games, seed))]


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

    def accounts(self) -> tuple[SeatAccount | None, SeatAccount | None]:
        """A's and B's accounts over the games (None: a game recorded before accounts)."""
        pairs = list(zip(self.games, self.seats, strict=True))
        if any(g.accounts is None for g, _ in pairs):
            return None, None
        return (SeatAccount.combine(g.account(seat) for g, seat in pairs),
                SeatAccount.combine(g.account(seat.other) for g, seat in pairs))

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
        a_account, b_account = self.accounts()
        headline = "; ".join(f"{who}: {acc.brief()}" for who, acc in
                             (("itself", a_account), ("opponent", b_account))
                             if acc is not None and not acc.clean)
        lines = [
            f"{self.a} vs {self.b}: {n} games (seat-swapped pairs)",
            f"  {self.a}: {wins} wins, {draws} draws, {losses} losses"
            + (f" ({headline})" if headline else ""),
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
        for name, account in ((a_name, a_account), (b_name, b_account)):
            lines.append(f"  {name}'s moves: " + (account.line() if account is not None else
                                                   "not counted (games recorded before "
                                                   "accounts)"))
        for name, a_side in ((a_name, True), (b_name, False)):  # the searching sides' time
            searched = SearchTime.combine(g.search_time(seat if a_side else seat.other)
                                          for g, seat in pairs)
            if searched.moves:
                lines.append(f"  {name}'s searches: {searched.line()}")
        for name, a_side in ((a_name, True), (b_name, False)):  # LLM sides: cost, reasoning
            per_game = [g.totals.get(str((seat if a_side else seat.other).player))
                        for g, seat in pairs if g.totals]
            if any(per_game):
                lines.append(summary_line(name, combine(per_game)))
        rate = moves / seconds if seconds else 0.0
        lines.append(f"  {moves} moves, {rate:.1f} moves/s per game process"
                     + (f", wall {wall:.1f} s" if wall is not None else ""))
        return "\n".join([*lines, *self.notes])


def found_done(path: Path | None, tasks: list[GameTask]) -> dict[GameTask, GameSummary]:
    """The tasks of the schedule whose games `path` (a games.jsonl) records, in schedule
    order: what a resumed run does not play again."""
    done: dict[GameTask, GameSummary] = {}
    if path is None:
        return done
    found: dict[tuple[int, str, str], list[GameSummary]] = {}
    for g in read_games(path):
        if g.seed is not None:
            found.setdefault((g.seed, *g.specs), []).append(g)
    for t in tasks:
        # By count, not presence: with A == B both games of a deal have the same key.
        if found.get((t.seed, t.p1, t.p2)):
            done[t] = found[(t.seed, t.p1, t.p2)].pop(0)
    return done


def dry_run(a: str, b: str, games: int, seed: int = 0, jobs: int = 1,
            out: str | None = None, budget_usd: float | None = None, probe: int = 0) -> DryRun:
    """What `run` would play (the games recorded in `out` left out) and its projected cost,
    with nothing played (duel.runs.dryrun)."""
    agents = make_agent(a), make_agent(b)
    a, b = agents[0].spec, agents[1].spec
    tasks = schedule(a, b, games, seed)
    done = found_done(Path(out) / "games.jsonl" if out else None, tasks)
    todo = [t for t in tasks if t not in done]
    seats: dict[str, int] = {a: 0, b: 0}
    for t in todo:
        seats[t.p1] += 1
        seats[t.p2] += 1
    deals = sorted({t.seed for t in todo})
    where = f"deals {deals[0]} to {deals[-1]}" if deals else "no deal"
    schedule_text = (f"{len(todo)} games on {len(deals)} deals ({where}), each deal from both "
                     "seats" + (f"; {len(done)} found done in {out}, not counted" if done else ""))
    recorded = {spec: r for spec in seats
                if (r := recorded_spend(list(done.values()), spec)) is not None}
    found = project("duel tournament", len(todo), schedule_text, seats, seed, jobs,
                    probe=probe, recorded=recorded)
    found.budget_usd = budget_usd
    return found


def run(a: str, b: str, games: int, seed: int = 0, jobs: int = 1, out: str | None = None,
        progress: bool = True, budget_usd: float | None = None,
        ray: str | None = None, llm_limit: LimitSpec | None = None,
        transcripts: bool = True) -> Standings:
    """Play (or resume) a tournament; games already recorded in `out` are not replayed.
    `transcripts`: with `out`, each game's transcript goes to `out`/transcripts/ too, its line
    in games.jsonl naming it (what `duel leaderboard` links to the replay viewer).
    `budget_usd`: start no game that would take the LLM money spent past it (duel.runs.budget);
    the games recorded in `out` count. `ray`: play the games as tasks of that Ray cluster (see
    duel.runs.cluster), at most `jobs` at once (0: one per CPU of the cluster), the LLM seats'
    requests under `llm_limit` cluster-wide."""
    # Fail fast on a bad spec, before any process starts; and use the specs as the games record
    # them (stripped), so that seats are told apart and a resumed run finds its games.
    agents = make_agent(a), make_agent(b)
    a, b = agents[0].spec, agents[1].spec
    budget = Budget(budget_usd, out or "")
    budget.check_agents(agents)
    tasks = schedule(a, b, games, seed)
    standings = Standings(a, b)
    earlier: dict[GameTask, GameCost] = {}
    path = Path(out) / "games.jsonl" if out else None
    for t, g in found_done(path, tasks).items():
        standings.add(g, t.a_seat)
        earlier[t] = GameCost.of_game(g)

    recorded = transcripts and path is not None

    def done(task: GameTask, result: GameSummary | tuple[GameSummary, str]) -> GameCost:
        game, text = result if isinstance(result, tuple) else (result, None)
        standings.add(game, task.a_seat)
        if path is not None:
            line = game.to_json()
            if text is not None:
                atomic_write(path.parent / transcript_name(task), text)  # before its line
                line["transcript"] = transcript_name(task)
            append_jsonl(path, line)
        return GameCost.of_game(game)  # an unknown cost under a budget stops the run here

    campaign: Campaign[GameTask, GameSummary | tuple[GameSummary, str]] = Campaign(
        play_recorded if recorded else play_game, lambda t: (t.seed, t.p1, t.p2), done,
        processes=True, agents=agents)
    standings.notes = campaign_run(campaign, tasks, earlier, budget, jobs, progress, ray,
                                   llm_limit, show_money=budget_usd is not None or is_llm(a)
                                   or is_llm(b))
    return standings
