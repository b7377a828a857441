"""`duel mcp --games DIR`: hosted games kept in a folder, so that they outlive the process.

Over stdio each client process is its own server: a client that starts one process per call
(the MCP Inspector's CLI does) would find no game the second time. With a folder, every call
of a hosted game reads the game from it (when another process changed it) and writes it back,
under a lock on the folder, so processes one after another, or side by side, play one game.
A game is its snapshot (`HostedGame.snapshot`): seed, moves, the opponent's generator; it is
replayed on load, the opponent never asked again for a move it made.

The folder holds each game's seed, and so its deal, every hidden card: keep it where the
player cannot read it (a model whose client reads files could). Its transcripts stay sealed.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from duel.agents.tools.record import ToolCall

from .hosted import HostedGame

SNAPSHOT = 1  # the snapshot's format


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_mtime_ns, st.st_size


class Kept:
    """The folder of kept games: `g1.json`, `g2.json`... and a lock file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        # each game file's (mtime, size) when this process last read or wrote it
        self._stamps: dict[str, tuple[int, int]] = {}

    @contextmanager
    def lock(self) -> Iterator[None]:
        """One call at a time across every process that keeps games in the folder."""
        with (self.folder / ".lock").open("a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def new_id(self) -> str:
        """The next game id no process of this folder has given (call under `lock`)."""
        counter = self.folder / "next-id"
        n = int(counter.read_text()) if counter.exists() else 1
        counter.write_text(str(n + 1))
        return f"g{n}"

    def _path(self, gid: str) -> Path | None:
        # ids are the server's own (g<n>): anything else names no file
        return self.folder / f"{gid}.json" if gid[1:].isdigit() and gid[0] == "g" else None

    def changed(self, gid: str) -> bool:
        """Whether the game's file is newer than this process's copy (or it has none)."""
        path = self._path(gid)
        if path is None or not path.exists():
            return False
        return _stamp(path) != self._stamps.get(gid)

    def save(self, game: HostedGame, opponent: str, calls: list[ToolCall]) -> None:
        path = self._path(game.id)
        assert path is not None
        snap = {"format": SNAPSHOT, "opponent": opponent, **game.snapshot(),
                "calls": [c.to_json() for c in calls]}
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(snap))
        os.replace(tmp, path)
        self._stamps[game.id] = _stamp(path)

    def load(self, gid: str, build: Any) -> tuple[HostedGame, str, list[ToolCall]] | None:
        """The kept game `gid`, its opponent built by `build(name)`, and the look-ups made since
        its seat's last move; None if the folder has no such game."""
        path = self._path(gid)
        if path is None or not path.exists():
            return None
        snap = json.loads(path.read_text())
        game = HostedGame.restore(snap, build(snap["opponent"]))
        self._stamps[gid] = _stamp(path)
        return game, snap["opponent"], [ToolCall.from_json(c) for c in snap["calls"]]


__all__ = ["Kept"]
