"""LLM providers behind one async call: OpenAI, Anthropic, and OpenAI-compatible servers.

Each uses its native structured output: OpenAI `response_format` json_schema (strict), Anthropic
a forced tool whose input_schema is the move schema, compatible servers (vLLM, Ollama, llama.cpp)
a forced tool call, `json_object` with a schema, or plain text (the `mode` setting).
The SDKs' own retries are off: duel retries transport failures itself, and records each one.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any, Protocol

from duel.agents.llm.schema import structured_schema

TOOL_NAME = "play_move"
TOOL_DESCRIPTION = "Play your move in 7 Wonders Duel."


class TransportError(Exception):
    """Connection failure, timeout, 429 or 5xx: retried with backoff, never a used attempt."""

    def __init__(self, message: str, retry_after: float | None = None,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class RequestError(Exception):
    """The provider refused this request (400): counts as a failed attempt."""


class LLMConfigError(Exception):
    """Missing or rejected key, unknown model: nothing to retry; the user must fix it."""


@dataclass
class Reply:
    text: str
    structured: Any | None
    finish_reason: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0


class Provider(Protocol):
    name: str
    model: str

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float) -> Reply: ...

    async def close(self) -> None: ...


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is not None:
            try:
                return max(0.0, float(value) / scale)
            except ValueError:
                return None
    return None


def _classify(exc: Exception, sdk: Any, who: str, model: str) -> Exception:
    """Map an SDK exception to TransportError, RequestError or LLMConfigError."""
    if isinstance(exc, (sdk.APIConnectionError, sdk.APITimeoutError)):
        return TransportError(f"{who}: connection failed: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        if status == 429 or status >= 500:
            return TransportError(f"{who}: HTTP {status}", _retry_after(exc), status)
        if status in (401, 403):
            return LLMConfigError(f"{who}: the API key was rejected (HTTP {status})")
        if status == 404:
            return LLMConfigError(f"{who}: model {model!r} not found (HTTP 404)")
        return RequestError(f"{who}: HTTP {status}: {str(exc)[:300]}")
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
                       temperature: float) -> Reply:
        kwargs: dict[str, Any] = {}
        schema = structured_schema()
        if self.mode == "json_schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "move", "strict": True, "schema": schema}}
        elif self.mode == "json_object":
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        elif self.mode == "tool":
            kwargs["tools"] = [{"type": "function", "function": {
                "name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": schema}}]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": TOOL_NAME}}
        try:
            chat: Any = [{"role": "system", "content": system}, *messages]
            resp = await self._client.chat.completions.create(
                model=self.model, messages=chat,
                max_tokens=max_tokens, temperature=temperature, **kwargs)
        except Exception as exc:  # noqa: BLE001 - mapped to our three kinds, or re-raised
            raise _classify(exc, self._sdk, self.name, self.model) from exc
        if not resp.choices:
            return Reply("", None, "empty")
        choice = resp.choices[0]
        msg = choice.message
        text = msg.content or ""
        structured: Any | None = None
        if self.mode == "tool" and msg.tool_calls:
            call: Any = msg.tool_calls[0]
            text = call.function.arguments or ""
            structured = _loads(text)
        elif self.mode in ("json_schema", "json_object") and text:
            structured = _loads(text)
        usage = resp.usage
        cached = 0
        if usage is not None and usage.prompt_tokens_details is not None:
            cached = usage.prompt_tokens_details.cached_tokens or 0
        return Reply(text, structured, choice.finish_reason or "",
                     usage.prompt_tokens if usage else 0,
                     usage.completion_tokens if usage else 0, cached)


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
                       temperature: float) -> Reply:
        extra: dict[str, Any] = {"temperature": temperature} if self._has_temperature else {}
        try:
            create: Any = self._client.messages.create
            resp = await create(
                model=self.model, max_tokens=max_tokens, **extra,
                system=[{"type": "text", "text": system,
                         "cache_control": {"type": "ephemeral"}}],
                messages=messages,
                tools=[{"name": TOOL_NAME, "description": TOOL_DESCRIPTION,
                        "input_schema": structured_schema()}],
                tool_choice={"type": "tool", "name": TOOL_NAME})
        except Exception as exc:  # noqa: BLE001
            raise _classify(exc, self._sdk, self.name, self.model) from exc
        text_parts: list[str] = []
        structured: Any | None = None
        for block in resp.content:
            if block.type == "tool_use" and structured is None:
                structured = block.input
            elif block.type == "text":
                text_parts.append(block.text)
        text = json.dumps(structured) if structured is not None else "".join(text_parts)
        u = resp.usage
        cache_read = getattr(u, "cache_read_input_tokens", 0) or 0
        cache_write = getattr(u, "cache_creation_input_tokens", 0) or 0
        finish = {"max_tokens": "length"}.get(resp.stop_reason or "", resp.stop_reason or "")
        return Reply(text, structured, finish, u.input_tokens + cache_read + cache_write,
                     u.output_tokens, cache_read)


def _loads(text: str) -> Any | None:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
