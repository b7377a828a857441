"""The leaderboard: ratings with rank intervals, score rates, legality, tokens, money and the
analyser's loss per decision, per player, linked to every game.

    duel leaderboard runs/ladder runs/grade --out site     # a static site (duel.leaderboard.site)
    duel serve                                             # the same at /leaderboard

    from duel.leaderboard import build
    board = build(["runs/ladder"])          # figures.Board
    board.players[0]["rank_interval"]

Modules: `games` (the games read from folders, one record type), `figures` (every figure, with
its n and CI), `plots` (SVG), `pages` (the HTML, for the site and the server), `site` (the static
site and leaderboard.json), `command` (the CLI).
"""

from __future__ import annotations

from collections.abc import Sequence

from duel.errors import UsageError

from .figures import RESAMPLES, Board
from .games import Game, Loaded, load

__all__ = ["RESAMPLES", "Board", "Game", "Loaded", "build", "load"]


def build(folders: Sequence[str], resamples: int = RESAMPLES, seed: int = 0) -> Board:
    """The leaderboard of every finished game under `folders` (tournament, ladder and grading
    folders, or folders of transcripts)."""
    from .figures import build as figures

    loaded = load(folders)
    if not loaded.games:
        raise UsageError("no finished games in " + ", ".join(folders))
    return figures(loaded.games, loaded.notes, resamples, seed)
