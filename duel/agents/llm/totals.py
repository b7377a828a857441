"""LLM totals over many games: the per-game totals of one seat (`accounting.llm_totals`, as
transcripts and tournament lines record them) summed, for the tournament and grading reports."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from duel.errors import InvalidStateError

DEFAULT_REASONING = "default"  # the label of games recorded before results named their setting
_NUMBERS = ("moves", "calls", "input_tokens", "output_tokens", "latency_s", "first_try_legal",
            "legal_after_retries", "mean_attempts", "fallbacks")
_OPTIONAL_NUMBERS = ("cost_usd", "cached_tokens", "reasoning_tokens")


def checked_totals(obj: Any) -> dict[str, Any] | None:
    """A game line's ``"totals"`` (player "1"/"2" to that seat's LLM totals or null), checked
    for what :func:`combine` reads; InvalidStateError names a bad field."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or not set(obj) <= {"1", "2"}:
        raise InvalidStateError('game record field totals must map "1" and "2" to LLM totals')
    for player, t in obj.items():
        if t is None:
            continue
        if not isinstance(t, dict):
            raise InvalidStateError(f"game record field totals.{player} must be an object or "
                                    "null")
        for key in (*_NUMBERS, *_OPTIONAL_NUMBERS):
            value = t.get(key)
            if key in _OPTIONAL_NUMBERS and value is None:  # an unknown price, an older line
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidStateError(f"game record field totals.{player}.{key} must be a "
                                        "number")
        if not isinstance(t.get("reasoning", ""), str | None):
            raise InvalidStateError(f"game record field totals.{player}.reasoning must be a "
                                    "string")
    return obj


def combine(per_game: Iterable[dict[str, Any] | None]) -> dict[str, Any]:
    """Counts, tokens, cost (None if any game's is unknown) and latency summed; legality and
    attempts as means per LLM move; `reasoning` names the reasoning settings played with."""
    tot = [t for t in per_game if t]
    moves = sum(t["moves"] for t in tot)

    def per_move(key: str) -> float:
        return sum(t[key] * t["moves"] for t in tot) / moves if moves else 0.0

    costs = [t["cost_usd"] for t in tot]
    return {
        "games": len(tot), "moves": moves, "calls": sum(t["calls"] for t in tot),
        "first_try_legal": per_move("first_try_legal"),
        "legal_after_retries": per_move("legal_after_retries"),
        "mean_attempts": per_move("mean_attempts"),
        "fallbacks": sum(t["fallbacks"] for t in tot),
        "input_tokens": sum(t["input_tokens"] for t in tot),
        "cached_tokens": sum(t.get("cached_tokens") or 0 for t in tot),
        "output_tokens": sum(t["output_tokens"] for t in tot),
        "reasoning_tokens": sum(t.get("reasoning_tokens") or 0 for t in tot),
        "cost_usd": None if any(c is None for c in costs) else round(sum(costs), 6),
        "latency_s": sum(t["latency_s"] for t in tot),
        "reasoning": ",".join(sorted({t.get("reasoning") or DEFAULT_REASONING for t in tot})),
    }


def summary_line(name: str, t: dict[str, Any]) -> str:
    """One side's LLM totals in a tournament report."""
    cost = "unknown price" if t["cost_usd"] is None else f"${t['cost_usd']:.4f}"
    return (f"  {name} as an LLM (reasoning {t['reasoning']}): {t['moves']} moves, "
            f"first-try legal {t['first_try_legal']:.0%}, legal after retries "
            f"{t['legal_after_retries']:.0%}, {t['fallbacks']} fallbacks, tokens "
            f"{t['input_tokens']} in / {t['output_tokens']} out ({t['reasoning_tokens']} "
            f"reasoning), {cost}, {t['latency_s']:.1f} s in calls")
