"""Benchmarks: figures for closing notes, not timed tests."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from duel.engine import GameState, Seat, new_game
from duel.engine.pricing import PriceBook

if TYPE_CHECKING:
    from duel.analysis.search import Settings


def bench_engine(seconds: float = 5.0, seed: int = 0) -> dict[str, float]:
    """Random-vs-random full games per second of CPU time on one core, two ways: in place
    (`duel.engine.playout`, how search and rollouts run) and through the checked, copying
    `apply` (the public path).
    The games share one price book, as a search's samples do."""
    from duel.engine.playout import random_game

    out: dict[str, float] = {}
    prices = PriceBook()
    for mode in ("play", "apply"):
        rng = random.Random(seed)
        games = moves = 0
        start = time.perf_counter()
        cpu = time.process_time()
        while time.perf_counter() - start < seconds / 2:
            state = new_game(seed=games, rng=None, prices=prices)
            if mode == "play":
                moves += random_game(state, rng)
            else:
                while not state.is_terminal():
                    state = state.apply(rng.choice(state.legal_moves()))
                    moves += 1
            games += 1
        # Per second of this process's CPU time: what one core does, even while other jobs
        # share the machine's cores (its wall-clock rate would measure their load).
        elapsed = time.process_time() - cpu
        out[f"{mode}_games_per_s"] = games / elapsed
        out[f"{mode}_moves_per_s"] = moves / elapsed
    return out


def mid_age_two(seed: int = 0) -> GameState:
    """A mid-Age-II position: a rule-vs-rule game stopped after 6 Age II cards."""
    from duel.agents.rule_based import RuleAgent
    from duel.match import agent_rng, decide

    state = new_game(seed)
    agent = RuleAgent()
    rngs = [agent_rng(seed, Seat.P1), agent_rng(seed, Seat.P2)]
    while not (state.age == 2 and state.remaining <= 14 and state.step_name == "PLAY_CARD"):
        move, _, _ = decide(agent, state, rngs[state.current])
        state = state.apply(move)
    return state


MCTS_POSITIONS = (("start", "from the start position"),
                  ("mid_age_two", "from a mid-Age-II position"))


def bench_mcts(seconds: float, spec: str = "mcts") -> dict[str, float]:
    """MCTS iterations per second of CPU time, single process, from the start and from mid-Age
    II (keys as in MCTS_POSITIONS)."""
    from duel.agents.mcts import MCTSAgent
    from duel.agents.spec import make_agent
    from duel.engine import InfoSet, seat_view

    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    agent.iterations = 0
    agent.time = seconds / 2
    out = {}
    for key, state in (("start", new_game(0)), ("mid_age_two", mid_age_two(0))):
        info = InfoSet.from_view(seat_view(state))
        cpu = time.process_time()
        _, iterations, _ = agent.search(info, random.Random(0))
        out[key] = iterations / (time.process_time() - cpu)  # per CPU second, as above
    return out


