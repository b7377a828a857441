"""LLM agents: spec parsing for `llm:openai:MODEL`, `llm:anthropic:MODEL`,
`llm:compat:MODEL@URL` and `llm:local`, with options after a comma
(`prompt=`, `temperature=`, `max_attempts=`, `fallback=`, `max_tokens=`, `mode=`, ...)."""

from __future__ import annotations

import os
from typing import Any

from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.providers import AnthropicProvider, OpenAIProvider, Reply
from duel.agents.spec import AgentKind, Param, parse_params
from duel.errors import LLMConfigError, PromptError, SpecError
from duel.prompts import get_variant

PROVIDERS = ("openai", "anthropic", "compat", "local")
LLM_PARAMS: dict[str, Param] = {
    "prompt": Param(str, "baseline", "prompt variant (duel prompts list)"),
    "temperature": Param(float, 0.0, "sampling temperature"),
    "max_attempts": Param(int, 3, "attempts per move before the fallback"),
    "fallback": Param(str, "random", "after the last attempt: forfeit, random or rule"),
    "max_tokens": Param(int, 400, "output token limit per call"),
    "mode": Param(str, "", "structured output: json_schema, tool, json_object or text"),
    "base_url": Param(str, "", "API endpoint (openai, anthropic)"),
    "concurrency": Param(int, 8, "concurrent calls to this endpoint"),
    "transport_retries": Param(int, 6, "retries of a failed connection, 429 or 5xx"),
    "backoff": Param(float, 1.0, "first backoff in seconds (doubles each retry)"),
    "timeout": Param(float, 600.0, "seconds per call"),
}
_KIND_FOR_PARAMS = AgentKind("llm", "an LLM player", LLM_PARAMS, lambda **_: None)  # type: ignore


class LocalProvider:
    """The OpenAI-compatible provider of the local llama.cpp server, started on first use."""

    def __init__(self, mode: str, timeout: float) -> None:
        if mode not in ("tool", "json_object", "text"):
            # llama.cpp's server rejects response_format json_schema
            raise SpecError("llm:local: mode must be tool, json_object or text")
        self.name = "local"
        self.model = "local"
        self.mode = mode
        self.timeout = timeout
        self._inner: OpenAIProvider | None = None
        self._url = ""

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float) -> Reply:
        import asyncio

        from duel.agents.llm.local import LocalServer

        # Started on first use; started again (on a new port) if it died since.
        url = await asyncio.to_thread(LocalServer.shared().ensure_started)
        if self._inner is None or url != self._url:
            if self._inner is not None:
                await self._inner.close()
            self._inner = OpenAIProvider("local", "local", "sk-local", url, self.mode,
                                         self.timeout)
            self._url = url
        return await self._inner.complete(system, messages, max_tokens, temperature)

    async def close(self) -> None:
        if self._inner is not None:
            await self._inner.close()


def _key(env: str, provider: str) -> str:
    key = os.environ.get(env)
    if not key:
        raise SpecError(f"llm:{provider} needs the {env} environment variable")
    return key


def _endpoint(provider: str, target: str, base_url: str | None) -> str:
    """The key of the concurrency cap: one per provider endpoint, whatever the model."""
    if provider == "compat":
        return "compat:" + target.partition("@")[2].rstrip("/")
    return f"{provider}:{(base_url or 'default').rstrip('/')}"


def parse_llm_spec(rest: str) -> LLMAgent:
    """Build an LLM agent from what follows `llm:` in a spec."""
    head, _, opts = rest.partition(",")
    provider_name, _, target = head.partition(":")
    if provider_name not in PROVIDERS:
        raise SpecError(f"llm: unknown provider {provider_name!r}; valid providers: "
                        f"{', '.join(PROVIDERS)} (e.g. llm:openai:gpt-4o-mini, "
                        "llm:compat:MODEL@http://127.0.0.1:8000/v1, llm:local)")
    params: dict[str, Any] = {k: p.default for k, p in LLM_PARAMS.items()}
    params.update(parse_params(_KIND_FOR_PARAMS, opts))
    try:
        variant = get_variant(params["prompt"])
    except PromptError as exc:
        raise SpecError(f"llm: {exc}") from None
    mode = params["mode"]
    base_url = params["base_url"] or None
    timeout = params["timeout"]
    provider: Any
    try:
        if provider_name == "local":
            if target:
                raise SpecError("llm:local takes no model name (it is always the shipped model)")
            provider = LocalProvider(mode or "json_object", timeout)
        elif not target:
            raise SpecError(f"llm:{provider_name} needs a model, e.g. llm:{provider_name}:"
                            + ("gpt-4o-mini" if provider_name != "anthropic"
                               else "claude-sonnet-4-5"))
        elif provider_name == "openai":
            provider = OpenAIProvider("openai", target, _key("OPENAI_API_KEY", "openai"),
                                      base_url, mode or "json_schema", timeout)
        elif provider_name == "anthropic":
            if mode:
                raise SpecError("llm:anthropic always uses a forced tool; mode= does not apply")
            provider = AnthropicProvider(target, _key("ANTHROPIC_API_KEY", "anthropic"),
                                         base_url, timeout)
        else:
            model, sep, url = target.partition("@")
            if not sep or not model or not url.startswith(("http://", "https://")):
                raise SpecError("llm:compat needs MODEL@URL, e.g. "
                                "llm:compat:qwen2.5@http://127.0.0.1:8000/v1")
            provider = OpenAIProvider("compat", model,
                                      os.environ.get("DUEL_COMPAT_API_KEY", "sk-none"), url,
                                      mode or "tool", timeout)
        agent = LLMAgent(provider, variant, "llm:" + rest, params["temperature"],
                         params["max_attempts"], params["fallback"], params["max_tokens"],
                         params["transport_retries"], params["backoff"],
                         params["concurrency"],
                         endpoint=_endpoint(provider_name, target, base_url))
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError(f"llm: {exc}") from None
    return agent


KIND = AgentKind("llm", "an LLM player: llm:openai:MODEL, llm:anthropic:MODEL, "
                 "llm:compat:MODEL@URL, llm:local", LLM_PARAMS, lambda **_: None,  # type: ignore
                 custom_parser=parse_llm_spec)

__all__ = ["KIND", "LLMAgent", "LLMConfigError", "parse_llm_spec"]
