"""LLM providers behind one async call: OpenAI, Anthropic, OpenRouter and OpenAI-compatible
servers.

Each uses its native structured output: OpenAI `response_format` json_schema (strict), Anthropic
a forced tool whose input_schema is the move schema (offered with tool_choice auto while it
thinks, which Anthropic requires), compatible servers (vLLM, Ollama, llama.cpp) a forced tool
call, `json_object` with a schema, or plain text (the `mode` setting). What a call is sent with
comes from its Settings (adapt.py), which change when a model refuses one of them.
Reasoning is read where the provider reports it: OpenAI's
`completion_tokens_details.reasoning_tokens`, the `reasoning_content` (vLLM, DeepSeek) or
`reasoning` (OpenRouter) text of compatible servers, Anthropic's thinking blocks and
`output_tokens_details.thinking_tokens`.
The SDKs' own retries are off: duel retries transport failures itself, and records each one.
A call whose output budget could outlast the timeout is streamed (streaming.py).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from duel.agents.llm import caching, streaming
from duel.agents.llm.adapt import MODES, Settings
from duel.agents.llm.models import ANSWER_TOKENS
from duel.agents.llm.schema import structured_schema
from duel.agents.waiting import retry_after
from duel.errors import LLMConfigError, RequestError, SpecError, TransportError

TOOL_NAME = "play_move"
TOOL_DESCRIPTION = "Play your move in 7 Wonders Duel."
OPENROUTER_URL = "https://openrouter.ai/api/v1"


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
    tokens include the reasoning tokens (both providers bill reasoning as output)."""

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


def _classify(exc: Exception, sdk: Any, who: str, model: str) -> Exception:
    """Map an SDK exception to TransportError, RequestError or LLMConfigError."""
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
        status = exc.status_code
        detail = _server_message(exc)
        if status == 429 and getattr(exc, "code", None) == "insufficient_quota":
            return LLMConfigError(f"{who}: the account's quota is used up (HTTP 429): {detail}")
        if status in (408, 409, 429) or status >= 500:
            return TransportError(f"{who}: HTTP {status}: {detail}", _retry_after(exc), status)
        if status in (401, 403):
            return LLMConfigError(f"{who}: the API key was rejected (HTTP {status}): {detail}")
        if status == 404:
            return LLMConfigError(f"{who}: model {model!r} not found (HTTP 404; or no API at "
                                  f"that URL): {detail}")
        return RequestError(f"{who}: HTTP {status}: {detail}", detail, _param(exc))
    if isinstance(exc, (sdk.APIError, json.JSONDecodeError)):
        # a response body that is not the API's JSON (a proxy's error page, a cut connection)
        return TransportError(f"{who}: malformed response: {str(exc)[:300]}")
    return exc


