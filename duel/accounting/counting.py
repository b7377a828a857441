"""How many input tokens an LLM seat's call sends, without sending it (and without paying).

Where the seat's provider counts tokens for free (its `token_counter` capability), it counts:
Anthropic's `messages.count_tokens` endpoint, sent the request a call sends (the rules text
marked for caching, the move tool, the thinking and effort settings, the messages). Everywhere
else, and when counting fails, the local estimate: a quarter of the characters of the rules
text, the turn message and the structured output's schema
(duel.accounting.projection.estimate_tokens), said as such. The rules text's own tokens are
counted too: it is the prefix a provider caches.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from duel.accounting.projection import CHARS_PER_TOKEN, estimate_tokens
from duel.agents.llm.schema import structured_schema

LOCAL = f"local estimate ({CHARS_PER_TOKEN} characters per token)"
_SHORTEST = [{"role": "user", "content": "."}]  # a message with next to nothing in it


@dataclass(frozen=True)
class Counted:
    """A call's input tokens, its rules text's among them, and how they were counted."""

    input_tokens: int
    rules_tokens: int
    by: str


def count(agent: Any, messages: list[dict[str, Any]]) -> Counted:
    """The input tokens of `agent` (an LLMAgent) sending `messages` after its rules text.
    Whether its provider counts is the agent's own capabilities' (`agent.caps`), so that the
    accounting reads no provider module."""
    counter = agent.caps.token_counter
    if counter:
        try:
            from duel.agents import runner

            full = runner.run(_count(agent, messages))
            rules = runner.run(_count(agent, _SHORTEST))
            return Counted(full, min(full, rules), f"{counter} endpoint (free)")
        except Exception as exc:  # noqa: BLE001 - any failure: the local estimate, said why
            local = estimate(agent, messages)
            why = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
            return Counted(local.input_tokens, local.rules_tokens,
                           f"{LOCAL}: {counter} failed ({why})")
    return estimate(agent, messages)


def estimate(agent: Any, messages: list[dict[str, Any]]) -> Counted:
    """The local estimate: the rules text, the messages' text and the schema of the reply."""
    rules = estimate_tokens(agent.variant.system)
    said = sum(estimate_tokens(_text(m.get("content"))) for m in messages)
    mode = agent.effective_settings().mode
    schema = estimate_tokens(json.dumps(structured_schema())) if mode in ("json_schema",
                                                                          "tool") else 0
    return Counted(rules + said + schema, rules, LOCAL)


async def _count(agent: Any, messages: list[dict[str, Any]]) -> int:
    """The provider's count of the request a call of `agent` sends (its own client, key,
    endpoint and settings: counting is its API too)."""
    found: int = await agent.provider.count_tokens(agent.variant.system, messages,
                                                   agent.effective_settings())
    return found


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content or []
                   if isinstance(part, dict))
