"""Building an LLM agent from what follows ``llm:`` in its spec: ``openai:MODEL``,
``anthropic:MODEL``, ``openrouter:VENDOR/MODEL``, ``compat:MODEL@URL`` or ``local``, with options
after a comma (``prompt=``, ``temperature=``, ``max_attempts=``, ``fallback=``, ``max_tokens=``,
``reasoning_effort=``, ``thinking=``, ``provider=``, ``mode=``, ``tools=``, ``tool_steps=``, ...).
What is not set comes from the model table (models.py); what each provider takes, from its row
in the provider registry (providers/registry.py)."""

from __future__ import annotations

from typing import Any

from duel.agents.builtin import LLM
from duel.agents.kinds import load, parse_params
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.models import (
    ANSWER_TOKENS,
    REASONING_EFFORTS,
    ModelFamily,
    default_max_tokens,
    family,
)
from duel.agents.llm.models import LOCAL as SHIPPED_MODEL
from duel.agents.llm.providers.base import provider_defaults
from duel.agents.llm.providers.registry import (
    BuildOptions,
    ProviderKind,
    provider_kind,
    taking,
)
from duel.agents.llm.toolloop import DEFAULT_TOOL_STEPS, TOOL_SETTINGS, ToolAgent, dialect
from duel.agents.llm.transport.adapt import Settings
from duel.errors import PromptError, SpecError
from duel.prompts import get_variant
from duel.prompts.harness import OPTIONS as HARNESS_OPTIONS
from duel.prompts.harness import THINK_TOKENS, Harness


def _endpoint(kind: ProviderKind, target: str, base_url: str | None) -> str:
    """The key of the concurrency cap and of what adaptation learns: one per provider
    endpoint, whatever the model."""
    if kind.endpoint_in_target:
        return f"{kind.name}:" + target.partition("@")[2].rstrip("/")
    return f"{kind.name}:{(base_url or 'default').rstrip('/')}"


def _applies(option: str) -> str:
    return "llm:" + ", llm:".join(taking(option))


def _check_reasoning(kind: ProviderKind, params: dict[str, Any]) -> None:
    """The reasoning and provider-only options against the provider: SpecErrors naming the
    option, before anything is built."""
    name, takes = kind.name, kind.caps.reasoning
    effort, thinking = params["reasoning_effort"], params["thinking"]
    if effort is not None:
        if effort not in REASONING_EFFORTS:
            raise SpecError(f"llm: reasoning_effort must be one of "
                            f"{', '.join(REASONING_EFFORTS)}, got {effort!r}")
        if "reasoning_effort" not in takes:
            raise SpecError(f"llm:{name} takes no reasoning_effort; it applies to "
                            f"{_applies('reasoning_effort')}")
    if thinking is not None and "thinking" not in takes:
        hint = " (use reasoning_effort=)" if "reasoning_effort" in takes else ""
        raise SpecError(f"llm:{name} takes no thinking{hint}; it applies to "
                        f"{_applies('thinking')}")
    if params["thinking_form"] is not None and "thinking_form" not in takes:
        raise SpecError(f"llm:{name} takes no thinking_form; it applies to "
                        f"{_applies('thinking_form')}")
    for option, given in (("provider", params["provider"] is not None),
                          ("server", params["server"] is not None),
                          ("api", bool(params["api"])),
                          ("cache", params["cache"] is not None)):
        if given and option not in kind.options:
            raise SpecError(f"llm:{name} takes no {option}=; it applies to {_applies(option)}")
    if kind.check:
        load(kind.check, f"llm:{name}")(params)


def _default_label(fam: ModelFamily | None) -> str:
    """What a result is labelled with when the spec sets no reasoning option."""
    if fam is None or fam.default_reasoning is None:
        return "unknown (provider default)"
    if fam.default_reasoning == "none":
        return "no reasoning"
    return f"{fam.default_reasoning} (provider default)"


def _settings(defaults: Settings, fam: ModelFamily | None, params: dict[str, Any],
              claude: ModelFamily | None = None, provider_max: int | None = None) -> Settings:
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
                    else provider_max)


