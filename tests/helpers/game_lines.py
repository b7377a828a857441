"""A tournament's game line without its clocks: what two runs of the same games share."""

from __future__ import annotations

from typing import Any

CLOCKS = ("seconds", "squares", "longest")  # a search time's wall-clock parts


def without_clocks(line: dict[str, Any]) -> dict[str, Any]:
    """`line` without the game's wall time, and each seat's search time without its clocks
    (the searched moves and iterations stay)."""
    out = {k: v for k, v in line.items() if k != "seconds"}
    if "search" in out:
        out["search"] = {seat: {k: v for k, v in t.items() if k not in CLOCKS}
                         for seat, t in out["search"].items()}
    return out
