"""The tool loop (toolloop.py) on OpenAI's Responses API: the tool set as Responses function
tools, and the answers to a reply's calls as ``function_call_output`` items.

What goes back is what the API documents for a stateless conversation (``store: false``, as
duel sends every request): the reply's output items as they came, the ``reasoning`` item
(with the ``encrypted_content`` asked for by ``include: ["reasoning.encrypted_content"]``)
before the ``function_call`` items it led to, then one ``function_call_output`` per call,
naming its ``call_id``. A reasoning model keeps its reasoning across the calls of a turn so,
and the API refuses a function call given back without the reasoning item it followed.
"""

from __future__ import annotations

import json
from typing import Any

API = "responses"
INCLUDE = ["reasoning.encrypted_content"]  # reasoning a stateless request can give back


def specs(tools: Any) -> tuple[dict[str, Any], ...]:
    """The tool set as Responses function tools (not strict: make_move's schema has optional
    fields, which strict mode forbids)."""
    return tuple({"type": "function", "name": t.name, "description": t.description,
                  "parameters": t.schema(), "strict": False} for t in tools)


def results(answers: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One ``function_call_output`` item per (call_id, answer)."""
    return [{"type": "function_call_output", "call_id": call_id,
             "output": json.dumps(answer, separators=(",", ":"))}
            for call_id, answer in answers]
