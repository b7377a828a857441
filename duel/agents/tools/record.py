"""The record of one tool call, as a move's details keep it: in an LLM call's record
(``details.llm.calls[i].tool_calls``, the calls that reply made) and in a move made over MCP
(``details.tool_calls``, the look-ups before it).

Its JSON form is the transcript's: ``tool``, then ``arguments`` (the object the tool took) or
``raw`` (arguments that were not a JSON object, as sent, cut at 300 characters), ``repairs``
(the slips of the client repaired before the arguments were checked, one line each: an object
sent as a JSON string, say; `duel.agents.tools.lenient`), ``chars``
(the size of the answer sent back, in characters of JSON), ``error`` (why the call was
refused), ``seconds`` (the time the tool took). Keys without a value are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from duel.errors import InvalidStateError

RAW_LIMIT = 300  # characters of unreadable arguments kept in the record


@dataclass
class ToolCall:
    """One call of a tool: its name, its arguments, the size of its answer or why it was
    refused, and its time."""

    tool: str
    arguments: dict[str, Any] | None = None
    raw: str | None = None  # the arguments as sent, when they were not a JSON object
    repairs: list[str] | None = None  # the client's slips repaired (lenient.loosen)
    chars: int | None = None  # characters of JSON in the answer
    error: str | None = None
    seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}

    @staticmethod
    def from_json(obj: Any) -> ToolCall:
        """Read :meth:`to_json`'s form; InvalidStateError names a bad field."""
        if not isinstance(obj, dict):
            raise InvalidStateError("a tool call record must be a JSON object")
        unknown = sorted(set(obj) - {f.name for f in fields(ToolCall)})
        if unknown:
            raise InvalidStateError(f"tool call record has unknown field(s) {unknown}")
        if not isinstance(obj.get("tool"), str):
            raise InvalidStateError("tool call field tool must be a string")
        checks: dict[str, tuple[type | tuple[type, ...], str]] = {
            "arguments": (dict, "an object"), "raw": (str, "a string"),
            "chars": (int, "an integer"), "error": (str, "a string"),
            "seconds": ((int, float), "a number")}
        for key, (kind, words) in checks.items():
            value = obj.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
                raise InvalidStateError(f"tool call field {key} must be {words}, got {value!r}")
        repairs = obj.get("repairs")
        if repairs is not None and not (isinstance(repairs, list)
                                        and all(isinstance(r, str) for r in repairs)):
            raise InvalidStateError(f"tool call field repairs must be a list of strings, got "
                                    f"{repairs!r}")
        return ToolCall(**obj)
