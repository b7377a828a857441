"""Prices in US dollars per million tokens, per model: the model table's list prices
(models.py), overridden or extended by a JSON file named by DUEL_PRICES: {"model": {"input":
0.15, "output": 0.6, "cached_input": 0.075, "cache_write_input": 0.1875}} (`cached_input` and
`cache_write_input` default to `input`). A dated snapshot (gpt-5-mini-2025-08-07) takes its
model's price unless it has its own entry, and an OpenRouter name (``anthropic/claude-sonnet-4.6``)
its maker's. A model with no entry has an unknown cost, recorded as null and shown as unknown,
never $0. Reasoning tokens are output tokens, priced as such. Where the provider states what it
billed (OpenRouter's ``usage.cost``), that is the call's cost instead (agent.py)."""

from __future__ import annotations

import json
import os
from typing import Any

from duel.agents.llm.models import listed_prices, table_name, undated
from duel.errors import PriceTableError

# The model table's list prices (models.py, read on models.PRICES_READ): one source of truth.
DEFAULT_PRICES: dict[str, dict[str, float]] = listed_prices()
_KEYS = ("input", "output", "cached_input", "cache_write_input")


def price_table() -> dict[str, dict[str, float]]:
    """The default table with the DUEL_PRICES file's entries on top. Raises PriceTableError."""
    table = dict(DEFAULT_PRICES)
    path = os.environ.get("DUEL_PRICES")
    if path:
        from duel.io import read_bytes

        try:
            extra: Any = json.loads(read_bytes(path))
        except ValueError as exc:  # InvalidStateError (the file) or a JSON error
            raise PriceTableError(f"DUEL_PRICES={path}: {exc}") from None
        if not isinstance(extra, dict):
            raise PriceTableError(f"DUEL_PRICES={path}: expected an object of models")
        for model, prices in extra.items():
            if not isinstance(prices, dict) or not {"input", "output"} <= set(prices) \
                    or not set(prices) <= set(_KEYS):
                raise PriceTableError(f"DUEL_PRICES={path}: {model!r} needs \"input\" and "
                                      f"\"output\" (optional: cached_input, cache_write_input)")
            try:
                table[model] = {k: float(v) for k, v in prices.items()}
            except (TypeError, ValueError):
                raise PriceTableError(f"DUEL_PRICES={path}: {model!r}: prices must be "
                                      "numbers") from None
    return table


def cost(model: str, input_tokens: int, output_tokens: int, cached_tokens: int,
         table: dict[str, dict[str, float]] | None = None,
         cache_write_tokens: int = 0) -> float | None:
    """Dollars for one call, or None when the model has no price (never a made-up figure).
    `input_tokens` includes the cached and cache-write tokens."""
    table = table if table is not None else price_table()
    p = table.get(model) or table.get(undated(model))
    if p is None and table_name(model) != model:  # OpenRouter's vendor/model: the maker's price
        p = table.get(table_name(model)) or table.get(undated(table_name(model)))
    if p is None:
        return None
    plain = max(0, input_tokens - cached_tokens - cache_write_tokens)
    return (plain * p["input"] + cached_tokens * p.get("cached_input", p["input"])
            + cache_write_tokens * p.get("cache_write_input", p["input"])
            + output_tokens * p["output"]) / 1e6


def known_prices() -> list[dict[str, Any]]:
    """What duel knows about prices, one row per model: the model table's entries (with where
    and when each price was read, and what was not read there; a model of the table without a
    price says so) and the DUEL_PRICES file's, which win. Raises PriceTableError."""
    from duel.agents.llm.models import FAMILIES, LOCAL

    table = price_table()
    rows: list[dict[str, Any]] = []
    for fam in (*FAMILIES, LOCAL):
        listed = fam.prices is not None
        row = {"model": fam.prefix, **_cells(table.get(fam.prefix)),
               "checked": fam.price_checked or None, "source": fam.price_source or None,
               "note": fam.price_note or (None if listed else "no published price read: "
                                          "unknown; give it with DUEL_PRICES")}
        if fam.prefix in table and table[fam.prefix] != (fam.prices or {}):
            row.update(checked=None, source="DUEL_PRICES", note="overrides the table")
        rows.append(row)
    known = {r["model"] for r in rows}
    for model in sorted(set(table) - known):
        rows.append({"model": model, **_cells(table[model]), "checked": None,
                     "source": "DUEL_PRICES", "note": None})
    return rows


def _cells(p: dict[str, float] | None) -> dict[str, float | None]:
    if p is None:
        return {k: None for k in _KEYS}
    return {k: p.get(k, p["input"]) for k in _KEYS}
