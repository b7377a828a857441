"""Move quality: an ISMCTS analyser that grades every decision of a transcript from the view the
player had (`duel analyse`).

    from duel.analysis import Settings, analyse_file
    analysis, sidecar = analyse_file("transcripts/GAME.jsonl", seats=(1,), jobs=2)
    analysis.seat(1)["mean_loss"]

Modules: `search` (the root-controlled search and its budget), `decision` (one graded decision),
`game` (a transcript's analysis), `summary` (figures, thresholds, accuracy, the curve),
`sidecar` (GAME.analysis.json), `report` (the readable summary).
"""

from __future__ import annotations

from .game import DEFAULT_JOBS, Analysis, analyse_file, analyse_transcript, load_analysis
from .search import DEFAULT_ITERATIONS, Settings

__all__ = ["DEFAULT_ITERATIONS", "DEFAULT_JOBS", "Analysis", "Settings", "analyse_file",
           "analyse_transcript", "load_analysis"]
