"""`duel grade`: prompt variants (and harness settings) compared on the same deals, or on the
positions of a suite."""

from __future__ import annotations

import argparse
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

GRADE_OPPONENT = "mcts:iterations=300"
GRADE_DEALS = 50


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("grade", help="grade prompt variants on the same deals, or on the "
                       "positions of a suite (resumable)")
    p.add_argument("--variants", default="baseline,errata,legal-moves",
                   help="comma-separated variants: a prompt variant, LLM spec options as a "
                   "setting (tools=on; several joined by +), or both (local+tools=on); "
                   "baseline and null are always added")
    p.add_argument("--model", required=True, help="an llm: spec without prompt=")
    p.add_argument("--positions", default=None, metavar="SUITE",
                   help="ask the variants the positions of this suite (duel positions extract) "
                   "instead of playing games; scored by the analyser's loss")
    p.add_argument("--opponent", default=None,
                   help=f"games: the opponent's agent spec (default {GRADE_OPPONENT})")
    p.add_argument("--deals", type=integer, default=None,
                   help=f"games: deals played (default {GRADE_DEALS})")
    p.add_argument("--out", default=None, help="folder for the games or answers and the report "
                   "(required for games; with --positions default SUITE-grade beside it)")
    add_seed(p, 0, "first deal's seed")
    add_run_options(p, jobs_default=4)
    add_budget(p)
    add_dry_run(p)
    p.add_argument("--until-decided", action="store_true",
                   help="stop once a group-sequential test has decided every variant against "
                   "the baseline (--deals is the maximum); the report says where and why")
    p.add_argument("--look-every", type=integer, default=None, metavar="K",
                   help="with --until-decided: deals between looks (default 10)")
    p.add_argument("--analyse", action="store_true",
                   help="then grade the LLM's decisions in every game with the analyser "
                   "(duel analyse): mean loss and blunder rate per variant in the report")
    p.add_argument("--analyse-iterations", type=integer, default=None, metavar="N",
                   help="with --analyse: iterations per decision (default: duel analyse's)")
    p.set_defaults(func=grade)


def grade(args: argparse.Namespace) -> int:
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if args.json and not args.dry_run:
        raise UsageError("--json applies only with --dry-run")
    if args.probe and not args.dry_run:
        raise UsageError("--probe applies only with --dry-run")
    if args.probe < 0:
        raise UsageError(f"--probe must be 0 or more decisions, got {args.probe}")
    if args.positions is not None:
        return positions(args, variants)
    from duel.grading import play
    from duel.grading import report as grade_report
    from duel.grading.sequential import LOOK_EVERY

    if args.dry_run:
        if args.look_every is not None and not args.until_decided:
            raise UsageError("--look-every applies only with --until-decided")
        return show_dry_run(play.dry_run(
            variants, args.model, args.opponent or GRADE_OPPONENT,
            GRADE_DEALS if args.deals is None else args.deals, args.out, seed=args.seed,
            jobs=run_options(args).jobs, until_decided=args.until_decided,
            budget_usd=args.budget_usd, probe=args.probe), args)
    if args.out is None:
        raise UsageError("--out is required: the folder for the games and the report")
    if args.look_every is not None and not args.until_decided:
        raise UsageError("--look-every applies only with --until-decided")
    if args.analyse_iterations is not None and not args.analyse:
        raise UsageError("--analyse-iterations applies only with --analyse")
    settings = None
    if args.analyse:
        from duel.cli.analyse import settings_of

        settings = settings_of(args.analyse_iterations)  # bad values fail before play
    opts = run_options(args)
    outcome = play.run(variants, args.model, args.opponent or GRADE_OPPONENT,
                        GRADE_DEALS if args.deals is None else args.deals, args.out,
                        seed=args.seed, jobs=opts.jobs, progress=opts.progress,
                        budget_usd=args.budget_usd, until_decided=args.until_decided,
                        look_every=args.look_every or LOOK_EVERY, ray=opts.ray,
                        llm_limit=opts.llm_limit)
    if settings is not None:
        from duel.grading.quality import analyse_games

        analyse_games(args.out, settings, opts.jobs or 4, progress=opts.progress, ray=opts.ray)
    md, paths = grade_report.report(args.out, outcome)
    print(md)
    print("Written: " + ", ".join(str(p) for p in paths))
    return 0


def positions(args: argparse.Namespace, variants: list[str]) -> int:
    """`duel grade --positions SUITE`: the variants answer the suite's positions."""
    from duel.grading.positions.grade import run
    from duel.grading.positions.report import report

    if args.ray is not None:
        raise UsageError("--ray plays games; --positions asks positions on this machine")
    games_only = {"--opponent": args.opponent is not None, "--deals": args.deals is not None,
                  "--until-decided": args.until_decided,
                  "--look-every": args.look_every is not None, "--analyse": args.analyse,
                  "--analyse-iterations": args.analyse_iterations is not None}
    given = [flag for flag, used in games_only.items() if used]
    if given:
        raise UsageError(f"{', '.join(given)} grade games, not --positions")
    suite_path = Path(args.positions)
    out = args.out or str(suite_path.with_name(suite_path.stem + "-grade"))
    if args.dry_run:
        from duel.grading.positions.grade import dry_run

        return show_dry_run(dry_run(suite_path, variants, args.model, out,
                                    jobs=4 if args.jobs is None else args.jobs,
                                    budget_usd=args.budget_usd, probe=args.probe), args)
    suite, outcome = run(suite_path, variants, args.model, out,
                         jobs=4 if args.jobs is None else args.jobs,
                         progress=not args.no_progress, budget_usd=args.budget_usd)
    md, paths = report(out, suite, str(suite_path), outcome)
    print(md)
    print("Written: " + ", ".join(str(p) for p in paths))
    return 0
