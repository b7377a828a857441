"""Where `duel serve`, `duel view` and `duel play` keep what they write (the games' database,
the viewer's pages) when not told: a data folder, never the working tree.

The folder is the one named by `--data-dir`, else `$DUEL_DATA_DIR`, else the platform's user
data folder (platformdirs: `~/.local/share/duel` on Linux, `~/Library/Application Support/duel`
on macOS, `%LOCALAPPDATA%\\duel` on Windows). It is made on first use."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

ENV = "DUEL_DATA_DIR"


def data_dir(named: str | None = None) -> Path:
    """The data folder (made if missing): `named`, else $DUEL_DATA_DIR, else the user's."""
    if named:
        folder = Path(named).expanduser()
    elif os.environ.get(ENV):
        folder = Path(os.environ[ENV]).expanduser()
    else:
        from platformdirs import user_data_dir

        folder = Path(user_data_dir("duel", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def add_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help=f"the folder for what this command writes when not told where (default: "
                   f"${ENV}, else the platform's user data folder, e.g. ~/.local/share/duel)")
