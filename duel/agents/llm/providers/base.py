"""What every provider shares: the reply, the protocol, the capabilities that say how one
differs from another, and the mapping of an SDK's errors to duel's three kinds.

A provider is one module of this package (simonw/llm's plugin shape): a class with a
`caps` attribute (`Capabilities`) and `complete`/`close`, and a `build` function the registry
(`registry.py`) names lazily. Code outside this package asks a provider's capabilities,
never its name (tests/llm/test_llm_provider_seam.py keeps it so).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from duel.agents.llm.models import ANSWER_TOKENS
from duel.agents.llm.transport.adapt import Settings
from duel.agents.waiting import retry_after
from duel.errors import LLMConfigError, RequestError, TransportError

TOOL_NAME = "play_move"
TOOL_DESCRIPTION = "Play your move in 7 Wonders Duel."

# How a provider's tools=on conversation is written (toolloop.py): Chat Completions messages,
# Anthropic's content blocks or the Responses API's items; "" : it offers no function tools.
TOOL_DIALECTS = ("chat", "anthropic", "responses")
# How image=on's board is sent: Chat Completions parts (text and an image_url data URL; a
# provider whose API differs converts them), Anthropic's base64 image block; "": no images.
IMAGE_FORMS = ("image_url", "anthropic")
# How the rules text is cached: `prompt_cache_key` (OpenAI routes requests of one key to one
# cache), `cache_control` (a marked block, Anthropic's), `cache_control_anthropic_models` (the
# mark, on the models that need it: OpenRouter's Anthropic ones), `implicit` (the provider
# caches a repeated prefix by itself, nothing to send), `slot` (a local server's prompt slot).
CACHE_FORMS = ("prompt_cache_key", "cache_control", "cache_control_anthropic_models",
               "implicit", "slot")
# The reasoning options of a spec (reasoning_effort=, thinking=N, thinking_form=) a provider
# takes; what each is sent as is the provider module's own.
REASONING_OPTIONS = ("reasoning_effort", "thinking", "thinking_form")


@dataclass(frozen=True)
class Capabilities:
    """What a provider does differently, as attributes read by the code that needs them."""

    tool_dialect: str = "chat"
    image_form: str = "image_url"
    # the server's grammar holds the reply schema to the letter (a string's maxLength, the
    # anyOf of constrain=legal): llama.cpp's, vLLM's; OpenAI's strict subset and Anthropic's
    # tools take no length and want an object at the root
    grammar: bool = False
    bills_itself: bool = False  # each reply states its cost (OpenRouter's usage.cost)
    # the name of a free endpoint that counts a request's input tokens (the provider object
    # then has `count_tokens`); "": the local estimate (counting.py)
    token_counter: str = ""
    token_param: str = "max_tokens"  # the output limit's parameter on the provider's own API
    cache_form: str = "implicit"
    reasoning: tuple[str, ...] = ()  # of REASONING_OPTIONS
    # a JSON mode to fall back to when a forced tool is refused (adapt.py); without one, text
    json_object: bool = True
    # an OpenAI-compatible server whose kind (llama.cpp, vLLM, Ollama) decides what it
    # enforces (servers.py); `known_server`: the kind when it is always the same one
    compatible_server: bool = False
    known_server: str = ""


# A provider that says nothing of itself (a test's in-process one): the Chat Completions form.
PLAIN = Capabilities()


@dataclass(frozen=True)
class ToolUse:
    """A tool call in a reply (`tools=on`): the provider's id for it (its result names it), the
    tool's name and its arguments as sent (JSON text)."""

    id: str
    name: str
    arguments: str


@dataclass
class Reply:
    """One completion. `text` is what the model said (the tool call's arguments for a tool call),
    `structured` the decoded object of a structured reply, `finish_reason` the provider's own word,
    `truncated` whether it stopped at the token limit. Input tokens include cached ones; output
    tokens include the reasoning tokens (every provider bills reasoning as output)."""

    text: str
    structured: Any | None
    finish_reason: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    truncated: bool = False
    raw: str | None = None  # the whole reply as received, when it holds more than `text`
    reasoning_tokens: int = 0
    thinking: str = ""  # the thinking text or reasoning summary the provider returned
    # With tools offered (`tools=`): the tool calls the reply made, and the reply as the
    # conversation sends it back (the provider's own message form, thinking blocks included;
    # the Responses API's output items, reasoning items included).
    tool_calls: list[ToolUse] = field(default_factory=list)
    message: dict[str, Any] | list[dict[str, Any]] | None = None
    billed_usd: float | None = None  # what the provider says it billed (OpenRouter's usage.cost)
    refused: bool = False  # the model declined to answer (a refusal, not an empty reply)
    served_model: str | None = None  # the model (snapshot) the reply names
    request_id: str | None = None  # the provider's id of the request