def pure_figures(call: str) -> dict[str, float]:
    """`call` (an expression in duel.bench returning a dict of figures) evaluated by a
    subprocess that runs the pure Python source (DUEL_PURE=1), one after the running build's
    own figures so that the two never share the core."""
    import json
    import os
    import subprocess

    code = f"import json, duel.bench as b; print(json.dumps(b.{call}))"
    env = {**os.environ, "DUEL_PURE": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the pure build's benchmark failed: {done.stderr.strip()[-500:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def compare_engine(seconds: float) -> dict[str, Any]:
    """`duel bench engine`: the running build's figures and the pure build's, in one run."""
    from duel.build import build

    mine = bench_engine(seconds)
    pure = mine if build() == "pure" else pure_figures(f"bench_engine({seconds!r})")
    return {"build": build(), "games_per_s": mine["play_games_per_s"],
            "pure_games_per_s": pure["play_games_per_s"],
            "moves_per_s": mine["play_moves_per_s"], "pure_moves_per_s": pure["play_moves_per_s"],
            "apply_games_per_s": mine["apply_games_per_s"],
            "pure_apply_games_per_s": pure["apply_games_per_s"],
            "speedup": mine["play_games_per_s"] / pure["play_games_per_s"],
            "seconds": seconds, "clock": "process CPU time", **_load_fields()}


def compare_mcts(seconds: float, spec: str) -> dict[str, Any]:
    """`duel bench mcts`: iterations/s of the running build and the pure one, in one run."""
    from duel.build import build

    mine = bench_mcts(seconds, spec)
    pure = mine if build() == "pure" else pure_figures(f"bench_mcts({seconds!r}, {spec!r})")
    return {"build": build(), "spec": spec,
            "iterations_per_s": mine["start"], "pure_iterations_per_s": pure["start"],
            "mid_age_two_iterations_per_s": mine["mid_age_two"],
            "pure_mid_age_two_iterations_per_s": pure["mid_age_two"],
            "speedup": mine["start"] / pure["start"], "seconds": seconds,
            "clock": "process CPU time", **_load_fields()}


def _load_fields() -> dict[str, Any]:
    import os

    return {"load_average": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}


def bench_strength(games: int, seconds: float, jobs: int, seed: int,
                   baseline: str | None = None, out: str | None = None) -> list[float]:
    """Seat-swapped pairings with win rates and 95% CIs. With `baseline` (the URL of a server
    that speaks POST /agents/move, e.g. `duel serve` from a checkout of an older commit), the
    MCTS plays that server's MCTS at the same time per move (target 65%, issue 16), then
    `rule` (97%); without, `rule`, `random`, and rule against random (issue 3's targets).
    `out`: keep each pairing's transcripts in a folder of its own there (a run again resumes).
    Returns the win rates in order."""
    import os

    from duel.tournament import run

    mcts = f"mcts:time={seconds:g}"
    if baseline:
        # The baseline server's search gets a few seconds' grace over its own time per move.
        remote = f"http:{baseline},agent={mcts},timeout={seconds + 30:g},fallback=forfeit"
        pairings = [(mcts, remote, 0.65, "baseline"), (mcts, "rule", 0.97, "rule")]
    else:
        pairings = [(mcts, "rule", 0.97, "rule"), (mcts, "random", 0.99, "random"),
                    ("rule", "random", 0.90, "rule-random")]
    rates = []
    for a, b, target, name in pairings:
        start = time.perf_counter()
        standings = run(a, b, games, seed=seed, jobs=jobs, progress=False,
                        out=os.path.join(out, name) if out else None)
        print(standings.report(wall=time.perf_counter() - start))
        wins, _, _ = standings.counts()
        rate = wins / max(1, len(standings.games))
        rates.append(rate)
        print(f"  target: {a} wins at least {target:.0%}: {'met' if rate >= target else 'NOT met'}",
              flush=True)
    return rates


def reuse_figures(games: list[list[tuple[int, int]]]) -> dict[str, Any]:
    """Tree reuse from each game's searched decisions (visits kept, new iterations): the share
    of a decision's root visits that were kept, averaged per decision, with a bootstrap CI
    over games (a game's decisions are not independent); and the share of decisions that kept
    a subtree at all."""
    from duel.stats import bootstrap_stat_ci

    def share(sample: Sequence[list[tuple[int, int]]]) -> float:
        pairs = [p for g in sample for p in g]
        return sum(k / (k + n) for k, n in pairs) / len(pairs) if pairs else 0.0

    decisions = [p for g in games for p in g]
    lo, hi = bootstrap_stat_ci(games, share)
    return {"games": len(games), "decisions": len(decisions), "kept_share": share(games),
            "kept_share_ci": (lo, hi),
            "decisions_kept": sum(1 for k, _ in decisions if k) / max(1, len(decisions))}


def bench_reuse(games: int, seconds: float, seed: int) -> dict[str, Any]:
    """`duel bench reuse`: `mcts:time=SECONDS` against rule (seats alternating); how much of each
    search's tree was kept from the seat's previous one."""
    from duel.match import play_match

    spec = f"mcts:time={seconds:g}"
    per_game = []
    for i in range(games):
        mine = i % 2
        players = (spec, "rule") if mine == 0 else ("rule", spec)
        result = play_match(*players, seed=seed + i)
        per_game.append([(int(r.details.get("reused", 0)), int(r.details["iterations"]))
                         for r in result.records
                         if r.seat.index == mine and r.details.get("top")])
    figures = reuse_figures(per_game)
    lo, hi = figures["kept_share_ci"]
    print(f"{spec} against rule, {figures['games']} games, {figures['decisions']} searched "
          f"decisions: a subtree kept in {figures['decisions_kept']:.0%} of them; visits kept "
          f"per decision {figures['kept_share']:.1%} of the root's (95% CI {lo:.1%}-{hi:.1%}, "
          "bootstrap over games)")
    return figures


def bench_dqn(games: int, jobs: int, seed: int, spec: str = "dqn") -> None:
    """The learned agent against random and rule-based (targets in issue 7)."""
    from duel.tournament import run

    for opponent, target in (("random", 0.95), ("rule", 0.50)):
        start = time.perf_counter()
        standings = run(spec, opponent, games, seed=seed, jobs=jobs, progress=False)
        print(standings.report(wall=time.perf_counter() - start))
        wins, _, _ = standings.counts()
        rate = wins / max(1, len(standings.games))
        print(f"  target: {spec} wins at least {target:.0%}: "
              f"{'met' if rate >= target else 'NOT met'}", flush=True)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_server(clients: int, seconds: float, db: str | None = None,
                 servers: int = 1) -> dict[str, float]:
    """Start `duel serve` on a free loopback port with a fresh database (or on `db`, e.g. a
    PostgreSQL URL; `servers` processes share it, the bots spread over them), then let
    `clients` bots each play games (both seats, random legal moves) over HTTP, one after
    another, for `seconds`."""
    import asyncio
    import itertools
    import os
    import shutil
    import socket
    import subprocess
    import sys
    import tempfile
    import urllib.request

    import aiohttp

    if servers > 1 and (db is None or not db.startswith(("postgresql://", "postgres://"))):
        from duel.errors import UsageError

        raise UsageError("--servers above 1 share a PostgreSQL database: give --db "
                         "postgresql://...")
    folder = tempfile.mkdtemp(prefix="duel-bench-")
    procs = []
    bases = []
    for _ in range(servers):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        procs.append(subprocess.Popen([
            sys.executable, "-m", "duel.cli", "serve", "--port", str(port),
            "--db", db or os.path.join(folder, "bench.db"), "--log-level", "warning",
            "--rate", "100000", "--burst", "100000",
            # Its bots all come from 127.0.0.1: the per-address shares are the global ones.
            "--connections-per-address", "999", "--streams-per-address", "999",
            "--create-per-minute", "100000", "--create-burst", "100000"]))
        bases.append(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 30
        for base, proc in zip(bases, procs, strict=True):
            while True:
                try:
                    urllib.request.urlopen(base + "/openapi.json", timeout=1)
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.2)
        posts: list[float] = []
        gets: list[float] = []
        counts = {"moves": 0, "errors": 0, "finished": 0}

        async def bot(client: aiohttp.ClientSession, i: int, stop: float) -> None:
            # Game after game until the time is up: the load stays the same throughout.
            for seed in itertools.count(i, clients):
                if time.monotonic() >= stop:
                    return
                await game(client, seed, stop)

        async def game(client: aiohttp.ClientSession, seed: int, stop: float) -> None:
            async with client.post("/games", json={"player1": "external",
                                                   "player2": "external", "seed": seed}) as r:
                created = await r.json()
            code, tokens = created["code"], created["tokens"]
            rng = random.Random(seed)
            seat = Seat.P1
            while time.monotonic() < stop:
                headers = {"authorization": f"Bearer {tokens[str(seat.player)]}"}
                t0 = time.perf_counter()
                async with client.get(f"/games/{code}/moves", headers=headers) as r:
                    data = await r.json()
                gets.append(time.perf_counter() - t0)
                if not data["yourTurn"]:
                    async with client.get(f"/games/{code}") as r:
                        state = await r.json()
                    if state["step"] == "GAME_END":
                        counts["finished"] += 1
                        return
                    seat = seat.other
                    continue
                move = rng.choice(data["moves"])
                t0 = time.perf_counter()
                async with client.post(f"/games/{code}/moves", headers=headers, json={
                        "move": move["move"], "moveData": move["moveData"],
                        "ply": data["ply"]}) as r:
                    await r.read()
                posts.append(time.perf_counter() - t0)
                if r.status == 200:
                    counts["moves"] += 1
                else:
                    counts["errors"] += 1

        async def one(i: int, stop: float) -> None:
            # The load generator is aiohttp, a session (one keep-alive connection) per bot:
            # httpx's client costs about 3 ms of CPU per GET and POST pair on this host, so on
            # two cores it topped out near 300 pairs/s against even a trivial FastAPI app, and
            # the figure measured the bots instead of the server (README, Performance).
            connector = aiohttp.TCPConnector(limit=1)
            async with aiohttp.ClientSession(bases[i % len(bases)], connector=connector,
                                             timeout=aiohttp.ClientTimeout(total=60)) as client:
                await bot(client, i, stop)

        async def run() -> float:
            start = time.monotonic()
            await asyncio.gather(*(one(i, start + seconds) for i in range(clients)))
            return time.monotonic() - start

        cpu_before = _cpu_seconds(proc.pid)
        elapsed = asyncio.run(run())
        cpu_used = _cpu_seconds(proc.pid) - cpu_before
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
    return {"moves": counts["moves"], "seconds": elapsed, "moves_per_s": counts["moves"] / elapsed,
            "post_p50_ms": 1000 * _percentile(posts, 0.5),
            "post_p99_ms": 1000 * _percentile(posts, 0.99),
            "get_p50_ms": 1000 * _percentile(gets, 0.5),
            "get_p99_ms": 1000 * _percentile(gets, 0.99),
            "games_finished": counts["finished"], "errors": counts["errors"],
            # The server's own CPU time per move: its cost, whatever else loads the machine
            # (the clients share its two cores). NaN where /proc is missing.
            "server_cpu_ms_per_move": 1000 * cpu_used / max(1, counts["moves"])}


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process `pid` so far (Linux /proc; NaN elsewhere)."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_tournament(p1: str, p2: str, games: int, jobs: int, ray: str | None,
                     seed: int = 0) -> dict[str, float]:
    """A tournament's throughput: `games` games of p1 against p2 with `jobs` at once, here or
    on the Ray cluster at `ray` (Ray's start not counted: it is paid once per run). Games per
    second of wall time, and the mean seconds of one game with its 95% CI."""
    from duel import tournament
    from duel.stats import bootstrap_ci

    if ray is not None:
        from duel.cluster import connect

        connect(ray, jobs)
    start = time.perf_counter()
    standings = tournament.run(p1, p2, games, seed=seed, jobs=jobs, progress=False, ray=ray)
    wall = time.perf_counter() - start
    per_game = [g.seconds for g in standings.games]
    lo, hi = bootstrap_ci(per_game)
    return {"games": len(per_game), "wall": wall, "games_per_s": len(per_game) / wall,
            "game_s": sum(per_game) / len(per_game), "game_s_lo": lo, "game_s_hi": hi}


