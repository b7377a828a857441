"""The providers an ``llm:`` spec names, as a lazy registry (the shape of duel.agents.kinds):
each row says what the spec may set for it and names its module's builder as
``"module:function"``, imported when an agent of that provider is first built, so that
reading the table imports no SDK. Adding a provider is one module and one row here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from duel.agents.kinds import load
from duel.agents.llm.providers.base import PLAIN, Capabilities
from duel.errors import SpecError

_HERE = "duel.agents.llm.providers"


@dataclass(frozen=True)
class BuildOptions:
    """What a builder gets besides the spec's text after ``PROVIDER:``: the options that
    change the client (mode=, base_url=, timeout=, api=, cache=), as the spec gave them."""

    mode: str = ""
    base_url: str | None = None
    timeout: float = 600.0
    api: str = ""
    cache: str = ""


@dataclass(frozen=True)
class ProviderKind:
    """One provider of ``llm:NAME:...``. `caps`: its capabilities (a built provider may carry
    its own: OpenAI's Responses API speaks another tool dialect than its Chat Completions).
    `options`: the provider-only spec options it takes (api, provider, server). `example`: the
    model named in examples and errors. `max_output`: the largest output any current model of
    it takes (how far a reply cut off while reasoning may grow the budget of a model the table
    does not know); None: four times the start. `shipped`: the model is duel's own (no model
    name). `no_images`: why image=on is refused, if it is. `defaults`: spec options its seats
    play with unless the spec says otherwise. `endpoint_in_target`: the spec's ``MODEL@URL``
    names the endpoint. `check`: a ``"module:function"`` (params) that checks its own options
    before anything is built; `reasoning_family`: one (fam, model, params) that checks the
    reasoning options against the model and returns the family it reasons as (Claude's
    thinking forms), once the provider is built."""

    name: str
    build: str
    caps: Capabilities = PLAIN
    key_env: str = ""
    example: str = ""
    options: tuple[str, ...] = ()
    max_output: int | None = None
    shipped: bool = False
    no_images: str = ""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    endpoint_in_target: bool = False
    check: str = ""
    reasoning_family: str = ""

    def builder(self) -> Callable[[str, BuildOptions], Any]:
        built: Callable[[str, BuildOptions], Any] = load(self.build, f"llm:{self.name}")
        return built


_OPENAI_CHAT = Capabilities(token_param="max_completion_tokens", cache_form="prompt_cache_key",
                            reasoning=("reasoning_effort",))

KINDS: dict[str, ProviderKind] = {kind.name: kind for kind in (
    # caps: Chat Completions' (api=chat); the default Responses API's provider has its own
    ProviderKind("openai", f"{_HERE}.openai_responses:build", _OPENAI_CHAT, "OPENAI_API_KEY",
                 "gpt-5-mini", ("api",), max_output=128_000),
    ProviderKind("anthropic", f"{_HERE}.anthropic_messages:build", Capabilities(
        tool_dialect="anthropic", image_form="anthropic", token_counter="Anthropic's "
        "count_tokens", cache_form="cache_control", json_object=False,
        reasoning=("reasoning_effort", "thinking", "thinking_form")), "ANTHROPIC_API_KEY",
        "claude-sonnet-5-5", max_output=128_000,
        check=f"{_HERE}.anthropic_messages:check_options",
        reasoning_family=f"{_HERE}.anthropic_messages:reasoning_family"),
    ProviderKind("openrouter", f"{_HERE}.openrouter:build", Capabilities(
        bills_itself=True, cache_form="cache_control_anthropic_models",
        reasoning=("reasoning_effort",)), "OPENROUTER_API_KEY", "openai/gpt-5-mini",
        ("provider",), max_output=128_000),
    ProviderKind("compat", f"{_HERE}.compat:build", Capabilities(
        grammar=True, reasoning=("reasoning_effort",), compatible_server=True),
        options=("server",), endpoint_in_target=True),
    ProviderKind("google", f"{_HERE}.google_genai:build", Capabilities(
        token_param="max_output_tokens", reasoning=("reasoning_effort", "thinking")),
        "GEMINI_API_KEY", "gemini-2.5-flash", ("cache",), max_output=65_536,
        check=f"{_HERE}.google_genai:check_options",
        reasoning_family=f"{_HERE}.google_genai:reasoning_family"),
    ProviderKind("local", f"{_HERE}.local:build", Capabilities(
        image_form="", grammar=True, cache_form="slot", compatible_server=True,
        known_server="llamacpp"), shipped=True,
        no_images="the shipped model reads text only",
        # the setting that played best per minute in `duel bench local` on a 2-core CPU
        # (figures in the README); max_tokens 400: what the measurement used
        defaults={"prompt": "local", "constrain": "legal", "max_tokens": 400}),
)}


def provider_kind(name: str) -> ProviderKind:
    """The row of ``llm:NAME``; SpecError naming the valid ones otherwise."""
    if name not in KINDS:
        example = KINDS["openai"].example
        raise SpecError(f"llm: unknown provider {name!r}; valid providers: "
                        f"{', '.join(KINDS)} (e.g. llm:openai:{example}, "
                        "llm:compat:MODEL@http://127.0.0.1:8000/v1, llm:local)")
    return KINDS[name]


def taking(what: str) -> list[str]:
    """The providers that take `what`: a reasoning option or a provider-only option."""
    return [k.name for k in KINDS.values() if what in k.caps.reasoning or what in k.options]


def capabilities(provider: Any) -> Capabilities:
    """A provider object's capabilities: its own `caps`, else its registry row's (a test's
    provider that names itself after one), else PLAIN."""
    caps = getattr(provider, "caps", None)
    if isinstance(caps, Capabilities):
        return caps
    kind = KINDS.get(str(getattr(provider, "name", "")))
    return kind.caps if kind is not None else PLAIN
