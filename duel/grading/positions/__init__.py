"""Position suites: decisions from real games with the analyser's value of every legal move, to
grade players on the same positions without playing whole games.

    duel positions extract runs/*.jsonl --out suite.json     # duel.grading.positions.extract
    duel grade --positions suite.json --variants errata --model SPEC --out runs/pos
    duel bench positions --suite suite.json                  # duel.bench.positions

Modules: `suite` (the format, its checks, the loss of an answer), `extract` (choosing positions),
`grade` (asking prompt variants, resumable, under a budget), `report` (the report's figures),
`bench` (how many positions separate two agents).
"""

from __future__ import annotations

from .suite import Position, Suite, load

__all__ = ["Position", "Suite", "load"]
