"""Per-game LLM totals from the moves' recorded calls, in their JSON form: the functions the
match, transcript and report code call. The totals themselves, and the one place they are
built, are :class:`duel.accounting.totals.LLMTotals`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from duel.accounting.totals import LLMTotals, reasoning_label

__all__ = ["llm_totals", "reasoning_label", "totals_line"]


def llm_totals(move_details: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """:meth:`LLMTotals.of_decisions` as JSON (None if the seat made no LLM decision)."""
    totals = LLMTotals.of_decisions(move_details)
    return None if totals is None else totals.to_json()


def totals_line(seat: int, totals: dict[str, Any]) -> str:
    """One seat's totals (JSON form) after `duel match`."""
    return LLMTotals.from_json(totals).match_line(seat)
