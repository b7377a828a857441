"""What several commands share: their options, declared once (the runs' `--jobs`, `--ray`,
`--llm-limit`, `--no-progress`; `--budget-usd`; `--seed`; `--out`), how they are read, and the
JSON printer."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from duel.errors import UsageError
from duel.util.numbers import integer, real, seed

__all__ = ["RunOptions", "add_budget", "add_dry_run", "add_out", "add_run_options", "add_seed",
           "add_stop_after", "dump", "integer", "real", "run_options", "seed", "show_dry_run",
           "stop_after_option"]


def dump(obj: Any) -> None:
    """`obj` as indented JSON on standard output."""
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def add_seed(p: argparse.ArgumentParser, default: int | None = 0, what: str = "") -> None:
    p.add_argument("--seed", type=seed, default=default,
                   help=what or ("the seed (default random)" if default is None else None))


def add_out(p: argparse.ArgumentParser, what: str, required: bool = False) -> None:
    p.add_argument("--out", default=None, required=required, help=what)


def add_budget(p: argparse.ArgumentParser, what: str = "the run") -> None:
    p.add_argument("--budget-usd", type=real, default=None, metavar="X",
                   help=f"start no game that would take the LLM money {what} spent (earlier "
                   "runs in --out included) past X dollars; run again with more to resume")


def add_dry_run(p: argparse.ArgumentParser) -> None:
    """`--dry-run` and its `--json`: the run's games, LLM calls and projected cost, nothing
    played (duel.runs.dryrun)."""
    p.add_argument("--dry-run", action="store_true",
                   help="print the games, the LLM calls and the projected cost of the run "
                   "(per LLM player and in total, with a range) and play nothing: no model "
                   "call that costs money (tokens are counted by the provider's free "
                   "counting where it has one)")
    p.add_argument("--json", action="store_true", help="with --dry-run: as one JSON object")
    p.add_argument("--probe", type=integer, default=0, metavar="N",
                   help="with --dry-run: N paid decisions of each reasoning "
                   "LLM seat measure its reasoning, and the projection counts it (the probe's "
                   "cost is shown); without, a reasoning model's figure is a floor")


def show_dry_run(projection: Any, args: argparse.Namespace) -> int:
    """Print a dry run's projection (duel.runs.dryrun.DryRun) as asked."""
    if args.json:
        dump(projection.to_json())
    else:
        print(projection.text())
    return 0


def add_run_options(p: argparse.ArgumentParser, jobs_default: int) -> None:
    """`--jobs`, `--ray ADDRESS`, `--llm-limit` and `--no-progress`: how a many-games command
    plays its games (duel.runs.campaign)."""
    p.add_argument("--jobs", type=integer, default=None,
                   help=f"games at once (default {jobs_default}; with --ray, one per CPU of "
                   "the cluster)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="play the games as tasks of a Ray cluster: local (a private instance "
                   "here), auto (the cluster of this node), ray://HOST:PORT (Ray Client) or a "
                   "head's HOST:PORT; needs the ray extra")
    p.add_argument("--llm-limit", default=None, metavar="IN_FLIGHT/PER_MINUTE",
                   help="with --ray: at most IN_FLIGHT requests at once and PER_MINUTE started "
                   "per minute to each provider and model, across the whole cluster (e.g. "
                   "8/500: your API key's limits)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_stop_after(p)
    p.set_defaults(jobs_default=jobs_default)


def add_stop_after(p: argparse.ArgumentParser) -> None:
    """`--stop-after-fallbacks N`: the default of the asking seats' `stop_after=`."""
    p.add_argument("--stop-after-fallbacks", type=integer, default=None, metavar="N",
                   help="stop the run when a seat's moves come from its fallback N times in a "
                   "row for a reason that is not the agent's (no connection, a busy server "
                   "past its wait, replies cut off at the model's limit); default 3, 0: never; "
                   "a seat's own stop_after= wins; the games so far are kept")


def stop_after_option(args: argparse.Namespace) -> None:
    """Make `--stop-after-fallbacks` the default of every seat built from now on, in this
    process and the worker processes it starts (they inherit the variable)."""
    import os

    from duel.agents.waiting import STOP_AFTER_ENV

    value = getattr(args, "stop_after_fallbacks", None)
    if value is not None:
        if value < 0:
            raise UsageError(f"--stop-after-fallbacks must be 0 (never) or more, got {value}")
        os.environ[STOP_AFTER_ENV] = str(value)


@dataclass(frozen=True)
class RunOptions:
    """The run options as read: `jobs` (0 with --ray: one per CPU of the cluster), `ray`,
    `llm_limit` (a LimitSpec) and `progress`."""

    jobs: int
    ray: str | None
    llm_limit: Any
    progress: bool


def run_options(args: argparse.Namespace) -> RunOptions:
    """The options `add_run_options` declared, checked (UsageError for `--llm-limit` without
    `--ray`)."""
    from duel.agents.llm.transport.limits import LimitSpec

    if args.llm_limit is not None and args.ray is None:
        raise UsageError("--llm-limit applies only with --ray (a local run's cap is the "
                         "spec's concurrency)")
    stop_after_option(args)
    jobs = args.jobs if args.jobs is not None else (0 if args.ray else args.jobs_default)
    limit = None if args.llm_limit is None else LimitSpec.parse(args.llm_limit)
    return RunOptions(jobs, args.ray, limit, not args.no_progress)
