"""Building an LLM agent from what follows ``llm:`` in its spec: ``openai:MODEL``,
``anthropic:MODEL``, ``openrouter:VENDOR/MODEL``, ``compat:MODEL@URL`` or ``local``, with options
after a comma (``prompt=``, ``temperature=``, ``max_attempts=``, ``fallback=``, ``max_tokens=``,
``reasoning_effort=``, ``thinking=``, ``provider=``, ``mode=``, ``tools=``, ``tool_steps=``, ...).
What is not set comes from the model table (models.py)."""

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
    ANSWER_TOKENS,
    CLAUDE_EFFORTS,
    DEFAULT_MODELS,
    PROVIDER_MAX_OUTPUT,
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
from duel.agents.llm.toolloop import DEFAULT_TOOL_STEPS, TOOL_SETTINGS, ToolAgent, dialect
from duel.errors import PromptError, SpecError
from duel.prompts import get_variant

PROVIDERS = ("openai", "anthropic", "openrouter", "compat", "local")
_EFFORT_PROVIDERS = ("openai", "anthropic", "compat", "openrouter")
THINKING_FORMS = ("adaptive", "budget")


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
            raise SpecError(f"llm:{provider} takes no reasoning_effort; it applies to "
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
    form = params["thinking_form"]
    if form is not None:
        if provider != "anthropic":
            raise SpecError(f"llm:{provider} takes no thinking_form; it applies to llm:anthropic")
        if form not in THINKING_FORMS:
            raise SpecError(f"llm: thinking_form must be adaptive or budget, got {form!r}")


def _claude(fam: ModelFamily | None, model: str, params: dict[str, Any]) -> ModelFamily:
    """How a Claude model takes thinking and effort: the table's entry, or for a model it does
    not know the spec's thinking_form (needed only when a reasoning option is set). SpecErrors
    name the option to set, before any money is spent."""
    effort, thinking, form = params["reasoning_effort"], params["thinking"], params["thinking_form"]
    if fam is not None and form is not None:
        raise SpecError(f"llm:anthropic: thinking_form is for a model duel's table does not "
                        f"know; it knows {model} ({fam.prefix})")
    if fam is None:
        if form is None and (effort is not None or thinking is not None):
            option = "reasoning_effort" if effort is not None else "thinking"
            raise SpecError(
                f"llm:anthropic: duel's model table does not know {model}, so not how it takes "
                f"{option}; add thinking_form=adaptive (Claude Opus 4.7 and later, the 5th "
                "generation: reasoning_effort=low|medium|high|max) or thinking_form=budget "
                "(earlier models: thinking=N)")
        adaptive = form == "adaptive"
        # An adaptive model is taken to think as the table's adaptive models do (on by default,
        # its text omitted unless asked for): so the thinking request, with its summary, is
        # sent without an effort too, else such a model records no thinking at all.
        fam = ModelFamily(model, "anthropic", adaptive, True, "max_tokens", "tool", True, 0, 0,
                          thinking=True, adaptive=adaptive, adaptive_ok=adaptive,
                          efforts=CLAUDE_EFFORTS if adaptive else (), omits_thinking=adaptive)
    if effort is not None and effort not in fam.efforts:
        if not fam.efforts:
            raise SpecError(f"llm:anthropic: {model} takes no reasoning_effort (Anthropic's "
                            "output_config.effort); use thinking=N for extended thinking")
        raise SpecError(f"llm:anthropic: {model} takes reasoning_effort "
                        f"{', '.join(fam.efforts)}, got {effort!r}")
    if thinking is not None and fam.adaptive:
        raise SpecError(f"llm:anthropic: {model} takes no thinking budget (adaptive thinking "
                        f"only); set reasoning_effort={'|'.join(fam.efforts)} instead")
    return fam


def _default_label(fam: ModelFamily | None) -> str:
    """What a result is labelled with when the spec sets no reasoning option."""
    if fam is None or fam.default_reasoning is None:
        return "unknown (provider default)"
    if fam.default_reasoning == "none":
        return "no reasoning"
    return f"{fam.default_reasoning} (provider default)"


def _settings(defaults: Settings, fam: ModelFamily | None, params: dict[str, Any],
              claude: ModelFamily | None = None, provider: str = "") -> Settings:
    """What calls are sent with: the spec's options, the rest from the model table (`claude`:
    how a Claude model takes thinking, from _claude)."""
    thinking: int | None = params["thinking"]
    effort = params["reasoning_effort"]
    # Adaptive thinking is sent for an effort, and on a model that thinks anyway (so that the
    # thinking text can be asked for as a summary); never with a budget.
    adaptive = claude is not None and claude.adaptive_ok and not thinking and (
        effort is not None or claude.reasons)
    display = "summarized" if claude is not None and claude.omits_thinking and (
        adaptive or thinking) else None
    temperature: float | None = params["temperature"]
    if temperature is not None and adaptive:
        raise SpecError("llm:anthropic: temperature cannot be set with reasoning_effort "
                        "(Anthropic takes no temperature while it thinks)")
    if temperature is None and fam is not None and fam.takes_temperature and not fam.reasons \
            and not thinking and not adaptive:
        temperature = 0.0  # reproducible play, for models that take it
    max_tokens: int = params["max_tokens"] if params["max_tokens"] is not None \
        else default_max_tokens(fam, thinking, effort not in (None, "none") or adaptive)
    if max_tokens < 1:
        raise SpecError(f"llm: max_tokens must be at least 1, got {max_tokens}")
    if thinking:
        max_tokens = max(max_tokens, thinking + ANSWER_TOKENS)  # room for an answer
        if fam is not None and thinking >= fam.max_output:
            raise SpecError(f"llm: thinking={thinking} leaves no room for an answer under "
                            f"{fam.prefix}'s output limit of {fam.max_output} tokens")
    if fam is not None:
        max_tokens = min(max_tokens, fam.max_output)
    return Settings(defaults.mode, temperature, defaults.token_param, max_tokens,
                    effort, thinking, params["provider"],
                    "auto" if thinking or adaptive or (fam is not None and not fam.forced_tool)
                    else "forced",
                    fam.max_output if fam is not None else None, adaptive, display,
                    None if effort is not None or thinking else _default_label(fam),
                    grow_to=None if params["max_tokens"] is not None
                    else fam.max_output if fam is not None
                    else PROVIDER_MAX_OUTPUT.get(provider))


APIS = ("chat", "responses")


def _provider(name: str, target: str, mode: str, base_url: str | None, timeout: float,
              api: str = "") -> Any:
    example = DEFAULT_MODELS.get(name, "MODEL")
    if api and name != "openai":
        raise SpecError(f"llm:{name} takes no api=; it applies to llm:openai (OpenRouter and "
                        "compatible servers speak Chat Completions)")
    if api and api not in APIS:
        raise SpecError(f"llm:openai: api must be chat or responses, got {api!r}")
    if name == "local":
        if target:
            raise SpecError("llm:local takes no model name (it is always the shipped model)")
        return LocalProvider(mode or "json_schema", timeout)
    if not target:
        raise SpecError(f"llm:{name} needs a model, e.g. llm:{name}:{example}")
    if name == "openai" and api != "chat":  # the Responses API is OpenAI's default
        from duel.agents.llm.responses import ResponsesProvider

        fam = family(target)
        return ResponsesProvider(target, _key("OPENAI_API_KEY", "openai"), base_url,
                                 mode or "json_schema", timeout, fam is None or fam.reasons)
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
    # json_schema: what llama.cpp, vLLM and Ollama all enforce (a forced tool llama.cpp and
    # Ollama ignore); a server that refuses it falls back in its own order (servers.py)
    return OpenAIProvider("compat", model, os.environ.get("DUEL_COMPAT_API_KEY", "sk-none"), url,
                          mode or "json_schema", timeout)


def _server(settings: Settings, provider_name: str, provider: Any, server: str | None,
            constrain: str) -> Settings:
    """The compatible server's kind when the spec names it (`server=`; else it is looked up at
    the first call, servers.py), and constrain=legal refused at once where it would not hold."""
    from dataclasses import replace

    from duel.agents.llm.servers import check_spec, kind_named

    if server is not None and provider_name != "compat":
        raise SpecError(f"llm:{provider_name} takes no server=; it applies to llm:compat")
    if provider_name == "local":
        server = "llamacpp"  # the server duel runs
    if server is None:
        return settings
    kind = kind_named(server)
    if constrain == "legal":
        check_spec(kind, provider.mode, getattr(provider, "base_url", "") or "llm:local")
    return replace(settings, server=kind.name)


def _tool_steps(provider: str, params: dict[str, Any], given: dict[str, Any]) -> int:
    """The look-ups per turn with tools=on, 0 with tools off; SpecErrors naming the option.
    With tools on, llm:local's constrained output is not its default (the tools are the
    output), and an explicit `mode=` or `constrain=legal` is refused."""
    tools = params["tools"]
    if tools not in TOOL_SETTINGS:
        raise SpecError(f"llm: tools must be one of {', '.join(TOOL_SETTINGS)}, got {tools!r}")
    steps = params["tool_steps"]
    if tools == "off":
        if steps is not None:
            raise SpecError("llm: tool_steps applies with tools=on")
        return 0
    dialect(provider)
    if steps is None:
        steps = DEFAULT_TOOL_STEPS
    if steps < 1:
        raise SpecError(f"llm: tool_steps must be at least 1, got {steps}")
    if given.get("mode"):
        raise SpecError("llm: mode= does not apply with tools=on (the model answers through "
                        "the tools, or with the move JSON as text)")
    if given.get("constrain") == "legal":
        raise SpecError("llm: constrain=legal does not apply with tools=on (make_move takes "
                        "any well-formed move and the engine judges it)")
    params["constrain"] = "shape"
    return int(steps)


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
    tool_steps = _tool_steps(provider_name, params, given)
    harness = Harness.from_options({k: params[k] for k in HARNESS_OPTIONS
                                    if params[k] is not None})
    if harness.image and provider_name == "local":
        raise SpecError("llm:local takes no images (the shipped model reads text only); "
                        "image=on needs a vision model")
    if harness.image and harness.names != "true":
        raise SpecError("llm: image=on draws the true names; it cannot go with names=renamed")
    if tool_steps and harness.names != "true":
        raise SpecError("llm: tools=on answers in the true names (the tool set's); it cannot go "
                        "with names=renamed")
    try:
        variant = get_variant(params["prompt"])
    except PromptError as exc:
        raise SpecError(f"llm: {exc}") from None
    _check_reasoning(provider_name, params)
    base_url = params["base_url"] or None
    try:
        provider = _provider(provider_name, target, params["mode"], base_url, params["timeout"],
                             params["api"])
        fam = family(provider.model, provider_name)
        if harness.image and fam is not None and fam.vision is False:
            raise SpecError(f"llm: {provider.model} takes no images (the model table lists "
                            f"{fam.prefix} as text only); image=on needs a vision model")
        claude = _claude(fam, provider.model, params) if provider_name == "anthropic" else None
        if harness.think == "text" and "max_tokens" not in given:
            # reasoning in words needs room: a plain answer's budget would cut it off
            params["max_tokens"] = max(params["max_tokens"] or default_max_tokens(
                fam, params["thinking"]), THINK_TOKENS)
        constrain = params["constrain"] or "shape"
        settings = _settings(provider_defaults(provider), fam, params, claude, provider_name)
        if constrain == "legal" and (provider_name not in ("local", "compat")
                                     or provider.mode == "text"):
            # a grammar from the schema: OpenAI's strict mode and Anthropic's tools want an
            # object at the root, not the anyOf of the legal moves
            raise SpecError("llm: constrain=legal needs llm:local or llm:compat with mode "
                            "json_schema, json_object or tool")
        settings = _server(settings, provider_name, provider, params["server"], constrain)
        extra: dict[str, Any] = {"tool_steps": tool_steps} if tool_steps else {}
        agent = (ToolAgent if tool_steps else LLMAgent)(provider, variant, "llm:" + rest,
                         max_attempts=params["max_attempts"], fallback=params["fallback"],
                         stop_after=params["stop_after"],
                         transport_retries=params["transport_retries"],
                         backoff=params["backoff"], concurrency=params["concurrency"],
                         endpoint=_endpoint(provider_name, target, base_url),
                         settings=settings, model_reasons=fam is not None and fam.reasons,
                         constrain=constrain, harness=harness, **extra)
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError(f"llm: {exc}") from None
    return agent
