"""Playing strength: seat-swapped tournaments against the targets of earlier issues, and how fast
tournaments run here or on Ray."""

from __future__ import annotations

import time

from duel.errors import BenchError


def bench_strength(games: int, seconds: float, jobs: int, seed: int,
                   baseline: str | None = None, out: str | None = None) -> list[float]:
    """Seat-swapped pairings with win rates and 95% CIs. With `baseline` (the URL of a server
    that speaks POST /agents/move, e.g. `duel serve` from a checkout of an older commit), the
    MCTS plays that server's MCTS at the same time per move (target 65%, issue 16), then
    `rule` (97%); without, `rule`, `random`, and rule against random (issue 3's targets).
    `out`: keep each pairing's transcripts in a folder of its own there (a run again resumes).
    Returns the win rates in order."""
    import os

    from duel.runs.tournament import run

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
        pairing_jobs = jobs
        if name == "baseline" and baseline and jobs > 1 and not takes_at_once(baseline, mcts,
                                                                              jobs):
            pairing_jobs = 1
            print(f"  {baseline} refused {jobs} searches at once (429/503): its pairing is "
                  "played one game at a time", flush=True)
        standings = run(a, b, games, seed=seed, jobs=pairing_jobs, progress=False,
                        out=os.path.join(out, name) if out else None)
        print(standings.report(wall=time.perf_counter() - start))
        if name == "baseline":
            _, theirs = standings.accounts()
            if theirs is None or not theirs.clean:
                print(f"  VOID: not every baseline move was its server's search "
                      f"({theirs.brief() if theirs is not None else 'not counted'})",
                      flush=True)
                raise BenchError("the baseline comparison is void: the baseline seat fell "
                                 "back or forfeited (see its account above)")
        wins, _, _ = standings.counts()
        rate = wins / max(1, len(standings.games))
        rates.append(rate)
        print(f"  target: {a} wins at least {target:.0%}: {'met' if rate >= target else 'NOT met'}",
              flush=True)
    return rates


def takes_at_once(url: str, agent: str, jobs: int) -> bool:
    """Whether the server at `url` answers `jobs` move requests at once without a 429 or 503
    (one request each, of the agent the pairing asks for, on the opening position)."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from duel.engine import new_game, seat_view

    body = {"agent": agent, "state": seat_view(new_game(0))}
    target = url.rstrip("/") + "/agents/move"

    def ask(_: int) -> int:
        try:
            return httpx.post(target, json=body, timeout=120).status_code
        except httpx.HTTPError:
            return 0
    with ThreadPoolExecutor(jobs) as pool:
        statuses = list(pool.map(ask, range(jobs)))
    if 0 in statuses:
        raise BenchError(f"the baseline server {url} did not answer (is it running?)")
    return not any(code in (429, 503) for code in statuses)


def bench_dqn(games: int, jobs: int, seed: int, spec: str = "dqn") -> None:
    """The learned agent against random and rule-based (targets in issue 7)."""
    from duel.runs.tournament import run

    for opponent, target in (("random", 0.95), ("rule", 0.50)):
        start = time.perf_counter()
        standings = run(spec, opponent, games, seed=seed, jobs=jobs, progress=False)
        print(standings.report(wall=time.perf_counter() - start))
        wins, _, _ = standings.counts()
        rate = wins / max(1, len(standings.games))
        print(f"  target: {spec} wins at least {target:.0%}: "
              f"{'met' if rate >= target else 'NOT met'}", flush=True)


def bench_tournament(p1: str, p2: str, games: int, jobs: int, ray: str | None,
                     seed: int = 0) -> dict[str, float]:
    """A tournament's throughput: `games` games of p1 against p2 with `jobs` at once, here or
    on the Ray cluster at `ray` (Ray's start not counted: it is paid once per run). Games per
    second of wall time, and the mean seconds of one game with its 95% CI."""
    from duel.runs import tournament
    from duel.stats import bootstrap_ci

    if ray is not None:
        from duel.runs.cluster import connect

        connect(ray, jobs)
    start = time.perf_counter()
    standings = tournament.run(p1, p2, games, seed=seed, jobs=jobs, progress=False, ray=ray)
    wall = time.perf_counter() - start
    per_game = [g.seconds for g in standings.games]
    lo, hi = bootstrap_ci(per_game)
    return {"games": len(per_game), "wall": wall, "games_per_s": len(per_game) / wall,
            "game_s": sum(per_game) / len(per_game), "game_s_lo": lo, "game_s_hi": hi}
