"""The `duel` console command (duel/cli/main.py), one module per command group."""

from duel.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
