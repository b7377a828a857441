"""Prices in US dollars per million tokens, per model. Override or extend with a JSON file named
by DUEL_PRICES: {"model": {"input": 0.15, "output": 0.6, "cached_input": 0.075}}."""

from __future__ import annotations

import json
import os
from typing import Any

# Public list prices when this table was written; users with other contracts override them.
DEFAULT_PRICES: dict[str, dict[str, float]] = {
    "gpt-4o-mini": {"input": 0.15, "output": 0.60, "cached_input": 0.075},
    "gpt-4o": {"input": 2.50, "output": 10.00, "cached_input": 1.25},
    "gpt-4.1": {"input": 2.00, "output": 8.00, "cached_input": 0.50},
    "gpt-4.1-mini": {"input": 0.40, "output": 1.60, "cached_input": 0.10},
    "gpt-4.1-nano": {"input": 0.10, "output": 0.40, "cached_input": 0.025},
    "claude-sonnet-4-5": {"input": 3.00, "output": 15.00, "cached_input": 0.30},
    "claude-haiku-4-5": {"input": 1.00, "output": 5.00, "cached_input": 0.10},
    "claude-opus-4-1": {"input": 15.00, "output": 75.00, "cached_input": 1.50},
    "local": {"input": 0.0, "output": 0.0, "cached_input": 0.0},
}


def price_table() -> dict[str, dict[str, float]]:
    table = dict(DEFAULT_PRICES)
    path = os.environ.get("DUEL_PRICES")
    if path:
        with open(path) as f:
            extra: dict[str, Any] = json.load(f)
        for model, prices in extra.items():
            table[model] = {k: float(v) for k, v in prices.items()}
    return table


def cost(model: str, input_tokens: int, output_tokens: int, cached_tokens: int,
         table: dict[str, dict[str, float]] | None = None) -> float | None:
    """Dollars for one call, or None when the model has no price (never a made-up figure)."""
    table = table if table is not None else price_table()
    p = table.get(model)
    if p is None:
        return None
    uncached = max(0, input_tokens - cached_tokens)
    return (uncached * p["input"] + cached_tokens * p.get("cached_input", p["input"])
            + output_tokens * p["output"]) / 1e6
