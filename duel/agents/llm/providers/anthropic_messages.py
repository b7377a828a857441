"""Anthropic's Messages API (`llm:anthropic:MODEL`): the move as a forced tool whose
input_schema is the move schema (offered with tool_choice auto while it thinks, which Anthropic
requires), the rules text as a system block marked for caching, thinking as a budget
(`thinking=N`) or adaptive thinking with an effort (`reasoning_effort=`, as
`output_config.effort`), thinking blocks and `output_tokens_details.thinking_tokens` read, and
the free token count of `messages.count_tokens`. How each Claude takes thinking comes from the
model table (models.py), or for a model it does not know from `thinking_form=`
(`reasoning_family`). The SDK's own retries are off; a long call is streamed (streaming.py).
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from duel.agents.llm.models import ANSWER_TOKENS, CLAUDE_EFFORTS, THINKING_MIN, ModelFamily
from duel.agents.llm.providers.base import (
    TOOL_DESCRIPTION,
    TOOL_NAME,
    Reply,
    ToolUse,
    _classify,
    may_think,
    served,
)
from duel.agents.llm.providers.openai_chat import key
from duel.agents.llm.providers.registry import KINDS, BuildOptions
from duel.agents.llm.schema import structured_schema
from duel.agents.llm.transport import streaming
from duel.agents.llm.transport.adapt import Settings
from duel.errors import SpecError, TransportError

THINKING_FORMS = ("adaptive", "budget")


def build(target: str, o: BuildOptions) -> AnthropicProvider:
    if o.mode:
        raise SpecError("llm:anthropic always uses a forced tool (tool_choice auto while "
                        "thinking); mode= does not apply")
    kind = KINDS["anthropic"]
    return AnthropicProvider(target, key(kind.key_env, kind.name), o.base_url, o.timeout)


def check_options(params: dict[str, Any]) -> None:
    """The spec's thinking options on their own, before anything is built (SpecErrors)."""
    thinking, form = params["thinking"], params["thinking_form"]
    if thinking is not None:
        if thinking < THINKING_MIN:
            raise SpecError(f"llm: thinking must be at least {THINKING_MIN} tokens (Anthropic's "
                            f"smallest budget), got {thinking}")
        if params["temperature"] is not None:
            raise SpecError("llm:anthropic: temperature cannot be set with thinking (Anthropic "
                            "takes no temperature while it thinks)")
    if form is not None and form not in THINKING_FORMS:
        raise SpecError(f"llm: thinking_form must be adaptive or budget, got {form!r}")


def reasoning_family(fam: ModelFamily | None, model: str, params: dict[str, Any]
                     ) -> ModelFamily:
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
                          efforts=CLAUDE_EFFORTS if adaptive else (), omits_thinking=adaptive,
                          exact_name=True)
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


class AnthropicProvider:
    """Anthropic's Messages API with the move tool; the rules text is marked for caching."""

    caps = KINDS["anthropic"].caps

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
        kwargs.update(reasoning(s))
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

    async def count_tokens(self, system: str, messages: list[dict[str, Any]],
                           s: Settings) -> int:
        """Anthropic's free count (`messages.count_tokens`) of the request a call sends: the
        same system block, move tool and reasoning settings (counting.py)."""
        kwargs: dict[str, Any] = dict(reasoning(s))
        if s.mode == "tool":
            kwargs["tools"] = [{"name": TOOL_NAME, "description": TOOL_DESCRIPTION,
                                "input_schema": structured_schema()}]
        count: Any = self._client.messages.count_tokens
        found = await count(
            model=self.model, messages=messages,
            system=[{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            **kwargs)
        return int(found.input_tokens)

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


def reasoning(s: Settings) -> dict[str, Any]:
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


