"""OpenAI's Responses API (``POST /v1/responses``), for OpenAI's own models (``llm:openai:MODEL,
api=responses``). Chat Completions returns no reasoning summaries and refuses function tools with
a reasoning effort on gpt-5.x; the Responses API does both:

- the rules text is the request's ``instructions``, the conversation its ``input``;
- structured output is ``text.format`` (json_schema, strict), or the move as a function tool
  (``tools`` / ``tool_choice``, with a reasoning effort too);
- reasoning is ``reasoning: {"effort": ..., "summary": "auto"}``: the summary comes back as
  ``reasoning`` output items and is recorded as the call's thinking text;
- the output limit is ``max_output_tokens``; a reply cut off there has ``status: "incomplete"``
  with ``incomplete_details.reason: "max_output_tokens"`` (a truncated reply), and a refusal
  comes back as a ``refusal`` content part;
- ``store: false`` (duel keeps its own records) and the ``prompt_cache_key`` of caching.py;
- a long call is streamed (``stream: true``, streaming.py) and its last event's response
  recorded as the unstreamed one;
- with the tool set offered (``tools=on``, tool_responses.py) a reasoning model's calls ask for
  ``include: ["reasoning.encrypted_content"]``, and the reply's output items (reasoning
  included) go back with the function_call_output items that answer its calls.

Compatible servers and OpenRouter keep Chat Completions (openai_chat.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from duel.agents.llm import caching, tool_responses
from duel.agents.llm.models import ANSWER_TOKENS, family
from duel.agents.llm.providers import openai_chat
from duel.agents.llm.providers.base import (
    TOOL_DESCRIPTION,
    TOOL_NAME,
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
from duel.errors import RequestError, SpecError, TransportError

TOKEN_PARAM = "max_output_tokens"
APIS = ("chat", "responses")
CAPS = replace(KINDS["openai"].caps, tool_dialect=tool_responses.API, token_param=TOKEN_PARAM)


def build(target: str, o: BuildOptions) -> ResponsesProvider | openai_chat.OpenAIProvider:
    """`llm:openai:MODEL`: the Responses API, or Chat Completions with `api=chat`."""
    if o.api and o.api not in APIS:
        raise SpecError(f"llm:openai: api must be chat or responses, got {o.api!r}")
    if o.api == "chat":
        return openai_chat.build(target, o)
    fam = family(target)
    kind = KINDS["openai"]
    return ResponsesProvider(target, openai_chat.key(kind.key_env, kind.name), o.base_url,
                             o.mode or "json_schema", o.timeout, fam is None or fam.reasons)


class ResponsesProvider:
    """OpenAI's Responses API; `reasons`: the model reasons (a summary is asked for)."""

    caps = CAPS  # tools=on speaks the Responses form (toolloop.py)

    def __init__(self, model: str, api_key: str, base_url: str | None = None,
                 mode: str = "json_schema", timeout: float = 600.0,
                 reasons: bool = True) -> None:
        import openai

        if mode not in MODES:
            raise SpecError("mode must be json_schema, tool, json_object or text")
        self.name = "openai"
        self.model = model
        self.mode = mode
        self.reasons = reasons
        self._sdk = openai
        self.timeout = timeout  # the longest silence; long calls are streamed (streaming.py)
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0,
                                          timeout=timeout)

    def defaults(self) -> Settings:
        return Settings(self.mode, None, TOKEN_PARAM, ANSWER_TOKENS)

    async def close(self) -> None:
        await self._client.close()

    def request(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                temperature: float | None, schema: dict[str, Any] | None,
                s: Settings, tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The request's parameters besides the model (`tools`: the tool set, tools=on)."""
        schema = schema if schema is not None else structured_schema()
        kwargs: dict[str, Any] = {"instructions": system, "input": _input(messages),
                                  "max_output_tokens": max_tokens, "store": False,
                                  "prompt_cache_key": caching.cache_key(system)}
        if tools is not None:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = "auto"
        elif s.mode == "json_schema":
            kwargs["text"] = {"format": {"type": "json_schema", "name": "move", "strict": True,
                                         "schema": schema}}
        elif s.mode == "json_object":
            kwargs["text"] = {"format": {"type": "json_object"}}
        elif s.mode == "tool":
            kwargs["tools"] = [{"type": "function", "name": TOOL_NAME,
                                "description": TOOL_DESCRIPTION, "parameters": schema,
                                "strict": False}]
            kwargs["tool_choice"] = {"type": "function", "name": TOOL_NAME} \
                if s.tool_choice == "forced" else "auto"
        if temperature is not None:
            kwargs["temperature"] = temperature
        if s.reasoning_effort is not None or self.reasons:
            reasoning: dict[str, Any] = {"summary": "auto"}
            if s.reasoning_effort is not None:
                reasoning["effort"] = s.reasoning_effort
            kwargs["reasoning"] = reasoning
            if tools is not None:  # the reasoning goes back with the tool results
                kwargs["include"] = list(tool_responses.INCLUDE)
        return kwargs

    def _summary_refused(self, exc: Exception, s: Settings) -> bool:
        """`exc` refuses the reasoning summary duel asked for on its own (no effort set)."""
        return self.reasons and s.reasoning_effort is None and _refuses_reasoning(exc)

    async def complete(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None,
                       tools: list[dict[str, Any]] | None = None) -> Reply:
        s = settings or self.defaults()
        kwargs = self.request(system, messages, max_tokens, temperature, schema, s, tools)
        try:
            if streaming.is_long(max_tokens, self.timeout):
                resp = await streaming.openai_responses(
                    self._client, {"model": self.model, **kwargs}, max_tokens, self.timeout,
                    self.name, self.reasons or may_think(s))
            else:
                resp = await self._client.responses.create(model=self.model, **kwargs)
        except Exception as exc:  # noqa: BLE001 - mapped to our three kinds, or re-raised
            mapped = _classify(exc, self._sdk, self.name, self.model)
            if not self._summary_refused(mapped, s):
                raise mapped from exc
            # duel's own ask for a summary, refused by a model that does not reason (one the
            # table does not know): asked no more, nothing the spec set is changed
            self.reasons = False
            return await self.complete(system, messages, max_tokens, temperature,
                                       schema=schema, settings=s, tools=tools)
        if getattr(resp, "status", None) == "failed":
            try:
                billed: Reply | None = reply(resp, "tools" if tools is not None else s.mode)
            except (AttributeError, TypeError, ValueError, IndexError):
                billed = None
            said = streaming.code_and_message(getattr(resp, "error", None), "no error given")
            raise TransportError(f"{self.name}: the response failed: {said}", billed=billed,
                                 reported=said)
        try:
            return reply(resp, "tools" if tools is not None else s.mode)
        except (AttributeError, TypeError, ValueError, IndexError) as exc:
            raise TransportError(f"{self.name}: malformed response: {exc}") from exc


def _refuses_reasoning(exc: Exception) -> bool:
    param = getattr(exc, "param", None) or ""
    return isinstance(exc, RequestError) and param.startswith("reasoning")


def _input(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as Responses input: a message's content parts in the Responses form
    (the board picture of image=on is built as Chat Completions parts: text and image_url)."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list) and "role" in m:
            m = {**m, "content": [_part(p) for p in content]}
        out.append(m)
    return out


def _part(part: dict[str, Any]) -> dict[str, Any]:
    if part.get("type") == "text":
        return {"type": "input_text", "text": part["text"]}
    if part.get("type") == "image_url":
        return {"type": "input_image", "image_url": part["image_url"]["url"], "detail": "auto"}
    return part


def reply(resp: Any, mode: str) -> Reply:
    """A Responses API response as duel's Reply (`mode` "tools": its function calls as tool
    uses, and its output items as they go back)."""
    said: list[str] = []
    refusals: list[str] = []
    summary: list[str] = []
    arguments: str | None = None
    uses: list[ToolUse] = []
    for item in resp.output or []:
        kind = getattr(item, "type", "")
        if kind == "reasoning":
            summary.extend(part.text for part in (getattr(item, "summary", None) or [])
                           if getattr(part, "text", None))
        elif kind == "message":
            for part in item.content or []:
                if part.type == "output_text":
                    said.append(part.text)
                elif part.type == "refusal":
                    refusals.append(part.refusal)
        elif kind == "function_call" and mode == "tools":
            uses.append(ToolUse(item.call_id, item.name or "", item.arguments or ""))
        elif kind == "function_call" and arguments is None and item.name == TOOL_NAME:
            arguments = item.arguments or ""
    content = "".join(said) or "".join(refusals)
    text, structured = content, None
    if mode == "tool" and arguments is not None:
        text, structured = arguments, _loads(arguments)
    elif mode in ("json_schema", "json_object") and said:
        structured = _loads(content)
    status = getattr(resp, "status", "") or ""
    details = getattr(resp, "incomplete_details", None)
    reason = getattr(details, "reason", None) if details is not None else None
    truncated = status == "incomplete" and reason == "max_output_tokens"
    finish = "refusal" if refusals and not said else \
        (f"incomplete: {reason}" if status == "incomplete" else status)
    usage = resp.usage
    cached = reasoning = 0
    if usage is not None:
        in_details = getattr(usage, "input_tokens_details", None)
        cached = (getattr(in_details, "cached_tokens", 0) or 0) if in_details else 0
        out_details = getattr(usage, "output_tokens_details", None)
        reasoning = (getattr(out_details, "reasoning_tokens", 0) or 0) if out_details else 0
    raw = content + ("\n" if content and text != content else "") + \
        (text if text != content else "")
    message = None
    if uses:
        raw = "\n".join([*([content] if content else []),
                         *(f"{t.name}({t.arguments})" for t in uses)])
        # the output items as they came: the reasoning (encrypted) before the calls
        message = [item.model_dump(mode="json", exclude_none=True)
                   for item in resp.output or []]
    return Reply(text, structured, finish, (usage.input_tokens or 0) if usage else 0,
                 (usage.output_tokens or 0) if usage else 0, int(cached),
                 truncated=truncated, raw=raw, reasoning_tokens=int(reasoning),
                 thinking="\n\n".join(summary), tool_calls=uses, message=message,
                 refused=bool(refusals) and not said,
                 served_model=served(resp)[0], request_id=served(resp)[1])
