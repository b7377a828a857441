"""Per-game LLM totals from the moves' recorded calls."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def reasoning_label(settings: dict[str, Any] | None) -> str:
    """The reasoning setting a result was played with: "reasoning_effort=high",
    "thinking=2048", or "default" (the provider's own, e.g. before settings were recorded)."""
    if settings and settings.get("reasoning_effort"):
        return f"reasoning_effort={settings['reasoning_effort']}"
    if settings and settings.get("thinking"):
        return f"thinking={settings['thinking']}"
    return "default"


def llm_totals(move_details: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """Totals over the LLM decisions of one seat (None if it made none): calls, tokens (the
    reasoning tokens among the output tokens too), cost, latency, first-try legality, legality
    after retries, attempts, fallbacks, categories, and the reasoning setting played with."""
    moves = calls = input_t = output_t = cached_t = reasoning_t = 0
    reasoning = "default"
    first_try = legal = fallbacks = attempts = 0
    cost = 0.0
    cost_known = True
    latency = 0.0
    categories: dict[str, int] = {}
    for details in move_details:
        llm = details.get("llm")
        if not llm:
            continue
        moves += 1
        if moves == 1:
            reasoning = reasoning_label(llm.get("settings"))
        attempts += llm["attempts"]
        if llm["legal_at_attempt"] == 1:
            first_try += 1
        if llm["legal_at_attempt"] is not None:
            legal += 1
        if llm["fallback"]:
            fallbacks += 1
        for call in llm["calls"]:
            calls += 1
            input_t += call["input_tokens"]
            output_t += call["output_tokens"]
            cached_t += call["cached_tokens"]
            reasoning_t += call.get("reasoning_tokens", 0)
            latency += call["latency_s"]
            categories[call["category"]] = categories.get(call["category"], 0) + 1
            if call["cost_usd"] is None:
                cost_known = False
            else:
                cost += call["cost_usd"]
    if moves == 0:
        return None
    return {"moves": moves, "calls": calls, "input_tokens": input_t, "output_tokens": output_t,
            "cached_tokens": cached_t, "reasoning_tokens": reasoning_t,
            "cost_usd": round(cost, 6) if cost_known else None,
            "latency_s": round(latency, 3), "first_try_legal": first_try / moves,
            "legal_after_retries": legal / moves, "mean_attempts": attempts / moves,
            "fallbacks": fallbacks, "categories": categories, "reasoning": reasoning}


def totals_line(seat: int, totals: dict[str, Any]) -> str:
    cost = "unknown price" if totals["cost_usd"] is None else f"${totals['cost_usd']:.4f}"
    return (f"LLM player {seat}: {totals['moves']} moves, {totals['calls']} calls, "
            f"first-try legal {totals['first_try_legal']:.0%}, legal after retries "
            f"{totals['legal_after_retries']:.0%}, {totals['fallbacks']} fallbacks, tokens "
            f"{totals['input_tokens']} in ({totals['cached_tokens']} cached) / "
            f"{totals['output_tokens']} out ({totals.get('reasoning_tokens', 0)} reasoning), "
            f"{cost}, {totals['latency_s']:.1f} s in calls, reasoning "
            f"{totals.get('reasoning', 'default')}")
