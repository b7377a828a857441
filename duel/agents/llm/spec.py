"""Building an LLM agent from what follows ``llm:`` in its spec: ``openai:MODEL``,
``anthropic:MODEL``, ``openrouter:VENDOR/MODEL``, ``compat:MODEL@URL`` or ``local``, with options
after a comma (``prompt=``, ``temperature=``, ``max_attempts=``, ``fallback=``, ``max_tokens=``,
``reasoning_effort=``, ``thinking=``, ``provider=``, ``mode=``, ...). What is not set comes from
the model table (models.py)."""

from __future__ import annotations

import os
from typing import Any

from duel.agents.builtin import LLM
from duel.agents.kinds import parse_params
from duel.agents.llm.adapt import Settings
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.harness import OPTIONS as HARNESS_OPTIONS
from duel.agents.llm.harness import THINK_TOKENS, Harness
from duel.agents.llm.local import LOCAL_DEFAULTS, LocalProvider
from duel.agents.llm.models import (
    DEFAULT_MODELS,
    REASONING_EFFORTS,
    THINKING_MIN,
    ModelFamily,
    default_max_tokens,
    family,
)
from duel.agents.llm.providers import (
    OPENROUTER_URL,
    AnthropicProvider,
    OpenAIProvider,
    provider_defaults,
)
from duel.errors import PromptError, SpecError
from duel.prompts import get_variant

PROVIDERS = ("openai", "anthropic", "openrouter", "compat", "local")
_EFFORT_PROVIDERS = ("openai", "compat", "openrouter")


def _key(env: str, provider: str) -> str:
    key = os.environ.get(env)
    if not key:
        raise SpecError(f"llm:{provider} needs the {env} environment variable")
    return key


def _endpoint(provider: str, target: str, base_url: str | None) -> str:
    """The key of the concurrency cap and of what adaptation learns: one per provider
    endpoint, whatever the model."""
    if provider == "compat":
        return "compat:" + target.partition("@")[2].rstrip("/")
    return f"{provider}:{(base_url or 'default').rstrip('/')}"


def _check_reasoning(provider: str, params: dict[str, Any]) -> None:
    """The reasoning options against the provider: SpecErrors naming the option."""
    effort, thinking = params["reasoning_effort"], params["thinking"]
    if effort is not None:
        if effort not in REASONING_EFFORTS:
            raise SpecError(f"llm: reasoning_effort must be one of "
                            f"{', '.join(REASONING_EFFORTS)}, got {effort!r}")
        if provider not in _EFFORT_PROVIDERS:
            hint = " (use thinking=N)" if provider == "anthropic" else ""
            raise SpecError(f"llm:{provider} takes no reasoning_effort{hint}; it applies to "
                            f"llm:{', llm:'.join(_EFFORT_PROVIDERS)}")
    if thinking is not None:
        if provider != "anthropic":
            hint = " (use reasoning_effort=)" if provider in _EFFORT_PROVIDERS else ""
            raise SpecError(f"llm:{provider} takes no thinking{hint}; it applies to "
                            "llm:anthropic")
        if thinking < THINKING_MIN:
            raise SpecError(f"llm: thinking must be at least {THINKING_MIN} tokens (Anthropic's "
                            f"smallest budget), got {thinking}")
        if params["temperature"] is not None:
            raise SpecError("llm:anthropic: temperature cannot be set with thinking (Anthropic "
                            "takes no temperature while it thinks)")
    if params["provider"] is not None and provider != "openrouter":
        raise SpecError(f"llm:{provider} takes no provider=; it applies to llm:openrouter")


def _settings(defaults: Settings, fam: ModelFamily | None, params: dict[str, Any]) -> Settings:
    """What calls are sent with: the spec's options, the rest from the model table."""
    thinking: int | None = params["thinking"]
    temperature: float | None = params["temperature"]
    if temperature is None and fam is not None and fam.takes_temperature and not fam.reasons \
            and not thinking:
        temperature = 0.0  # reproducible play, for models that take it
    max_tokens: int = params["max_tokens"] if params["max_tokens"] is not None \
        else default_max_tokens(fam, thinking)
    if max_tokens < 1:
        raise SpecError(f"llm: max_tokens must be at least 1, got {max_tokens}")
    if thinking:
        max_tokens = max(max_tokens, default_max_tokens(fam, thinking))
        if fam is not None and thinking >= fam.max_output:
            raise SpecError(f"llm: thinking={thinking} leaves no room for an answer under "
                            f"{fam.prefix}'s output limit of {fam.max_output} tokens")
    if fam is not None:
        max_tokens = min(max_tokens, fam.max_output)
    return Settings(defaults.mode, temperature, defaults.token_param, max_tokens,
                    params["reasoning_effort"], thinking, params["provider"],
                    "auto" if thinking or (fam is not None and not fam.forced_tool)
                    else "forced",
                    fam.max_output if fam is not None else None,
                    bool(thinking and fam is not None and fam.adaptive))


