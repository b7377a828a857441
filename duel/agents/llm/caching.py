"""Prompt caching and the provider's own bill, on the OpenAI-shaped APIs (OpenAI, OpenRouter,
compatible servers). The rules text is the same ~11k-token prefix on every move of every game, so
a cached prefix is most of the input bill.

- OpenAI caches prefixes by itself; ``prompt_cache_key`` routes requests that share one to the
  same cache (duel keys it by the rules text, so every game of a prompt variant shares it).
- OpenRouter caches Anthropic models only when ``cache_control`` is sent: the system message is
  sent as one text block marked ``{"type": "ephemeral"}``, as on Anthropic's own API.
- OpenRouter returns ``usage.cost`` (the credits the call was billed, in US dollars) and
  ``prompt_tokens_details.cache_write_tokens`` on every response: the cost is recorded as the
  call's cost, and cache writes are priced as such (Anthropic bills them above the input price).
"""

from __future__ import annotations

import hashlib
from typing import Any


def cache_key(system: str) -> str:
    """A stable ``prompt_cache_key`` for requests that start with `system`."""
    return "duel-" + hashlib.sha256(system.encode()).hexdigest()[:16]


def system_message(system: str, marked: bool) -> dict[str, Any]:
    """The chat API's system message, `marked` for caching where the server needs the mark
    (the provider's module says where: openrouter.py)."""
    if marked:
        return {"role": "system", "content": [
            {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]}
    return {"role": "system", "content": system}


def _field(obj: Any, name: str) -> Any:
    """A usage field the SDK's model may not declare (it keeps those in ``model_extra``)."""
    if obj is None:
        return None
    value = getattr(obj, name, None)
    if value is None:
        value = (getattr(obj, "model_extra", None) or {}).get(name)
    return value


def cache_writes(usage: Any) -> int:
    """``prompt_tokens_details.cache_write_tokens`` (OpenRouter), else 0."""
    value = _field(_field(usage, "prompt_tokens_details"), "cache_write_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def billed_usd(usage: Any) -> float | None:
    """``usage.cost``, the dollars the provider billed the call (OpenRouter), if it says."""
    value = _field(usage, "cost")
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)
