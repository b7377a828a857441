"""OpenAI's Chat Completions (`llm:openai:MODEL,api=chat`), and the client of every server
speaking it (compat.py, local.py, openrouter.py build on it).

Structured output is the request's `response_format` json_schema (strict), a forced tool call,
`json_object` with a schema, or plain text (the `mode` setting); what a call is sent with comes
from its Settings (adapt.py), which change when a model refuses one of them. Reasoning is read
where the server reports it: `completion_tokens_details.reasoning_tokens`, and the
`reasoning_content` (vLLM, DeepSeek) or `reasoning` (OpenRouter) text. OpenAI's own API gets
the `prompt_cache_key` of caching.py. The SDK's own retries are off: duel retries transport
failures itself, and records each one. A call whose output budget could outlast the timeout is
streamed (streaming.py).
"""

from __future__ import annotations

from typing import Any

from duel.agents.llm import caching
from duel.agents.llm.models import ANSWER_TOKENS
from duel.agents.llm.providers.base import (
    TOOL_DESCRIPTION,
    TOOL_NAME,
    Capabilities,
    Reply,
    ToolUse,
    _classify,
    _loads,
    may_think,
    served,
)
from duel.agents.llm.providers.registry import KINDS, BuildOptions
from duel.agents.llm.schema import structured_schema
from duel.agents.llm.transport import streaming
from duel.agents.llm.transport.adapt import MODES, Settings
from duel.errors import SpecError, TransportError

CHAT = KINDS["openai"].caps  # OpenAI's own Chat Completions


def key(env: str, provider: str) -> str:
    """The API key in `env`; SpecError naming the variable when it is not set."""
    import os

    found = os.environ.get(env)
    if not found:
        raise SpecError(f"llm:{provider} needs the {env} environment variable")
    return found


def build(target: str, o: BuildOptions) -> OpenAIProvider:
    """`llm:openai:MODEL,api=chat` (openai_responses.build hands it here)."""
    kind = KINDS["openai"]
    return OpenAIProvider(kind.name, target, key(kind.key_env, kind.name), o.base_url,
                          o.mode or "json_schema", o.timeout)


class OpenAIProvider:
    """Chat Completions: OpenAI's own (`api=chat`), or any server speaking it (`base_url`);
    `caps` says which (OpenRouter's subclass is openrouter.py)."""

    caps = CHAT

    def __init__(self, name: str, model: str, api_key: str, base_url: str | None = None,
                 mode: str = "json_schema", timeout: float = 600.0,
                 caps: Capabilities | None = None) -> None:
        import openai

        if caps is not None:
            self.caps = caps

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
        return Settings(self.mode, None, self.caps.token_param, ANSWER_TOKENS)

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
        self._reasoning(s, kwargs, extra)
        if self.caps.cache_form == "prompt_cache_key":
            kwargs["prompt_cache_key"] = caching.cache_key(system)
        if extra:
            kwargs["extra_body"] = extra
        try:
            chat: Any = [self._system(system), *messages]
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

    def _reasoning(self, s: Settings, kwargs: dict[str, Any], extra: dict[str, Any]) -> None:
        """The reasoning options of a request: Chat Completions' `reasoning_effort`."""
        if s.reasoning_effort is not None:
            kwargs["reasoning_effort"] = s.reasoning_effort

    def _system(self, system: str) -> dict[str, Any]:
        """The system message (OpenAI and compatible servers cache a prefix unmarked)."""
        return caching.system_message(system, marked=False)

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


