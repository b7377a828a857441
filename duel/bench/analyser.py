"""The analyser's figures: speed, calibration, ordering of known players, stability and
efficiency."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from duel.bench.common import _load
from duel.engine import new_game
from duel.stats import percentile
from duel.util import tables

if TYPE_CHECKING:
    from duel.analysis.search import Settings


def _settings(iterations: int | None, seed: int = 0) -> Settings:
    from duel.analysis.search import DEFAULT_ITERATIONS, Settings

    return Settings(iterations=iterations or DEFAULT_ITERATIONS, seed=seed)


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
          f"not the best) {percentile(errors, 0.5):.3f}")


def _ci(ci: tuple[float, float], digits: int = 4) -> str:
    return f"{ci[0]:.{digits}f}-{ci[1]:.{digits}f}"


def bench_calibration(games: int, plies: int, iterations: int | None, jobs: int, seed: int,
                      out: str | None, plot: str | None) -> None:
    """The analyser's win chance against the results (issue 15, "It is calibrated"): the
    Brier score with a bootstrap CI over games, the trivial forecasters' scores and the
    reliability table (markdown rows), and the reliability plot with `plot`."""
    from duel.analysis import calibration
    from duel.bench.analyser_experiments import CALIBRATION_PAIRINGS, calibration_forecasts

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
    print(tables.markdown([{
        "win chance": f"{b.lo:.1f}-{b.hi:.1f}", "n": b.n, "mean forecast": f"{b.predicted:.3f}",
        "observed score rate (Wilson 95%)": f"{b.observed:.3f} ({_ci(b.ci, 3)})"
                                            + ("" if b.calibrated else " outside")}
        for b in cal.bins]))
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
    from duel.bench.analyser_experiments import ordering

    settings = _settings(iterations)
    start = time.perf_counter()
    result = ordering(players, deals, seed, settings, jobs, out, progress=sys.stderr.isatty())
    print(f"ordering: a round robin of {', '.join(players)} on {deals} deals (seeds {seed}-"
          f"{seed + deals - 1}, seats swapped every other deal), both seats analysed at "
          f"{settings.iterations} iterations, seed {settings.seed}; "
          f"{time.perf_counter() - start:.0f} s with {jobs} jobs, {_load()}")
    print(tables.markdown([{
        "player": f"`{p.spec}`", "games": p.games, "decisions": p.decisions,
        "mean loss per decision (95% CI over deals)": f"{p.mean_loss:.4f} ({_ci(p.ci)})",
        "blunders (loss >= 0.10)": f"{p.blunder_rate:.1%}"} for p in result.players]))
    for g in result.gaps:
        print(f"{g.worse} minus {g.better}: {g.diff:+.4f} (paired 95% CI over deals "
              f"{g.ci[0]:+.4f} to {g.ci[1]:+.4f})")
    print(f"the intervals are {'' if result.ordered else 'NOT '}ordered without overlap "
          f"(target: {' < '.join(players)})")


def bench_stability(players: list[str], deals: int, iterations: int | None, jobs: int,
                    seed: int, out: str | None) -> None:
    """Two analysis seeds on the same games, decision by decision (issue 15, "It is
    stable")."""
    from duel.bench.analyser_experiments import round_robin, stability

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
    from duel.bench.analyser_experiments import efficiency, games_text

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
    print(tables.markdown([{
        "metric (per seat-swapped pair)": label, "pairs": m.units,
        "mean (95% CI)": f"{m.mean:.4f} ({_ci(m.ci)})", "sd per pair": f"{m.sd:.4f}",
        "games needed (95% CI)": f"{games_text(m.needed)} ({games_text(m.needed_ci[0])}-"
                                 f"{games_text(m.needed_ci[1])})",
        "bootstrap power there": f"{m.power_at_needed:.0%}"}
        for label, m in ((f"{a}'s score rate, {2 * e.win.units} games", e.win),
                         (f"{a}'s score rate, the {2 * e.win_same.units} analysed games",
                          e.win_same),
                         (f"{b}'s mean loss minus {a}'s", e.loss))]))