def bench_analyse(iterations: int | None, jobs: int, seed: int) -> None:
    """The analyser's speed and stability (targets in issue 15): one game of mcts against rule
    (seed `seed`); the time of the default analysis of player 1's decisions with `jobs`
    processes, then the same with another analysis seed, and the fraction of decisions whose
    losses agree within the stated tolerance."""
    import os
    import tempfile
    from pathlib import Path

    from duel.agents.spec import make_agent
    from duel.analysis.game import analyse_transcript
    from duel.analysis.search import DEFAULT_ITERATIONS, STABILITY_TOLERANCE, Settings
    from duel.match import play_match
    from duel.transcripts import TranscriptWriter

    iterations = iterations or DEFAULT_ITERATIONS
    with tempfile.TemporaryDirectory(prefix="duel-bench-") as folder:
        path = Path(folder) / "game.jsonl"
        agents = (make_agent("mcts:iterations=300"), make_agent("rule"))
        writer = TranscriptWriter.for_match(path, seed, new_game(seed).deal, agents)
        writer.finish(play_match(agents[0], agents[1], seed=seed, on_move=writer.record).result)
        print(f"game: {agents[0].spec} (player 1) against {agents[1].spec}, seed {seed}; load "
              f"average "
              f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)
        runs = []
        for analysis_seed in (0, 1):
            settings = Settings(iterations=iterations, seed=analysis_seed)
            start = time.perf_counter()
            runs.append(analyse_transcript(path, (1,), settings, jobs))
            elapsed = time.perf_counter() - start
            print(f"analysis seed {analysis_seed}: {len(runs[-1].decisions)} decisions of player "
                  f"1 at {iterations} iterations in {elapsed:.1f} s with {jobs} jobs "
                  f"(target: under 30 s with 2 jobs); load average {os.getloadavg()[0]:.2f}",
                  flush=True)
    diffs = [abs(a.loss - b.loss) for a, b in zip(runs[0].decisions, runs[1].decisions,
                                                   strict=True)]
    agree = sum(1 for d in diffs if d <= STABILITY_TOLERANCE) / max(1, len(diffs))
    errors = sorted(d.loss_se for d in runs[0].decisions if d.loss_se > 0)
    print(f"stability: the two seeds' losses agree within {STABILITY_TOLERANCE} on "
          f"{agree:.0%} of {len(diffs)} decisions (target: at least 90%); largest difference "
          f"{max(diffs, default=0.0):.3f}; median standard error of a loss (the played move "
          f"not the best) {_percentile(errors, 0.5):.3f}")


