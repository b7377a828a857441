"""Inspect log directories as leaderboard folders: each `duel/match` sample names its game's
transcript (its score's metadata, duel.inspect.match), and those transcripts are read as any
loose transcript is (re-played before they count). Reading a log needs Inspect's own reader
(the `inspect` extra); without it a folder of logs is passed over with a note."""

from __future__ import annotations

from pathlib import Path

LOG_SUFFIXES = (".eval", ".json")


def logs_in(folder: Path) -> list[Path]:
    """Inspect's log files under `folder` (a .json one only where its name says it is a log:
    Inspect names them TIMESTAMP_TASK_ID.json)."""
    found = sorted(folder.rglob("*.eval"))
    found += [p for p in sorted(folder.rglob("*.json")) if p.stem.count("_") >= 2
              and p.stem[:4].isdigit()]
    return found


def transcripts(folder: Path, notes: list[str]) -> list[Path]:
    """The transcripts the Inspect logs under `folder` name (those still on disk)."""
    logs = logs_in(folder)
    if not logs:
        return []
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        notes.append(f"{folder}: {len(logs)} Inspect logs passed over: reading them needs "
                     "inspect-ai (pip install 'duel[inspect]')")
        return []
    out: list[Path] = []
    for path in logs:
        try:
            log = read_eval_log(str(path))
        except Exception as exc:  # noqa: BLE001 - any unreadable file is only a note
            notes.append(f"{path}: not read as an Inspect log: {exc}")
            continue
        for sample in log.samples or []:
            for score in (sample.scores or {}).values():
                named = (score.metadata or {}).get("transcript")
                if isinstance(named, str) and Path(named).is_file():
                    out.append(Path(named))
    return out
