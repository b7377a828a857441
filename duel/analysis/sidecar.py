"""The analysis sidecar: ``GAME.analysis.json`` beside ``GAME.jsonl``.

The transcript is never touched (it stays verifiable); the sidecar names it by file name and
SHA-256, with the analyser's settings and the duel and rules versions, so an analysis of another
version of the file is detected (:func:`load`). Its format is published as
duel/schemas/analysis.schema.json; every sidecar is checked against it when written and read.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Final

from duel.engine import RULES_VERSION
from duel.errors import DuelError, InvalidStateError, TranscriptError
from duel.util.files import atomic_write

SUFFIX: Final = ".analysis.json"
FORMAT_VERSION: Final = 1


def sidecar_path(transcript: str | Path) -> Path:
    """Where the analysis of `transcript` goes: GAME.jsonl -> GAME.analysis.json."""
    return Path(transcript).with_suffix(SUFFIX)


def file_hash(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    from duel.io import read_bytes

    try:
        return hashlib.sha256(read_bytes(str(path))).hexdigest()
    except InvalidStateError as exc:
        raise TranscriptError(str(exc)) from None


def problem(obj: Any) -> str | None:
    """What makes `obj` not a valid sidecar (the schema's most relevant violation), or None."""
    from duel.schemas import schema_error

    return schema_error("analysis", obj)


def write(obj: dict[str, Any], transcript: str | Path) -> Path:
    """Write `obj` (a valid sidecar) beside `transcript`, atomically; its path."""
    bad = problem(obj)
    if bad:
        raise TranscriptError(f"internal error: the analysis does not match its schema: {bad}")
    path = sidecar_path(transcript)
    try:
        atomic_write(path, json.dumps(obj, indent=1) + "\n")
    except OSError as exc:
        raise TranscriptError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def read(path: str | Path) -> dict[str, Any]:
    """A sidecar file, checked against the schema; TranscriptError naming what is wrong."""
    from duel.io import read_json

    try:
        obj = read_json(str(path))
    except DuelError as exc:
        raise TranscriptError(str(exc)) from None
    bad = problem(obj)
    if bad:
        raise TranscriptError(f"{path} is not an analysis sidecar: {bad}")
    out: dict[str, Any] = obj
    return out


def stale(obj: dict[str, Any], transcript: str | Path) -> str | None:
    """Why the sidecar `obj` is not the analysis of `transcript` as it is now, or None."""
    digest = file_hash(transcript)
    if obj["transcript"]["sha256"] != digest:
        return (f"the transcript changed since it was analysed (SHA-256 {digest[:12]}..., the "
                f"analysis is of {obj['transcript']['sha256'][:12]}...)")
    if obj["rules_version"] != RULES_VERSION:
        return (f"the analysis was made under rules version {obj['rules_version']!r}; this "
                f"engine implements {RULES_VERSION!r}")
    return None


def load(transcript: str | Path) -> dict[str, Any] | None:
    """The sidecar of `transcript`: None if there is none; TranscriptError if it cannot be read
    or is stale (the transcript changed since)."""
    path = sidecar_path(transcript)
    if not path.exists():
        return None
    obj = read(path)
    why = stale(obj, transcript)
    if why:
        raise TranscriptError(f"{path} is stale: {why}; run duel analyse {transcript} again")
    return obj
