"""`llm:local`: the shipped small model on llama.cpp's OpenAI-compatible server, which
duel starts on loopback at the first call (duel.agents.llm.servers.local), spoken to through Chat
Completions with the prompt slot of its prefix (`id_slot`: a game's turns reuse one slot's
cache)."""

from __future__ import annotations

import asyncio
from typing import Any

from duel.agents.llm.providers.base import Reply
from duel.agents.llm.providers.openai_chat import OpenAIProvider
from duel.agents.llm.providers.registry import KINDS, BuildOptions
from duel.agents.llm.servers.local import LocalServer, prompt_prefix
from duel.agents.llm.transport.adapt import Settings
from duel.errors import SpecError


def build(target: str, o: BuildOptions) -> LocalProvider:
    if target:
        raise SpecError("llm:local takes no model name (it is always the shipped model)")
    return LocalProvider(o.mode or "json_schema", o.timeout)


class LocalProvider:
    """The OpenAI-compatible provider of the local llama.cpp server, started on first use."""

    caps = KINDS["local"].caps

    def __init__(self, mode: str, timeout: float) -> None:
        if mode not in ("json_schema", "tool", "json_object", "text"):
            raise SpecError("llm:local: mode must be json_schema, tool, json_object or text")
        self.name = "local"
        self.model = "local"
        self.mode = mode
        self.timeout = timeout
        self._inner: OpenAIProvider | None = None
        self._url = ""

    async def complete(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None,
                       tools: list[dict[str, Any]] | None = None) -> Reply:
        # Started on first use; started again (on a new port) if it died since.
        server = LocalServer.shared()
        url = await asyncio.to_thread(server.ensure_started)
        server.calls += 1
        if self._inner is None or url != self._url:
            if self._inner is not None:
                await self._inner.close()
            self._inner = OpenAIProvider("local", "local", "sk-local", url, self.mode,
                                         self.timeout, caps=self.caps)
            self._url = url
        prefix = prompt_prefix(system, messages, tools)
        return await self._inner.complete(system, messages, max_tokens, temperature,
                                          schema=schema, settings=settings, tools=tools,
                                          extra_body={"id_slot": server.slot_for(prefix)})

    def status_note(self) -> str | None:
        return LocalServer.shared().status_note()

    async def close(self) -> None:
        if self._inner is not None:
            await self._inner.close()