def _settings(iterations: int | None, seed: int = 0) -> Settings:
    from duel.analysis.search import DEFAULT_ITERATIONS, Settings

    return Settings(iterations=iterations or DEFAULT_ITERATIONS, seed=seed)


def _load() -> str:
    import os

    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"


def _ci(ci: tuple[float, float], digits: int = 4) -> str:
    return f"{ci[0]:.{digits}f}-{ci[1]:.{digits}f}"


def bench_calibration(games: int, plies: int, iterations: int | None, jobs: int, seed: int,
                      out: str | None, plot: str | None) -> None:
    """The analyser's win chance against the results (issue 15, "It is calibrated"): the
    Brier score with a bootstrap CI over games, the trivial forecasters' scores and the
    reliability table (markdown rows), and the reliability plot with `plot`."""
    from duel.analysis import calibration
    from duel.analysis.figures import CALIBRATION_PAIRINGS, calibration_forecasts

    settings = _settings(iterations)
    start = time.perf_counter()
    forecasts = calibration_forecasts(games, plies, settings, jobs, seed, out,
                                      progress=sys.stderr.isatty())
    cal = calibration.calibrate(forecasts, seed=seed)
    pairings = ", ".join(f"{a} v {b}" for a, b in CALIBRATION_PAIRINGS)
    print(f"calibration: {cal.forecasts} forecasts from {cal.games} games (up to {plies} "
          f"decisions per game, evenly spread with a random offset; the analyser at "
          f"{settings.iterations} iterations per decision, seed {settings.seed}); games seeded "
          f"from {seed}, seat-swapped, cycling through {pairings}; "
          f"{time.perf_counter() - start:.0f} s with {jobs} jobs, {_load()}")
    print(f"Brier score {cal.brier:.4f} (95% CI over games {_ci(cal.brier_ci)}); trivial "
          f"forecasters: the base rate {cal.base_rate:.3f} scores {cal.base_rate_brier:.4f}, "
          f"the constant 1/2 {cal.half_brier:.4f}; skill score against the base rate "
          f"{cal.skill:.3f} (95% CI {_ci(cal.skill_ci, 3)})")
    for age, (n, score, ci) in cal.by_age.items():
        print(f"  Age {age}: n={n} Brier {score:.4f} (95% CI {_ci(ci)})")
    print("| win chance | n | mean forecast | observed score rate (Wilson 95%) |")
    print("|---|---|---|---|")
    for b in cal.bins:
        print(f"| {b.lo:.1f}-{b.hi:.1f} | {b.n} | {b.predicted:.3f} | {b.observed:.3f} "
              f"({_ci(b.ci, 3)}){'' if b.calibrated else ' outside'} |")
    print(f"{len(cal.bins) - len(cal.misses)} of {len(cal.bins)} bins hold their mean forecast "
          f"inside the observed rate's 95% interval")
    if plot:
        title = (f"duel analyse: win chance vs result\n{cal.forecasts} forecasts from "
                 f"{cal.games} games, {settings.iterations} iterations")  # fits the width
        print(f"reliability plot written to {calibration.plot(cal, plot, title)}")


