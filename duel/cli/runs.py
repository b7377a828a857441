"""`duel tournament`, `duel ladder` and `duel ratings`: many games between agents, and the
ratings over them."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from duel.cli.options import (
    add_budget,
    add_dry_run,
    add_run_options,
    add_seed,
    integer,
    run_options,
    show_dry_run,
)
from duel.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tournament", help="seat-swapped pairs on the same deals, in parallel")
    p.add_argument("--p1", required=True, help="agent spec A")
    p.add_argument("--p2", required=True, help="agent spec B")
    p.add_argument("--games", type=integer, default=20)
    add_seed(p)
    p.add_argument("--out", default=None, help="folder for games.jsonl and the games' "
                   "transcripts (resumable; without it the games are not kept)")
    p.add_argument("--no-transcripts", action="store_true",
                   help="with --out, keep games.jsonl only (no transcript per game)")
    add_run_options(p, jobs_default=1)
    add_budget(p)
    add_dry_run(p)
    p.set_defaults(func=tournament)

    p = sub.add_parser("ladder", help="place a player on the MCTS ladder: it plays every "
                       "rung, each rung the next, then the ratings (resumable)")
    p.add_argument("--player", required=True, help="agent spec to place")
    p.add_argument("--rungs", default="50,200,1000",
                   help="MCTS iteration budgets, increasing (default 50,200,1000)")
    p.add_argument("--games", type=integer, default=20, help="games per pairing (default 20)")
    p.add_argument("--out", required=True,
                   help="folder of the ladder: one games.jsonl per pairing (resumable)")
    add_seed(p, 0, "first deal's seed, in every pairing")
    p.add_argument("--no-transcripts", action="store_true",
                   help="keep each pairing's games.jsonl only (no transcript per game)")
    add_run_options(p, jobs_default=1)
    p.add_argument("--resamples", type=integer, default=200, help="bootstrap resamples")
    add_budget(p, "of each pairing (earlier runs included)")
    p.set_defaults(func=ladder)

    p = sub.add_parser("ratings", help="Bradley-Terry ratings over transcript folders")
    p.add_argument("folders", nargs="+")
    p.add_argument("--resamples", type=integer, default=200)
    add_seed(p)
    p.set_defaults(func=ratings)


def tournament(args: argparse.Namespace) -> int:
    from duel.runs.tournament import run

    start = time.perf_counter()
    opts = run_options(args)
    if args.json and not args.dry_run:
        raise UsageError("--json applies only with --dry-run")
    if args.probe and not args.dry_run:
        raise UsageError("--probe applies only with --dry-run")
    if args.probe < 0:
        raise UsageError(f"--probe must be 0 or more decisions, got {args.probe}")
    if args.dry_run:
        from duel.runs.tournament import dry_run

        return show_dry_run(dry_run(args.p1, args.p2, args.games, seed=args.seed,
                                    jobs=opts.jobs, out=args.out,
                                    budget_usd=args.budget_usd, probe=args.probe), args)
    standings = run(args.p1, args.p2, args.games, seed=args.seed, jobs=opts.jobs,
                    out=args.out, progress=opts.progress, budget_usd=args.budget_usd,
                    ray=opts.ray, llm_limit=opts.llm_limit,
                    transcripts=not args.no_transcripts)
    print(standings.report(wall=time.perf_counter() - start))
    print(f"Games kept in {Path(args.out) / 'games.jsonl'} (run again to resume)" if args.out
          else "Games not kept: --out DIR keeps them (games.jsonl, resumable)")
    return 0


def ladder(args: argparse.Namespace) -> int:
    from duel.runs import ladder as runs
    from duel.runs.ratings import table

    opts = run_options(args)
    result = runs.run(args.player, runs.parse_rungs(args.rungs), args.games, args.out,
                      seed=args.seed, jobs=opts.jobs, progress=opts.progress,
                      budget_usd=args.budget_usd, ray=opts.ray, llm_limit=opts.llm_limit,
                      resamples=args.resamples, transcripts=not args.no_transcripts)
    for pairing, standings in result.standings:
        print(f"{pairing.folder}:")
        print(standings.report())
    print(f"Bradley-Terry ratings over {result.rated} games (Elo scale; 0 = the smallest MCTS "
          "budget; bootstrap 95% CIs)")
    print(table(result.ratings, result.reasoning, result.accounts))
    print(f"{result.player}: {result.place}")
    return 0


def ratings(args: argparse.Namespace) -> int:
    from duel.runs.ratings import (
        as_games,
        found_games,
        player_accounts,
        rate,
        reasoning_settings,
        table,
    )

    found = found_games(args.folders)
    games = as_games(found)
    if not games:
        raise UsageError("no finished games in " + ", ".join(args.folders))
    print(f"Bradley-Terry ratings over {len(games)} games (Elo scale; 0 = the smallest MCTS "
          "budget present; bootstrap 95% CIs)")
    print(table(rate(games, resamples=args.resamples, seed=args.seed),
                reasoning_settings(found), player_accounts(found)))
    return 0