class Provider(Protocol):
    name: str
    model: str

    async def complete(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None,
                       tools: list[dict[str, Any]] | None = None) -> Reply:
        """One call. `temperature` None is not sent; `schema` is the move schema for this
        call (None: the full `structured_schema()`); `settings` the rest of what is sent
        (None: the provider's own defaults); `tools`, in the provider's own form, are
        offered with the model's choice (`tools=on`: no structured output then)."""
        ...

    async def close(self) -> None: ...


def provider_defaults(provider: Any) -> Settings:
    """What a provider sends when nothing else is said: its own `defaults()`, or (a provider
    with none, such as a test's) its mode with the max_tokens parameter and no temperature."""
    defaults = getattr(provider, "defaults", None)
    if defaults is not None:
        settings: Settings = defaults()
        return settings
    return Settings(getattr(provider, "mode", "text"), None, "max_tokens", ANSWER_TOKENS)


def _retry_after(exc: Any) -> float | None:
    """Seconds the server asks us to wait (duel.agents.waiting.retry_after)."""
    return retry_after(getattr(getattr(exc, "response", None), "headers", None))


def _server_message(exc: Any) -> str:
    """The error message the server sent, if any (short)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return str(msg)[:300]
    return str(getattr(exc, "message", "") or "")[:300]


def _in_stream(exc: Exception, sdk: Any) -> bool:
    """`exc` is an SDK's error for an `error` event inside a stream: Anthropic's SDK raises a
    status error carrying the stream's own 200, OpenAI's a plain APIError with the event's
    `error` object as its body."""
    if isinstance(exc, sdk.APIStatusError):
        return bool(exc.status_code < 400)
    return type(exc) is sdk.APIError and isinstance(getattr(exc, "body", None), dict)


def _param(exc: Any) -> str | None:
    """The parameter an error body names (OpenAI's `error.param`), if any."""
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else None
    param = err.get("param") if isinstance(err, dict) else None
    return param if isinstance(param, str) and param else None


def by_status(status: int, detail: str, who: str, model: str, retry: float | None = None,
              quota: bool = False, param: str | None = None) -> Exception:
    """An HTTP error status as duel's kind: a retried TransportError (408, 409, 429, 5xx), an
    LLMConfigError (a used-up quota, a rejected key, no such model) or a RequestError."""
    if status == 429 and quota:
        return LLMConfigError(f"{who}: the account's quota is used up (HTTP 429): {detail}")
    if status in (408, 409, 429) or status >= 500:
        return TransportError(f"{who}: HTTP {status}: {detail}", retry, status)
    if status in (401, 403):
        return LLMConfigError(f"{who}: the API key was rejected (HTTP {status}): {detail}")
    if status == 404:
        return LLMConfigError(f"{who}: model {model!r} not found (HTTP 404; or no API at "
                              f"that URL): {detail}")
    return RequestError(f"{who}: HTTP {status}: {detail}", detail, param)


def _classify(exc: Exception, sdk: Any, who: str, model: str) -> Exception:
    """Map an OpenAI or Anthropic SDK exception to TransportError, RequestError or
    LLMConfigError."""
    if isinstance(exc, sdk.APITimeoutError):
        return TransportError(f"{who}: timed out (no reply received, nothing recorded as "
                              f"billed): {exc}")
    if isinstance(exc, sdk.APIConnectionError):
        return TransportError(f"{who}: connection failed: {exc}")
    if _in_stream(exc, sdk):
        # an error event in a stream the server had accepted (HTTP 200): the provider's word,
        # retried like a server error (Anthropic's overloaded_error here is its 529)
        said = _server_message(exc)
        body = getattr(exc, "body", None)
        err = body.get("error", body) if isinstance(body, dict) else None
        kind = (err.get("type") or err.get("code")) if isinstance(err, dict) else None
        if isinstance(kind, str) and kind not in ("error", said):
            said = f"{kind}: {said}"
        return TransportError(f"{who}: the stream reported an error: {said}", reported=said)
    if isinstance(exc, sdk.APIStatusError):
        return by_status(exc.status_code, _server_message(exc), who, model, _retry_after(exc),
                         getattr(exc, "code", None) == "insufficient_quota", _param(exc))
    if isinstance(exc, (sdk.APIError, json.JSONDecodeError)):
        # a response body that is not the API's JSON (a proxy's error page, a cut connection)
        return TransportError(f"{who}: malformed response: {str(exc)[:300]}")
    return exc


def may_think(s: Settings) -> bool:
    """Whether a call sent with `s` may reason before its first output: a reasoning option
    set, or a default the table does not know to be no reasoning."""
    return s.reasons() or s.default_reasoning not in (None, "no reasoning")


def served(resp: Any) -> tuple[str | None, str | None]:
    """The model the reply names and the provider's request id (both SDKs keep it as
    ``_request_id``, from the ``x-request-id`` / ``request-id`` header), where given."""
    model = getattr(resp, "model", None)
    request_id = getattr(resp, "_request_id", None) or getattr(resp, "id", None)
    return (model if isinstance(model, str) and model else None,
            request_id if isinstance(request_id, str) and request_id else None)


def _loads(text: str) -> Any | None:
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return None