def bench_ordering(players: list[str], deals: int, iterations: int | None, jobs: int,
                   seed: int, out: str | None) -> None:
    """Mean loss per decision of known players on the same deals (issue 15, "It orders known
    players"): a round robin, both seats analysed, CIs by bootstrap over deals."""
    from duel.analysis.figures import ordering

    settings = _settings(iterations)
    start = time.perf_counter()
    result = ordering(players, deals, seed, settings, jobs, out, progress=sys.stderr.isatty())
    print(f"ordering: a round robin of {', '.join(players)} on {deals} deals (seeds {seed}-"
          f"{seed + deals - 1}, seats swapped every other deal), both seats analysed at "
          f"{settings.iterations} iterations, seed {settings.seed}; "
          f"{time.perf_counter() - start:.0f} s with {jobs} jobs, {_load()}")
    print("| player | games | decisions | mean loss per decision (95% CI over deals) | "
          "blunders (loss >= 0.10) |")
    print("|---|---|---|---|---|")
    for p in result.players:
        print(f"| `{p.spec}` | {p.games} | {p.decisions} | {p.mean_loss:.4f} ({_ci(p.ci)}) | "
              f"{p.blunder_rate:.1%} |")
    for g in result.gaps:
        print(f"{g.worse} minus {g.better}: {g.diff:+.4f} (paired 95% CI over deals "
              f"{g.ci[0]:+.4f} to {g.ci[1]:+.4f})")
    print(f"the intervals are {'' if result.ordered else 'NOT '}ordered without overlap "
          f"(target: {' < '.join(players)})")