class OpenAIProvider:
    """OpenAI's API, OpenRouter, or any server speaking OpenAI's API (`base_url`)."""

    def __init__(self, name: str, model: str, api_key: str, base_url: str | None = None,
                 mode: str = "json_schema", timeout: float = 600.0) -> None:
        import openai

        if mode not in MODES:
            raise SpecError("mode must be json_schema, tool, json_object or text")
        self.name = name
        self.model = model
        self.mode = mode
        self.timeout = timeout  # the longest silence; long calls are streamed (streaming.py)
        self.base_url = base_url or ""
        self._sdk = openai
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0,
                                          timeout=timeout)

    def defaults(self) -> Settings:
        # OpenAI's own API takes max_completion_tokens (reasoning models refuse max_tokens);
        # compatible servers (llama.cpp, older vLLM, Ollama) and OpenRouter know max_tokens.
        token_param = "max_completion_tokens" if self.name == "openai" else "max_tokens"
        return Settings(self.mode, None, token_param, ANSWER_TOKENS)

    async def close(self) -> None:
        await self._client.close()

    async def complete(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None,
                       tools: list[dict[str, Any]] | None = None,
                       extra_body: dict[str, Any] | None = None) -> Reply:
        """One call; `extra_body`: the server's own fields, sent as they are (llama.cpp's
        `id_slot`)."""
        s = settings or self.defaults()
        kwargs: dict[str, Any] = {s.token_param: max_tokens}
        schema = schema if schema is not None else structured_schema()
        if tools is not None:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = "auto"
        elif s.mode == "json_schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "move", "strict": True, "schema": schema}}
        elif s.mode == "json_object":
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        elif s.mode == "tool":
            kwargs["tools"] = [{"type": "function", "function": {
                "name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": schema}}]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": TOOL_NAME}} \
                if s.tool_choice == "forced" else "auto"
        if temperature is not None:
            kwargs["temperature"] = temperature
        extra: dict[str, Any] = dict(extra_body or {})
        if self.name == "openrouter":
            # OpenRouter's own options: reasoning in its `reasoning` object, and a pinned
            # backend with no fallback, so that a result is reproducible on one provider.
            if s.reasoning_effort is not None:
                extra["reasoning"] = {"effort": s.reasoning_effort}
            if s.provider_pin:
                extra["provider"] = {"order": [s.provider_pin], "allow_fallbacks": False}
        elif s.reasoning_effort is not None:
            kwargs["reasoning_effort"] = s.reasoning_effort
        kwargs.update(caching.request_options(self.name, system))
        if extra:
            kwargs["extra_body"] = extra
        try:
            chat: Any = [caching.system_message(self.name, self.model, system), *messages]
            if streaming.is_long(max_tokens, self.timeout):
                resp = await streaming.openai_chat(self._client, {
                    "model": self.model, "messages": chat, **kwargs}, max_tokens,
                    self.timeout, self.name, may_think(s))
            else:
                resp = await self._client.chat.completions.create(
                    model=self.model, messages=chat, **kwargs)
        except Exception as exc:  # noqa: BLE001 - mapped to our three kinds, or re-raised
            raise _classify(exc, self._sdk, self.name, self.model) from exc
        try:
            return self._reply(resp, "tools" if tools is not None else s.mode)
        except (AttributeError, TypeError, ValueError, IndexError) as exc:
            raise TransportError(f"{self.name}: malformed response: {exc}") from exc

    @staticmethod
    def _reply(resp: Any, mode: str) -> Reply:
        if not getattr(resp, "choices", None):
            return Reply("", None, "empty")
        choice = resp.choices[0]
        msg = choice.message
        content = (msg.content or getattr(msg, "refusal", None) or "") if msg else ""
        text = content
        structured: Any | None = None
        calls = (getattr(msg, "tool_calls", None) or []) if msg else []
        function = getattr(calls[0], "function", None) if calls else None
        uses: list[ToolUse] = []
        if mode == "tools":
            # some compatible servers send no id: one is made up, for the results to name
            uses = [ToolUse(getattr(c, "id", None) or f"call_{i}", c.function.name or "",
                            c.function.arguments or "")
                    for i, c in enumerate(calls) if getattr(c, "function", None) is not None]
        elif mode == "tool" and function is not None:
            text = function.arguments or ""
            structured = _loads(text)
        elif mode in ("json_schema", "json_object") and text:
            structured = _loads(text)
        usage = resp.usage
        cached = reasoning = 0
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        if details is not None:
            cached = details.cached_tokens or 0
        if not cached:
            # llama.cpp's server says what it reused from its prompt cache in `timings`
            # (older builds, before prompt_tokens_details).
            timings = (getattr(resp, "model_extra", None) or {}).get("timings")
            if isinstance(timings, dict) and isinstance(timings.get("cache_n"), int):
                cached = timings["cache_n"]
        out_details = getattr(usage, "completion_tokens_details", None) if usage else None
        if out_details is not None:
            reasoning = getattr(out_details, "reasoning_tokens", None) or 0
        # vLLM and DeepSeek return the reasoning as `reasoning_content`, OpenRouter `reasoning`
        thinking = (getattr(msg, "reasoning_content", None) or getattr(msg, "reasoning", None)
                    or "") if msg else ""
        finish = choice.finish_reason or ""
        raw = content + ("\n" if content and text != content else "") + \
            (text if text != content else "")
        message = None
        if uses:
            raw = "\n".join([*([content] if content else []),
                             *(f"{t.name}({t.arguments})" for t in uses)])
            message = {"role": "assistant", "content": content or None, "tool_calls": [
                {"id": u.id, "type": "function",
                 "function": {"name": u.name, "arguments": u.arguments}} for u in uses]}
        return Reply(text, structured, finish,
                     (usage.prompt_tokens or 0) if usage else 0,
                     (usage.completion_tokens or 0) if usage else 0, cached,
                     caching.cache_writes(usage), truncated=finish == "length", raw=raw,
                     reasoning_tokens=int(reasoning),
                     thinking=thinking if isinstance(thinking, str) else "",
                     tool_calls=uses, message=message,
                     billed_usd=caching.billed_usd(usage),
                     refused=bool(msg and getattr(msg, "refusal", None) and not msg.content
                                  and not calls),
                     served_model=served(resp)[0], request_id=served(resp)[1])