def _provider(name: str, target: str, mode: str, base_url: str | None, timeout: float) -> Any:
    example = DEFAULT_MODELS.get(name, "MODEL")
    if name == "local":
        if target:
            raise SpecError("llm:local takes no model name (it is always the shipped model)")
        return LocalProvider(mode or "json_object", timeout)
    if not target:
        raise SpecError(f"llm:{name} needs a model, e.g. llm:{name}:{example}")
    if name == "openai":
        return OpenAIProvider("openai", target, _key("OPENAI_API_KEY", "openai"), base_url,
                              mode or "json_schema", timeout)
    if name == "anthropic":
        if mode:
            raise SpecError("llm:anthropic always uses a forced tool (tool_choice auto while "
                            "thinking); mode= does not apply")
        return AnthropicProvider(target, _key("ANTHROPIC_API_KEY", "anthropic"), base_url,
                                 timeout)
    if name == "openrouter":
        return OpenAIProvider("openrouter", target, _key("OPENROUTER_API_KEY", "openrouter"),
                              base_url or OPENROUTER_URL, mode or "json_schema", timeout)
    model, sep, url = target.partition("@")
    if not sep or not model or not url.startswith(("http://", "https://")):
        raise SpecError("llm:compat needs MODEL@URL, e.g. "
                        "llm:compat:qwen2.5@http://127.0.0.1:8000/v1")
    return OpenAIProvider("compat", model, os.environ.get("DUEL_COMPAT_API_KEY", "sk-none"), url,
                          mode or "tool", timeout)


def parse_llm_spec(rest: str) -> LLMAgent:
    """Build an LLM agent from what follows `llm:` in a spec."""
    head, _, opts = rest.partition(",")
    provider_name, _, target = head.partition(":")
    if provider_name not in PROVIDERS:
        raise SpecError(f"llm: unknown provider {provider_name!r}; valid providers: "
                        f"{', '.join(PROVIDERS)} (e.g. llm:openai:{DEFAULT_MODELS['openai']}, "
                        "llm:compat:MODEL@http://127.0.0.1:8000/v1, llm:local)")
    params: dict[str, Any] = {k: p.default for k, p in LLM.params.items()}
    given = parse_params(LLM, opts)
    if provider_name == "local":
        params.update(LOCAL_DEFAULTS)  # the setting measured to play best per minute
    params.update(given)
    harness = Harness.from_options({k: params[k] for k in HARNESS_OPTIONS
                                    if params[k] is not None})
    if harness.image and provider_name == "local":
        raise SpecError("llm:local takes no images (the shipped model reads text only); "
                        "image=on needs a vision model")
    if harness.image and harness.names != "true":
        raise SpecError("llm: image=on draws the true names; it cannot go with names=renamed")
    try:
        variant = get_variant(params["prompt"])
    except PromptError as exc:
        raise SpecError(f"llm: {exc}") from None
    _check_reasoning(provider_name, params)
    base_url = params["base_url"] or None
    try:
        provider = _provider(provider_name, target, params["mode"], base_url, params["timeout"])
        fam = family(provider.model, provider_name)
        if harness.think == "text" and "max_tokens" not in given:
            # reasoning in words needs room: a plain answer's budget would cut it off
            params["max_tokens"] = max(params["max_tokens"] or default_max_tokens(
                fam, params["thinking"]), THINK_TOKENS)
        constrain = params["constrain"] or "shape"
        if constrain == "legal" and (provider_name not in ("local", "compat")
                                     or provider.mode not in ("json_object", "tool")):
            # a grammar from the schema: OpenAI's strict mode and Anthropic's tools want an
            # object at the root, not the anyOf of the legal moves
            raise SpecError("llm: constrain=legal needs llm:local or llm:compat with mode "
                            "json_object or tool")
        agent = LLMAgent(provider, variant, "llm:" + rest,
                         max_attempts=params["max_attempts"], fallback=params["fallback"],
                         transport_retries=params["transport_retries"],
                         backoff=params["backoff"], concurrency=params["concurrency"],
                         endpoint=_endpoint(provider_name, target, base_url),
                         settings=_settings(provider_defaults(provider), fam, params),
                         model_reasons=fam is not None and fam.reasons, constrain=constrain,
                         harness=harness)
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError(f"llm: {exc}") from None
    return agent