def bench_stability(players: list[str], deals: int, iterations: int | None, jobs: int,
                    seed: int, out: str | None) -> None:
    """Two analysis seeds on the same games, decision by decision (issue 15, "It is
    stable")."""
    from duel.analysis.figures import round_robin, stability

    settings = _settings(iterations)
    games = round_robin(players, deals, seed)
    start = time.perf_counter()
    s = stability(games, settings, jobs=jobs, folder=out, progress=sys.stderr.isatty())
    print(f"stability: {s.games} games (a round robin of {', '.join(players)} on {deals} deals "
          f"from seed {seed}), both seats analysed at {s.iterations} iterations with analysis "
          f"seeds 0 and 1; {time.perf_counter() - start:.0f} s with {jobs} jobs, {_load()}")
    print(f"the two seeds' losses agree within {s.tolerance} on {s.rate:.1%} of {s.decisions} "
          f"decisions (Wilson 95% CI {_ci(s.ci, 3)}; target: at least 90%); the same best move "
          f"in {s.same_best / max(1, s.decisions):.0%}; difference of a loss: 95th percentile "
          f"{s.p95:.3f}, largest {s.largest:.3f}; of a seat's mean loss in a game: largest "
          f"{s.seat_largest:.4f}")


def bench_efficiency(a: str, b: str, games: int, win_games: int, iterations: int | None,
                     jobs: int, seed: int, out: str | None) -> None:
    """How many games separate two agents by win rate and by mean loss per decision (issue 15,
    "It is more efficient than win rate")."""
    from duel.analysis.efficiency import POWER
    from duel.analysis.figures import efficiency, games_text

    settings = _settings(iterations)
    start = time.perf_counter()
    e = efficiency(a, b, max(2, games // 2), max(2, win_games // 2), seed, settings, jobs, out,
                   progress=sys.stderr.isatty())
    print(f"efficiency: {a} against {b}, seat-swapped pairs of games from seed {seed}; "
          f"{2 * e.loss.units} games analysed (both seats, {settings.iterations} iterations), "
          f"{2 * e.win.units} games for the win rate; {time.perf_counter() - start:.0f} s with "
          f"{jobs} jobs, {_load()}")
    print(f"mean loss per decision: {a} {e.a_loss:.4f}, {b} {e.b_loss:.4f}")
    print(f"games for a 95% CI to exclude no difference with probability {POWER:.0%} (normal "
          f"approximation from the spread per pair; bootstrap CI of that number; the bootstrap's "
          f"power at it):")
    print("| metric (per seat-swapped pair) | pairs | mean (95% CI) | sd per pair | games needed "
          "(95% CI) | bootstrap power there |")
    print("|---|---|---|---|---|---|")
    for label, s in ((f"{a}'s score rate, {2 * e.win.units} games", e.win),
                     (f"{a}'s score rate, the {2 * e.win_same.units} analysed games", e.win_same),
                     (f"{b}'s mean loss minus {a}'s", e.loss)):
        print(f"| {label} | {s.units} | {s.mean:.4f} ({_ci(s.ci)}) | {s.sd:.4f} | "
              f"{games_text(s.needed)} ({games_text(s.needed_ci[0])}-"
              f"{games_text(s.needed_ci[1])}) | {s.power_at_needed:.0%} |")
