"""The `duel` console command: one parser whose command groups register themselves (one module
per group in this package), and the one place a DuelError becomes a line on stderr and exit 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from duel.errors import DuelError

# The command groups, in the order `duel --help` lists them.
GROUPS = ("game", "records", "llm", "prices", "analyse", "runs", "grade", "positions",
          "leaderboard", "serve", "play", "mcp", "openenv", "train", "bench")


def _version() -> str:
    from duel import __version__
    from duel.build import describe

    return f"duel {__version__}, {describe()} build"


def build_parser() -> argparse.ArgumentParser:
    from importlib import import_module

    parser = argparse.ArgumentParser(prog="duel", description="7 Wonders Duel for LLM agents, "
                                     "MCTS and external bots.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        import_module(f"duel.cli.{group}").add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except DuelError as exc:
        print(f"duel {getattr(args, 'command_name', args.command)}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
