"""`duel analyse` of many transcripts: `--jobs` at once here, or each as a task of a Ray
cluster (`--ray`). A transcript analysed elsewhere travels there as its text and its analysis
comes back, to be written beside it as a local analysis is; transcripts with a fresh sidecar
of these settings are skipped (unless forced), so a run stopped half-way resumes. Many
transcripts go through the one campaign runner (duel.runs.campaign), as games do."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from duel.errors import DuelError
from duel.io import read_bytes

from . import sidecar
from .game import Analysis, analyse_file, analyse_transcript, load_analysis
from .report import render
from .search import Settings


def analyse_elsewhere(name: str, text: str, seats: tuple[int, ...], settings: Settings
                      ) -> dict[str, Any]:
    """The analysis of a transcript sent as its file name and text (a campaign's task: a worker
    process here or a Ray task, one CPU each)."""
    with tempfile.TemporaryDirectory(prefix="duel-analyse-") as tmp:
        path = Path(tmp) / name
        path.write_text(text)
        try:
            return analyse_transcript(path, seats, settings, 1, False).to_json()
        except DuelError as exc:  # named by the transcript's name, not the copy's folder
            if str(path) not in str(exc):
                raise
            try:
                renamed = type(exc)(str(exc).replace(str(path), name))
            except TypeError:
                raise exc from None
            raise renamed from None


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
    analyse_all([(path, seats) for path in todo], settings, jobs, ray,
                progress=sys.stderr.isatty(), each=_done)
    return 0


Each = Callable[[Path, Analysis, Path], None]  # (transcript, its analysis, the sidecar)


def analyse_all(todo: Sequence[tuple[Path, tuple[int, ...]]], settings: Settings, jobs: int,
                ray: str | None = None, progress: bool = False, each: Each | None = None
                ) -> list[str]:
    """Analyse each transcript of `todo` (of its seats) and write its sidecar as it comes back,
    through the one campaign runner: `jobs` transcripts at once in processes, or each as a task
    of the Ray cluster at `ray`. A run stopped half-way keeps the sidecars written, and the
    callers' freshness check skips them next time: it resumes. Fewer transcripts than `jobs`
    here are analysed one after another with their decisions spread over `jobs` processes
    instead. `each(transcript, analysis, sidecar)` is told of each one written; the run's
    closing lines."""
    if ray is None and len(todo) < jobs:
        with tqdm(total=len(todo), disable=not progress, unit="game", desc="analysing") as bar:
            for path, seats in todo:
                analysis, written = analyse_file(path, seats, settings, jobs, reuse=False)
                if each is not None:
                    each(path, analysis, written)
                bar.update(1)
        return []
    from duel.runs.budget import Budget, GameCost
    from duel.runs.campaign import Campaign, run

    def done(task: tuple[Path, tuple[int, ...]], obj: dict[str, Any]) -> GameCost:
        written = sidecar.write(obj, task[0])
        if each is not None:
            each(task[0], Analysis.from_json(obj), written)
        return GameCost(0.0)  # the analyser's searches cost CPU, not money

    def args(task: tuple[Path, tuple[int, ...]]) -> tuple[Any, ...]:
        path, seats = task
        return path.name, read_bytes(str(path)).decode("utf-8", "replace"), seats, settings

    campaign: Campaign[tuple[Path, tuple[int, ...]], dict[str, Any]] = Campaign(
        analyse_elsewhere, args, done, processes=True, unit="game")
    return run(campaign, list(todo), {}, Budget(None, unit="game"), jobs, progress, ray,
               show_money=False)


def _done(_: Path, analysis: Analysis, written: Path) -> None:
    print(render(analysis))
    print(f"Analysis written to {written}")
