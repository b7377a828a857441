"""LLM providers behind one async call: OpenAI, Anthropic, and OpenAI-compatible servers.

Each uses its native structured output: OpenAI `response_format` json_schema (strict), Anthropic
a forced tool whose input_schema is the move schema, compatible servers (vLLM, Ollama, llama.cpp)
a forced tool call, `json_object` with a schema, or plain text (the `mode` setting).
The SDKs' own retries are off: duel retries transport failures itself, and records each one.
"""

from __future__ import annotations

import email.utils
import inspect
import json
import time
from dataclasses import dataclass
from typing import Any, Protocol

from duel.agents.llm.schema import structured_schema
from duel.errors import LLMConfigError, RequestError, TransportError

TOOL_NAME = "play_move"
TOOL_DESCRIPTION = "Play your move in 7 Wonders Duel."




@dataclass
class Reply:
    """One completion. `text` is what the model said (the tool call's arguments for a tool call),
    `structured` the decoded object of a structured reply, `finish_reason` the provider's own word,
    `truncated` whether it stopped at the token limit. Input tokens include cached ones."""

    text: str
    structured: Any | None
    finish_reason: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    truncated: bool = False
    raw: str | None = None  # the whole reply as received, when it holds more than `text`


class Provider(Protocol):
    name: str
    model: str

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float, schema: dict[str, Any] | None = None) -> Reply: ...

    async def close(self) -> None: ...


def _retry_after(exc: Any) -> float | None:
    """Seconds the server asks us to wait: `retry-after-ms`, `retry-after` in seconds, or
    `retry-after` as an HTTP date."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue
        return max(0.0, seconds) if seconds == seconds else None  # NaN: no advice
    value = headers.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is not None:
            return max(0.0, when.timestamp() - time.time())
    return None


def _server_message(exc: Any) -> str:
    """The error message the server sent, if any (short)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return str(msg)[:300]
    return str(getattr(exc, "message", "") or "")[:300]


def _classify(exc: Exception, sdk: Any, who: str, model: str) -> Exception:
    """Map an SDK exception to TransportError, RequestError or LLMConfigError."""
    if isinstance(exc, (sdk.APIConnectionError, sdk.APITimeoutError)):
        return TransportError(f"{who}: connection failed: {exc}")
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
        return RequestError(f"{who}: HTTP {status}: {detail}")
    if isinstance(exc, (sdk.APIError, json.JSONDecodeError)):
        # a response body that is not the API's JSON (a proxy's error page, a cut connection)
        return TransportError(f"{who}: malformed response: {str(exc)[:300]}")
    return exc