def _provider(kind: ProviderKind, target: str, params: dict[str, Any]) -> Any:
    """The provider object of `kind` for the spec's target (its model, or MODEL@URL)."""
    if not target and not kind.shipped:
        example = kind.example or "MODEL"
        raise SpecError(f"llm:{kind.name} needs a model, e.g. llm:{kind.name}:{example}")
    return kind.builder()(target, BuildOptions(params["mode"], params["base_url"] or None,
                                               params["timeout"], params["api"],
                                               params["cache"] or ""))


def _server(settings: Settings, kind: ProviderKind, provider: Any, server: str | None,
            constrain: str) -> Settings:
    """The compatible server's kind when the spec names it (`server=`; else it is looked up at
    the first call, servers.py), and constrain=legal refused at once where it would not hold."""
    from dataclasses import replace

    from duel.agents.llm.servers.compat import check_spec, kind_named

    if kind.caps.known_server:
        server = kind.caps.known_server  # the server duel runs
    if server is None:
        return settings
    found = kind_named(server)
    if constrain == "legal":
        check_spec(found, provider.mode, getattr(provider, "base_url", "") or f"llm:{kind.name}")
    return replace(settings, server=found.name)


def _tool_steps(kind: ProviderKind, params: dict[str, Any], given: dict[str, Any]) -> int:
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
    dialect(kind)
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
    kind = provider_kind(provider_name)
    params: dict[str, Any] = {k: p.default for k, p in LLM.params.items()}
    given = parse_params(LLM, opts)
    params.update(kind.defaults)  # what the provider's seats play with unless told otherwise
    params.update(given)
    tool_steps = _tool_steps(kind, params, given)
    harness = Harness.from_options({k: params[k] for k in HARNESS_OPTIONS
                                    if params[k] is not None})
    if harness.image and kind.no_images:
        raise SpecError(f"llm:{kind.name} takes no images ({kind.no_images}); "
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
    _check_reasoning(kind, params)
    try:
        provider = _provider(kind, target, params)
        fam = SHIPPED_MODEL if kind.shipped else family(provider.model)
        if harness.image and fam is not None and fam.vision is False:
            raise SpecError(f"llm: {provider.model} takes no images (the model table lists "
                            f"{fam.prefix} as text only); image=on needs a vision model")
        tuned = load(kind.reasoning_family, f"llm:{kind.name}")(fam, provider.model, params) \
            if kind.reasoning_family else None
        if harness.think == "text" and "max_tokens" not in given:
            # reasoning in words needs room: a plain answer's budget would cut it off
            params["max_tokens"] = max(params["max_tokens"] or default_max_tokens(
                fam, params["thinking"]), THINK_TOKENS)
        constrain = params["constrain"] or "shape"
        settings = _settings(provider_defaults(provider), fam, params, tuned, kind.max_output)
        if constrain == "legal" and (not kind.caps.grammar or provider.mode == "text"):
            # a grammar from the schema: OpenAI's strict mode and Anthropic's tools want an
            # object at the root, not the anyOf of the legal moves
            raise SpecError("llm: constrain=legal needs llm:local or llm:compat with mode "
                            "json_schema, json_object or tool")
        settings = _server(settings, kind, provider, params["server"], constrain)
        extra: dict[str, Any] = {"tool_steps": tool_steps} if tool_steps else {}
        agent = (ToolAgent if tool_steps else LLMAgent)(provider, variant, "llm:" + rest,
                         max_attempts=params["max_attempts"], fallback=params["fallback"],
                         stop_after=params["stop_after"],
                         transport_retries=params["transport_retries"],
                         backoff=params["backoff"], concurrency=params["concurrency"],
                         endpoint=_endpoint(kind, target, params["base_url"] or None),
                         settings=settings, model_reasons=fam is not None and fam.reasons,
                         constrain=constrain, harness=harness, **extra)
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError(f"llm: {exc}") from None
    return agent
