"""Benchmarks: figures for closing notes, not timed tests."""

from __future__ import annotations

import random
import time

from duel.engine import GameState, Seat, new_game
from duel.engine.pricing import PriceBook


def bench_engine(seconds: float = 5.0, seed: int = 0) -> dict[str, float]:
    """Random-vs-random full games on one core, two ways: in place with the unchecked `play`
    (how search and rollouts run) and through the checked, copying `apply` (the public path).
    The games share one price book, as a search's samples do."""
    out: dict[str, float] = {}
    prices = PriceBook()
    for mode in ("play", "apply"):
        rng = random.Random(seed)
        games = moves = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / 2:
            state = new_game(seed=games, rng=None, prices=prices)
            while not state.is_terminal():
                move = rng.choice(state.legal_moves())
                if mode == "play":
                    state.play(move)
                else:
                    state = state.apply(move)
                moves += 1
            games += 1
        elapsed = time.perf_counter() - start
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


def bench_mcts(seconds: float, spec: str = "mcts") -> list[tuple[str, float]]:
    """MCTS iterations per second, single process, from the start and from mid-Age II."""
    from duel.agents.mcts import MCTSAgent
    from duel.agents.spec import make_agent
    from duel.engine import InfoSet, seat_view

    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    agent.iterations = 0
    agent.time = seconds / 2
    out = []
    for label, state in (("from the start position", new_game(0)),
                         ("from a mid-Age-II position", mid_age_two(0))):
        info = InfoSet.from_view(seat_view(state))
        _, iterations, elapsed = agent.search(info, random.Random(0))
        out.append((label, iterations / elapsed))
    return out


def bench_strength(games: int, seconds: float, jobs: int, seed: int) -> None:
    """Seat-swapped pairings with win rates and 95% CIs (targets in issue 3)."""
    from duel.tournament import run

    mcts = f"mcts:time={seconds:g}"
    for a, b, target in ((mcts, "rule", 0.90), (mcts, "random", 0.99), ("rule", "random", 0.90)):
        start = time.perf_counter()
        standings = run(a, b, games, seed=seed, jobs=jobs, progress=False)
        print(standings.report(wall=time.perf_counter() - start))
        wins, _, _ = standings.counts()
        rate = wins / max(1, len(standings.games))
        print(f"  target: {a} wins at least {target:.0%}: {'met' if rate >= target else 'NOT met'}",
              flush=True)


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


def bench_server(clients: int, seconds: float) -> dict[str, float]:
    """Start `duel serve` on a free loopback port with a fresh database, then let `clients`
    bots each play a game (both seats, random legal moves) over HTTP for up to `seconds`."""
    import asyncio
    import os
    import shutil
    import socket
    import subprocess
    import sys
    import tempfile
    import urllib.request

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="duel-bench-")
    proc = subprocess.Popen([sys.executable, "-m", "duel.cli", "serve", "--port", str(port),
                             "--db", os.path.join(folder, "bench.db"), "--log-level", "warning",
                             "--rate", "100000", "--burst", "100000",
                             "--create-per-minute", "100000", "--create-burst", "100000"])
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
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

        async def bot(client: httpx.AsyncClient, i: int, stop: float) -> None:
            r = await client.post("/games", json={"player1": "external",
                                                  "player2": "external", "seed": i})
            game = r.json()
            code, tokens = game["code"], game["tokens"]
            rng = random.Random(i)
            seat = Seat.P1
            while time.monotonic() < stop:
                headers = {"authorization": f"Bearer {tokens[str(seat.player)]}"}
                t0 = time.perf_counter()
                r = await client.get(f"/games/{code}/moves", headers=headers)
                gets.append(time.perf_counter() - t0)
                data = r.json()
                if not data["yourTurn"]:
                    state = (await client.get(f"/games/{code}")).json()
                    if state["step"] == "GAME_END":
                        counts["finished"] += 1
                        return
                    seat = seat.other
                    continue
                move = rng.choice(data["moves"])
                t0 = time.perf_counter()
                r = await client.post(f"/games/{code}/moves", headers=headers, json={
                    "move": move["move"], "moveData": move["moveData"], "ply": data["ply"]})
                posts.append(time.perf_counter() - t0)
                if r.status_code == 200:
                    counts["moves"] += 1
                else:
                    counts["errors"] += 1

        async def one(i: int, stop: float) -> None:
            # A client (one keep-alive connection) per bot: one shared pool of 50 connections
            # costs httpcore a scan of every connection per request, and the figure measured
            # the benchmark's own pool instead of the server.
            async with httpx.AsyncClient(base_url=base, timeout=60) as client:
                await bot(client, i, stop)

        async def run() -> float:
            start = time.monotonic()
            await asyncio.gather(*(one(i, start + seconds) for i in range(clients)))
            return time.monotonic() - start

        elapsed = asyncio.run(run())
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
    return {"moves": counts["moves"], "seconds": elapsed, "moves_per_s": counts["moves"] / elapsed,
            "post_p50_ms": 1000 * _percentile(posts, 0.5),
            "post_p99_ms": 1000 * _percentile(posts, 0.99),
            "get_p50_ms": 1000 * _percentile(gets, 0.5),
            "get_p99_ms": 1000 * _percentile(gets, 0.99),
            "games_finished": counts["finished"], "errors": counts["errors"]}


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