class OpenAIProvider:
    """OpenAI's API, or any server speaking it (`base_url`)."""

    def __init__(self, name: str, model: str, api_key: str, base_url: str | None = None,
                 mode: str = "json_schema", timeout: float = 600.0) -> None:
        import openai

        if mode not in ("json_schema", "tool", "json_object", "text"):
            raise ValueError("mode must be json_schema, tool, json_object or text")
        self.name = name
        self.model = model
        self.mode = mode
        self._sdk = openai
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0,
                                          timeout=timeout)

    async def close(self) -> None:
        await self._client.close()

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float, schema: dict[str, Any] | None = None) -> Reply:
        kwargs: dict[str, Any] = {}
        schema = schema or structured_schema()
        if self.mode == "json_schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "move", "strict": True, "schema": schema}}
        elif self.mode == "json_object":
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        elif self.mode == "tool":
            kwargs["tools"] = [{"type": "function", "function": {
                "name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": schema}}]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": TOOL_NAME}}
        # OpenAI's own API takes max_completion_tokens (newer models refuse max_tokens);
        # compatible servers (llama.cpp, older vLLM, Ollama) know only max_tokens.
        if self.name == "openai":
            kwargs["max_completion_tokens"] = max_tokens
        else:
            kwargs["max_tokens"] = max_tokens
        try:
            chat: Any = [{"role": "system", "content": system}, *messages]
            resp = await self._client.chat.completions.create(
                model=self.model, messages=chat, temperature=temperature, **kwargs)
        except Exception as exc:  # noqa: BLE001 - mapped to our three kinds, or re-raised
            raise _classify(exc, self._sdk, self.name, self.model) from exc
        try:
            return self._reply(resp)
        except (AttributeError, TypeError, ValueError, IndexError) as exc:
            raise TransportError(f"{self.name}: malformed response: {exc}") from exc

    def _reply(self, resp: Any) -> Reply:
        if not getattr(resp, "choices", None):
            return Reply("", None, "empty")
        choice = resp.choices[0]
        msg = choice.message
        content = (msg.content or getattr(msg, "refusal", None) or "") if msg else ""
        text = content
        structured: Any | None = None
        calls = (getattr(msg, "tool_calls", None) or []) if msg else []
        function = getattr(calls[0], "function", None) if calls else None
        if self.mode == "tool" and function is not None:
            text = function.arguments or ""
            structured = _loads(text)
        elif self.mode in ("json_schema", "json_object") and text:
            structured = _loads(text)
        usage = resp.usage
        cached = 0
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        if details is not None:
            cached = details.cached_tokens or 0
        finish = choice.finish_reason or ""
        raw = content + ("\n" if content and text != content else "") + \
            (text if text != content else "")
        return Reply(text, structured, finish,
                     (usage.prompt_tokens or 0) if usage else 0,
                     (usage.completion_tokens or 0) if usage else 0, cached,
                     truncated=finish == "length", raw=raw)


class AnthropicProvider:
    """Anthropic's Messages API with a forced tool; the rules text is marked for caching."""

    def __init__(self, model: str, api_key: str, base_url: str | None = None,
                 timeout: float = 600.0) -> None:
        import anthropic

        self.name = "anthropic"
        self.model = model
        self._sdk = anthropic
        self._client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url,
                                                max_retries=0, timeout=timeout)
        # Recent SDKs dropped `temperature` from messages.create; send it only where it exists.
        self._has_temperature = "temperature" in inspect.signature(
            self._client.messages.create).parameters

    async def close(self) -> None:
        await self._client.close()

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float, schema: dict[str, Any] | None = None) -> Reply:
        extra: dict[str, Any] = {"temperature": temperature} if self._has_temperature else {}
        try:
            create: Any = self._client.messages.create
            resp = await create(
                model=self.model, max_tokens=max_tokens, **extra,
                system=[{"type": "text", "text": system,
                         "cache_control": {"type": "ephemeral"}}],
                messages=messages,
                tools=[{"name": TOOL_NAME, "description": TOOL_DESCRIPTION,
                        "input_schema": schema or structured_schema()}],
                tool_choice={"type": "tool", "name": TOOL_NAME})
        except Exception as exc:  # noqa: BLE001
            raise _classify(exc, self._sdk, self.name, self.model) from exc
        try:
            return self._reply(resp)
        except (AttributeError, TypeError, ValueError) as exc:
            raise TransportError(f"{self.name}: malformed response: {exc}") from exc

    @staticmethod
    def _reply(resp: Any) -> Reply:
        text_parts: list[str] = []
        structured: Any | None = None
        for block in resp.content or []:
            if block.type == "tool_use" and structured is None:
                structured = block.input
            elif block.type == "text":
                text_parts.append(block.text)
        said = "".join(text_parts)
        text = json.dumps(structured) if structured is not None else said
        raw = said + ("\n" if said and structured is not None else "") + \
            (text if structured is not None else "")
        u = resp.usage
        cache_read = getattr(u, "cache_read_input_tokens", 0) or 0
        cache_write = getattr(u, "cache_creation_input_tokens", 0) or 0
        finish = resp.stop_reason or ""
        # input_tokens counts only the uncached part: the total adds cache reads and writes.
        return Reply(text, structured, finish, u.input_tokens + cache_read + cache_write,
                     u.output_tokens, cache_read, cache_write,
                     truncated=finish in ("max_tokens", "model_context_window_exceeded"),
                     raw=raw)


def _loads(text: str) -> Any | None:
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return None
