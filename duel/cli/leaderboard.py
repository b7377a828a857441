"""`duel leaderboard DIR... --out SITE`: the static site of the games under DIR..."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from duel.cli.options import integer, seed
from duel.errors import UsageError
from duel.util import tables


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from duel.leaderboard.figures import RESAMPLES

    p = sub.add_parser("leaderboard", help="a static site ranking the players of tournament, "
                       "ladder and grading folders (ratings with rank intervals, money, "
                       "legality, loss per decision, every game's replay)")
    p.add_argument("folders", nargs="+", metavar="DIR",
                   help="tournament, ladder or grading folders, or folders of transcripts")
    p.add_argument("--out", required=True, metavar="SITE",
                   help="the site's folder (index.html, players/, games/, plots/, "
                   "leaderboard.json); built again, it keeps the replays already made")
    p.add_argument("--resamples", type=integer, default=RESAMPLES,
                   help=f"bootstrap samples for the CIs and rank intervals (default {RESAMPLES})")
    p.add_argument("--seed", type=seed, default=0, help="the bootstrap's seed")
    p.add_argument("--jobs", type=integer, default=None,
                   help="processes making the replay pages (default: the CPUs, at most 4)")
    p.add_argument("--no-replays", action="store_true",
                   help="leave the games' replay pages out (a smaller site; games unlinked)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from duel.leaderboard import build
    from duel.leaderboard.site import write

    if args.resamples < 100:
        raise UsageError(f"--resamples {args.resamples}: give at least 100 for 95% intervals")
    start = time.perf_counter()
    board = build(args.folders, resamples=args.resamples, seed=args.seed)
    jobs = args.jobs if args.jobs is not None else min(4, os.cpu_count() or 1)
    out = Path(args.out)
    write(board, out, jobs=max(1, jobs), games=not args.no_replays)
    print(text(board))
    for note in board.notes[:10]:
        print(f"note: {note}")
    if len(board.notes) > 10:
        print(f"note: ... and {len(board.notes) - 10} more in {out / 'leaderboard.json'}")
    print(f"Written: {out / 'index.html'} ({len(board.players)} players, {len(board.games)} "
          f"games, {time.perf_counter() - start:.1f} s)")
    return 0


def text(board: Any) -> str:
    """The ranking as a terminal table."""
    rows = []
    for i, p in enumerate(board.players, 1):
        best, worst = p["rank_interval"]
        lo, hi = p["score_rate_ci"]
        rating, (low, high) = p["rating"], p["rating_ci"]
        rows.append({
            "#": i, "player": p["player"] + (" (provisional)" if p["provisional"] else ""),
            "rating (95% CI)": f"{rating:+.0f} ({low:+.0f} to {high:+.0f})",
            "rank (95%)": str(best) if best == worst else f"{best}-{worst}",
            "games": p["games"],
            "score rate (95% CI)": f"{p['score_rate']:.1%} ({lo:.1%}-{hi:.1%})"})
    return tables.markdown(rows)