class AnthropicProvider:
    """Anthropic's Messages API with the move tool; the rules text is marked for caching."""

    def __init__(self, model: str, api_key: str, base_url: str | None = None,
                 timeout: float = 600.0) -> None:
        import anthropic

        self.name = "anthropic"
        self.model = model
        self.mode = "tool"
        self.timeout = timeout  # the longest silence; long calls are streamed (streaming.py)
        self._sdk = anthropic
        self._client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url,
                                                max_retries=0, timeout=timeout)
        # Recent SDKs dropped `temperature` from messages.create: it then goes in the body.
        self._has_temperature = "temperature" in inspect.signature(
            self._client.messages.create).parameters

    def defaults(self) -> Settings:
        return Settings("tool", None, "max_tokens", ANSWER_TOKENS)

    async def close(self) -> None:
        await self._client.close()

    async def complete(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None,
                       tools: list[dict[str, Any]] | None = None) -> Reply:
        s = settings or self.defaults()
        kwargs: dict[str, Any] = {}
        if temperature is not None:
            if self._has_temperature:
                kwargs["temperature"] = temperature
            else:
                kwargs["extra_body"] = {"temperature": temperature}
        kwargs.update(anthropic_reasoning(s))
        if tools is not None:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = {"type": "auto"}
        elif s.mode == "tool":
            kwargs["tools"] = [{"name": TOOL_NAME, "description": TOOL_DESCRIPTION,
                                "input_schema": schema if schema is not None
                                else structured_schema()}]
            # Anthropic refuses a forced tool while thinking: the prompt asks for the move
            kwargs["tool_choice"] = {"type": "tool", "name": TOOL_NAME} \
                if s.tool_choice == "forced" else {"type": "auto"}
        request: dict[str, Any] = {
            "model": self.model, "max_tokens": max_tokens, "messages": messages,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            **kwargs}
        try:
            if streaming.is_long(max_tokens, self.timeout):  # the SDK's guidance: stream
                resp = await streaming.anthropic_messages(self._client, request, self.timeout,
                                                          self.name, may_think(s))
            else:
                create: Any = self._client.messages.create
                resp = await create(**request)
        except Exception as exc:  # noqa: BLE001
            raise _classify(exc, self._sdk, self.name, self.model) from exc
        try:
            return self._reply(resp, tools is not None)
        except (AttributeError, TypeError, ValueError) as exc:
            raise TransportError(f"{self.name}: malformed response: {exc}") from exc

    @staticmethod
    def _reply(resp: Any, tools: bool = False) -> Reply:
        text_parts: list[str] = []
        thinking: list[str] = []
        structured: Any | None = None
        uses: list[ToolUse] = []
        blocks: list[dict[str, Any]] = []  # the reply as it is sent back (tools=on)
        for block in resp.content or []:
            if tools:
                blocks.append(_block(block))
            if tools and block.type == "tool_use":
                uses.append(ToolUse(block.id, block.name, json.dumps(block.input)))
            elif block.type == "tool_use" and structured is None:
                structured = block.input
            elif block.type == "text":
                text_parts.append(block.text)
            elif block.type == "thinking":
                thinking.append(block.thinking)
            elif block.type == "redacted_thinking":
                thinking.append("(redacted thinking)")
        said = "".join(text_parts)
        text = json.dumps(structured) if structured is not None else said
        raw = said + ("\n" if said and structured is not None else "") + \
            (text if structured is not None else "")
        u = resp.usage
        cache_read = getattr(u, "cache_read_input_tokens", 0) or 0
        cache_write = getattr(u, "cache_creation_input_tokens", 0) or 0
        details = getattr(u, "output_tokens_details", None)
        reasoning = (getattr(details, "thinking_tokens", 0) or 0) if details is not None else 0
        finish = resp.stop_reason or ""
        if uses:
            raw = "\n".join([*([said] if said else []),
                             *(f"{t.name}({t.arguments})" for t in uses)])
        # input_tokens counts only the uncached part: the total adds cache reads and writes.
        return Reply(text, structured, finish, u.input_tokens + cache_read + cache_write,
                     u.output_tokens, cache_read, cache_write,
                     truncated=finish in ("max_tokens", "model_context_window_exceeded"),
                     raw=raw, reasoning_tokens=int(reasoning), thinking="\n\n".join(thinking),
                     tool_calls=uses,
                     message={"role": "assistant", "content": blocks} if uses else None,
                     refused=finish == "refusal" and structured is None,
                     served_model=served(resp)[0], request_id=served(resp)[1])


def _block(block: Any) -> dict[str, Any]:
    """A content block of Anthropic's reply as the next request sends it back: thinking blocks
    with their signature (Anthropic wants them before the tool results they led to)."""
    if block.type == "text":
        return {"type": "text", "text": block.text}
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if block.type == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if block.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    dumped: dict[str, Any] = block.model_dump(exclude_none=True)
    return dumped


def anthropic_reasoning(s: Settings) -> dict[str, Any]:
    """Anthropic's reasoning parameters for `s`: a thinking budget (`thinking=N`) or adaptive
    thinking, with the display asked for where the model omits the text by default, and the
    effort (`reasoning_effort=`) as `output_config.effort`."""
    out: dict[str, Any] = {}
    thinking: dict[str, Any] | None = None
    if s.thinking:
        thinking = {"type": "enabled", "budget_tokens": s.thinking}
    elif s.adaptive_thinking:
        thinking = {"type": "adaptive"}
    if thinking is not None:
        if s.thinking_display:
            thinking["display"] = s.thinking_display
        out["thinking"] = thinking
    if s.reasoning_effort is not None:
        out["output_config"] = {"effort": s.reasoning_effort}
    return out


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
