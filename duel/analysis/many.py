"""`duel analyse` of many transcripts: one after another here, or each as a task of a Ray
cluster (`--ray`). A transcript analysed elsewhere travels there as its text and its analysis
comes back, to be written beside it as a local analysis is; transcripts with a fresh sidecar
of these settings are skipped (unless forced), so a run stopped half-way resumes."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import as_completed
from pathlib import Path
from typing import Any

from tqdm import tqdm

from duel.io import read_bytes

from . import sidecar
from .game import Analysis, analyse_file, analyse_transcript, load_analysis
from .report import render
from .search import Settings


def analyse_elsewhere(name: str, text: str, seats: tuple[int, ...], settings: Settings
                      ) -> dict[str, Any]:
    """The analysis of a transcript sent as its file name and text (a Ray task, one CPU)."""
    with tempfile.TemporaryDirectory(prefix="duel-analyse-") as tmp:
        path = Path(tmp) / name
        path.write_text(text)
        return analyse_transcript(path, seats, settings, 1, False).to_json()


def fresh(path: Path, seats: tuple[int, ...], settings: Settings) -> bool:
    """Whether `path` has a fresh sidecar made with these settings and seats."""
    from duel.errors import TranscriptError

    try:
        found = load_analysis(path)
    except TranscriptError:
        return False
    return found is not None and found.settings == settings and \
        tuple(found.seats) == seats


def run_many(paths: list[str], seats: tuple[int, ...], settings: Settings, jobs: int,
             force: bool, ray: str | None) -> int:
    """Analyse every transcript in `paths`, printing each summary as it is written."""
    todo = [Path(p) for p in paths if force or not fresh(Path(p), seats, settings)]
    for p in paths:
        if Path(p) not in todo:
            print(f"{p}: a fresh analysis is there already (--force to redo it)")
    bar = tqdm(total=len(todo), disable=not sys.stderr.isatty(), unit="game",
               desc="analysing")
    try:
        if ray is None:
            for path in todo:
                analysis, written = analyse_file(path, seats, settings, jobs, reuse=False)
                _done(render(analysis), written, bar)
            return 0
        for path, obj in on_ray([(path, seats) for path in todo], settings, ray):
            _done(render(Analysis.from_json(obj)), sidecar.write(obj, path), bar)
        return 0
    finally:
        bar.close()


def on_ray(todo: list[tuple[Path, tuple[int, ...]]], settings: Settings, ray: str
           ) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each transcript's analysis (of its seats) as a task of the Ray cluster at `ray`, as
    each comes back."""
    from duel.runs.cluster import RayPool, connect

    connect(ray)
    remote = RayPool(analyse_elsewhere)
    futures = {remote.submit(path.name, read_bytes(str(path)).decode("utf-8", "replace"), seats,
                                     settings): path
               for path, seats in todo}
    try:
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        remote.shutdown()


def analyse_on_ray(todo: list[tuple[Path, int]], settings: Settings, ray: str,
                   progress: bool) -> None:
    """`duel grade --analyse --ray`: each game's graded seat, its sidecar written here."""
    with tqdm(total=len(todo), disable=not progress, unit="game", desc="analysing") as bar:
        for path, obj in on_ray([(p, (seat,)) for p, seat in todo], settings, ray):
            sidecar.write(obj, path)
            bar.update(1)


def _done(summary: str, written: Path, bar: Any) -> None:
    print(summary)
    print(f"Analysis written to {written}")
    bar.update(1)
