"""Building an LLM agent from what follows ``llm:`` in its spec: ``openai:MODEL``,
``anthropic:MODEL``, ``compat:MODEL@URL`` or ``local``, with options after a comma (``prompt=``,
``temperature=``, ``max_attempts=``, ``fallback=``, ``max_tokens=``, ``mode=``, ...)."""

from __future__ import annotations

import os
from typing import Any

from duel.agents.builtin import LLM
from duel.agents.kinds import parse_params
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.local import LOCAL_DEFAULTS, LocalProvider
from duel.agents.llm.providers import AnthropicProvider, OpenAIProvider
from duel.errors import PromptError, SpecError
from duel.prompts import get_variant

PROVIDERS = ("openai", "anthropic", "compat", "local")


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
    params: dict[str, Any] = {k: p.default for k, p in LLM.params.items()}
    given = parse_params(LLM, opts)
    if provider_name == "local":
        params.update(LOCAL_DEFAULTS)  # the setting measured to play best per minute
    params.update(given)
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
        constrain = params["constrain"] or "shape"
        if constrain == "legal" and (provider_name not in ("local", "compat")
                                     or provider.mode not in ("json_object", "tool")):
            # a grammar from the schema: OpenAI's strict mode and Anthropic's tools want an
            # object at the root, not the anyOf of the legal moves
            raise SpecError("llm: constrain=legal needs llm:local or llm:compat with mode "
                            "json_object or tool")
        agent = LLMAgent(provider, variant, "llm:" + rest, params["temperature"],
                         params["max_attempts"], params["fallback"], params["max_tokens"],
                         params["transport_retries"], params["backoff"],
                         params["concurrency"],
                         endpoint=_endpoint(provider_name, target, base_url),
                         constrain=constrain)
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError(f"llm: {exc}") from None
    return agent
