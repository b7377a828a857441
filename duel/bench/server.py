"""The game server under load: bots playing whole games over HTTP, moves per second and latency."""

from __future__ import annotations

import random
import sys
import time

from duel.engine import Seat
from duel.errors import BenchError
from duel.stats import percentile


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
    import subprocess
    import tempfile

    import aiohttp

    from duel.errors import DuelError
    from duel.util.net import free_port, wait_ready

    if servers > 1 and (db is None or not db.startswith(("postgresql://", "postgres://"))):
        from duel.errors import UsageError

        raise UsageError("--servers above 1 share a PostgreSQL database: give --db "
                         "postgresql://...")
    folder = tempfile.mkdtemp(prefix="duel-bench-")
    procs = []
    bases = []
    for _ in range(servers):
        port = free_port()
        procs.append(subprocess.Popen([
            sys.executable, "-m", "duel.cli", "serve", "--port", str(port),
            "--db", db or os.path.join(folder, "bench.db"), "--log-level", "warning",
            "--rate", "100000", "--burst", "100000",
            # Its bots all come from 127.0.0.1: the per-address shares are the global ones.
            "--connections-per-address", "999", "--streams-per-address", "999",
            "--create-per-minute", "100000", "--create-burst", "100000"]))
        bases.append(f"http://127.0.0.1:{port}")
    try:
        for base, proc in zip(bases, procs, strict=True):
            def alive(p: subprocess.Popen[bytes] = proc) -> bool:
                return p.poll() is None

            try:
                wait_ready(base + "/openapi.json", 30, alive=alive)
            except DuelError as exc:
                raise BenchError(str(exc)) from None
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
            "post_p50_ms": 1000 * percentile(posts, 0.5),
            "post_p99_ms": 1000 * percentile(posts, 0.99),
            "get_p50_ms": 1000 * percentile(gets, 0.5),
            "get_p99_ms": 1000 * percentile(gets, 0.99),
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
