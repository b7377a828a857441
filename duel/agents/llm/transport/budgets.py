"""Output budgets a model has been found to need, remembered for the rest of the process.

A reply cut off while the model was still reasoning is paid for and thrown away; the same
question is then asked with twice the budget (send.py). The budget that was needed is where
that model's later calls start, for every agent and game of the process (a tournament's games,
the server's seats): one cut-off reply teaches the run, instead of one per move. The memory is
per endpoint, model and reasoning setting (a model at `reasoning_effort=xhigh` needs more than
at `low`), and only grows. It is process memory, like the adaptations (adapt.py): a new run
starts from the spec and the model table again.
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_grown: dict[tuple[str, str, str], int] = {}


def start(key: tuple[str, str, str], budget: int) -> int:
    """Where a call for `key` starts: `budget`, or the larger budget found needed earlier."""
    with _lock:
        return max(budget, _grown.get(key, 0))


def remember(key: tuple[str, str, str], budget: int) -> None:
    """`key`'s model needed `budget` output tokens: later calls start there."""
    with _lock:
        _grown[key] = max(budget, _grown.get(key, 0))


def forget() -> None:
    """Drop every remembered budget (a fresh process; tests)."""
    with _lock:
        _grown.clear()
