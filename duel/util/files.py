"""Writing files so that a kill never leaves half of one: a whole file replaced at once
(`atomic_write`), or one JSON line appended and flushed (`append_jsonl`, whose reader skips a
line cut short)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

PARTIAL = ".part"  # the suffix of a file being written, before it replaces its target


def atomic_write(path: str | Path, data: str | bytes) -> Path:
    """Write `data` to `path` whole or not at all: into a partial file beside it (same folder,
    so the rename is atomic), synced, then renamed over it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=PARTIAL)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return path


def append_jsonl(path: str | Path, obj: Any) -> None:
    """Append `obj` as one JSON line, flushed. A line a kill cut short is ended first, so the
    new one starts on a line of its own (readers skip the broken one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as f:
        if f.tell():
            with path.open("rb") as r:
                r.seek(-1, os.SEEK_END)
                if r.read(1) != b"\n":
                    f.write(b"\n")
        f.write(json.dumps(obj).encode() + b"\n")
        f.flush()
