"""The record of one LLM call, as a decision's details keep it (``details.llm.calls``).

Its JSON form is the transcript's, byte for byte: the keys in the order duel has always written
them. Records written by older duels lack the keys added since (``cache_write_tokens``, then
``reasoning_tokens``, ``thinking`` and ``max_tokens``, then ``tool_calls``, ``cost_source``,
``served_model``, ``request_id`` and ``retry``); they read as None and are left out again when
written, so every record round-trips. ``tool_calls`` is there when the seat plays with
``tools=on``: the tool calls the reply made (`ToolCall`), an empty list for a reply that made
none. Reading needs only what every version wrote and the totals sum (the category, tokens, cost
and latency); ``cost_usd`` is written as null when the model has no price.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from duel.agents.tools.record import ToolCall
from duel.errors import InvalidStateError

# The keys a record cannot lack (a null cost is an unknown price, written as such).
_REQUIRED = ("category", "latency_s", "input_tokens", "output_tokens", "cached_tokens",
             "cost_usd")


@dataclass
class LLMCall:
    """One call: who was asked (provider, model, prompt variant), which attempt of the decision
    it belongs to, what became of it (`category`, `error`), the tokens, cost and latency, and
    the reply (`raw`, `thinking`, `finish_reason`). The attempt policy writes its verdict on the
    reply into `category` and `error`."""

    provider: str | None
    model: str | None
    variant: str | None
    variant_hash: str | None
    attempt: int | None  # None: only in a hand-made record
    category: str
    latency_s: float
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cache_write_tokens: int | None
    reasoning_tokens: int | None  # of the output tokens, those spent reasoning
    cost_usd: float | None  # None: the model has no price
    finish_reason: str | None
    raw: str | None
    thinking: str | None  # the thinking text or reasoning summary returned
    max_tokens: int | None  # the output limit sent
    error: str | None = None  # why the call failed or its reply was refused
    tool_calls: list[ToolCall] | None = None  # tools=on: the tool calls the reply made
    cost_source: str | None = None  # "provider": cost_usd is the provider's bill (usage.cost)
    served_model: str | None = None  # the model (snapshot) the reply names
    request_id: str | None = None  # the provider's id of the request
    retry: str | None = None  # why the previous try of the same request got no reply
    harness: str | None = None  # the seat's harness settings (harness.py's label), if set

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "tool_calls" and value is not None:
                value = [c.to_json() for c in value]
            if value is not None or f.name in _REQUIRED:
                out[f.name] = value
        return out

    @staticmethod
    def from_json(obj: Any) -> LLMCall:
        """Read :meth:`to_json`'s form (any version of it); InvalidStateError names a bad
        field."""
        if not isinstance(obj, dict):
            raise InvalidStateError("an LLM call record must be a JSON object")
        values: dict[str, Any] = {}
        for f in fields(LLMCall):
            if f.name not in obj:
                if f.name in _REQUIRED:
                    raise InvalidStateError(f"LLM call field {f.name} is missing")
                values[f.name] = None
                continue
            value = obj[f.name]
            if f.name == "tool_calls":
                if not isinstance(value, list):
                    raise InvalidStateError(f"LLM call field tool_calls must be a list, got "
                                            f"{value!r}")
                values[f.name] = [ToolCall.from_json(c) for c in value]
                continue
            if not _fits(f.name, value):
                raise InvalidStateError(f"LLM call field {f.name} must be {_KIND[f.name]}, "
                                        f"got {value!r}")
            values[f.name] = value
        return LLMCall(**values)


_INT = "an integer"
_NUMBER = "a number"
_TEXT = "a string"
_KIND: dict[str, str] = {
    "provider": _TEXT, "model": _TEXT, "variant": _TEXT, "variant_hash": _TEXT,
    "attempt": _INT, "category": _TEXT, "latency_s": _NUMBER, "input_tokens": _INT,
    "output_tokens": _INT, "cached_tokens": _INT, "cache_write_tokens": _INT,
    "reasoning_tokens": _INT, "cost_usd": "a number or null", "finish_reason": _TEXT,
    "raw": _TEXT, "thinking": _TEXT, "max_tokens": _INT, "error": _TEXT,
    "cost_source": _TEXT, "served_model": _TEXT, "request_id": _TEXT, "retry": _TEXT,
    "harness": _TEXT,
}


def _fits(name: str, value: Any) -> bool:
    kind = _KIND[name]
    if kind == _TEXT:
        return isinstance(value, str)
    if isinstance(value, bool):
        return False
    if kind == _INT:
        return isinstance(value, int)
    if kind == _NUMBER:
        return isinstance(value, int | float)
    return value is None or isinstance(value, int | float)  # a cost
