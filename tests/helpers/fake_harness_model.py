"""A responder for FakeLLMServer that plays legal moves under every harness setting, through the
real SDKs: it answers in the form the request asks for (OpenAI json_schema, a tool call, a
free-text reply; an Anthropic tool; a Responses API message or function call), with a reasoning
before the move when the schema or the prompt asks for it, and a note when the schema has one.
It keeps every request's text, so that tests can read what reached the model."""

from __future__ import annotations

import json
from typing import Any

from helpers.fake_llm_server import Scripted, anthropic_reply, openai_reply
from helpers.fake_reasoning_servers import pick
from helpers.fake_responses_server import OpenAIResponsesModel


def turns(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation's messages: Chat Completions' and Anthropic's ``messages``, or the
    Responses API's ``input`` items that are messages."""
    if "input" in body:
        return [{"role": m["role"], "content": m["content"]} for m in body["input"]
                if "role" in m]
    return list(body["messages"])


def _props(body: dict[str, Any]) -> dict[str, Any]:
    """The reply schema's properties (its first branch's, under an anyOf)."""
    schema: dict[str, Any] | None = None
    fmt = body.get("response_format") or (body.get("text") or {}).get("format")
    if isinstance(fmt, dict):  # Chat Completions' json_schema, or the Responses API's text.format
        schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
    for tool in body.get("tools") or []:
        schema = tool.get("input_schema") or (tool.get("function") or {}).get("parameters") \
            or tool.get("parameters")
    if not schema:
        return {}
    if "anyOf" in schema and "properties" not in schema:
        schema = schema["anyOf"][0]
    return dict(schema.get("properties") or {})


class HarnessModel:
    """`reasoning_only`: calls (by number, from 1) answered with reasoning and no move;
    `note`: the note it keeps (with the number of the call)."""

    def __init__(self, reasoning_only: tuple[int, ...] = (), note: str = "plan {n}") -> None:
        self.calls = 0
        self.reasoning_only = reasoning_only
        self.note = note

    def answer(self, body: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
        """The answer object, the reasoning text, and whether it goes in a structured reply."""
        self.calls += 1
        move = pick(turns(body))
        props = _props(body)
        reasoning = f"Call {self.calls}: I weigh my options and take this one."
        obj: dict[str, Any] = {}
        if "reasoning" in props:
            obj["reasoning"] = reasoning
        obj.update(move)
        asked = json.dumps(turns(body))
        if "note" in props or '\\"note\\": \\"...\\"' in asked:  # the schema's or the prompt's
            obj["note"] = self.note.format(n=self.calls)
        return obj, reasoning, bool(props)

    def __call__(self, body: dict[str, Any]) -> Scripted:
        obj, reasoning, structured = self.answer(body)
        anthropic = "max_tokens" in body and "system" in body and isinstance(body["system"], list)
        bare = self.calls in self.reasoning_only
        if "input" in body:
            return self._responses(body, obj, reasoning, structured, bare)
        if anthropic:
            if bare:
                return anthropic_reply(text=reasoning, stop="end_turn")
            return anthropic_reply(tool_input=obj)
        if structured and body.get("tools"):
            return openai_reply(tool_args=json.dumps(obj))
        if structured:
            return openai_reply(content=json.dumps(obj))
        if bare:
            return openai_reply(content=reasoning)
        return openai_reply(content=f"{reasoning}\n\n```json\n{json.dumps(obj)}\n```")

    @staticmethod
    def _responses(body: dict[str, Any], obj: dict[str, Any], reasoning: str, structured: bool,
                   bare: bool) -> Scripted:
        if structured and body.get("tools"):
            item: dict[str, Any] = {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                                    "name": body["tools"][0]["name"],
                                    "arguments": json.dumps(obj), "status": "completed"}
        else:
            text = json.dumps(obj) if structured else reasoning if bare else \
                f"{reasoning}\n\n```json\n{json.dumps(obj)}\n```"
            item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        return OpenAIResponsesModel.response(body, "completed", [item], 40, 0, 0)
