"""An in-process LLM provider that replies with given texts: for tests that need LLM seats
without a server."""

from __future__ import annotations

from typing import Any

from duel.agents.llm.providers import Reply
from duel.agents.llm.transport.adapt import Settings


class ScriptedProvider:
    """In-process provider for property tests: replies with the given texts in turn."""

    name = "scripted"
    model = "scripted"

    def __init__(self, texts: list[str], finish: str = "stop") -> None:
        self.texts = texts
        self.finish = finish

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None) -> Reply:
        text = self.texts.pop(0) if self.texts else ""
        return Reply(text, None, self.finish, 10, 5, 0)

    async def close(self) -> None:
        pass
