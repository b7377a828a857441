"""A responder for FakeLLMServer that speaks OpenAI's Responses API (``POST /v1/responses``) as
OpenAI documents it, for the real openai SDK: ``instructions`` and ``input`` (Chat Completions'
``messages``, ``max_tokens``, ``max_completion_tokens``, ``response_format`` and
``reasoning_effort`` are refused by name), ``max_output_tokens`` within the model's limit,
``reasoning: {"effort", "summary"}``, ``text.format`` json_schema, function tools (with a
reasoning effort too), and replies as ``output`` items: a ``reasoning`` item with its summary when
one is asked for, then the ``message`` or ``function_call``; a reply cut off while reasoning has
``status: "incomplete"`` and ``incomplete_details.reason: "max_output_tokens"``. How long it
reasons is a reasoning model's (`OpenAIReasoningModel.wants`)."""

from __future__ import annotations

import json
from typing import Any

from helpers.fake_llm_server import Scripted
from helpers.fake_reasoning_servers import (
    ANSWER,
    TEMPERATURE,
    OpenAIReasoningModel,
    openai_error,
    pick,
)
from helpers.fake_responses_tools import input_problem

MOVED = ("Unsupported parameter: '{param}'. In the Responses API, this parameter has moved to "
         "'{to}'.")
_MOVED = {"messages": "input", "max_tokens": "max_output_tokens",
          "max_completion_tokens": "max_output_tokens", "response_format": "text.format",
          "reasoning_effort": "reasoning.effort"}
TOO_LARGE = "max_output_tokens is too large: {sent}. This model supports at most {limit}."


def chat_parameter(body: dict[str, Any]) -> Scripted | None:
    """The API's refusal of a Chat Completions parameter, naming where it moved; or None."""
    for param, to in _MOVED.items():
        if param in body:
            return openai_error(400, MOVED.format(param=param, to=to), param,
                                "unsupported_parameter")
    return None


class OpenAIResponsesModel:
    def __init__(self, model: OpenAIReasoningModel | None = None, refuse_every: int = 0) -> None:
        self.model = model or OpenAIReasoningModel()
        self.refuse_every = refuse_every  # every n-th answer is a refusal (0: never)
        self.answered = 0
        self.keys: set[str] = set()

    def __call__(self, body: dict[str, Any]) -> Scripted:
        refused = chat_parameter(body)
        if refused is not None:
            return refused
        problem = input_problem(body["input"], {})
        if problem:
            return openai_error(400, problem, "input", "invalid_value")
        if "temperature" in body and body["temperature"] != 1:
            return openai_error(400, TEMPERATURE.format(value=body["temperature"]),
                                "temperature", "unsupported_value")
        limit = body.get("max_output_tokens") or 100_000
        most = self.model.max_output
        if most is not None and limit > most:
            return openai_error(400, TOO_LARGE.format(sent=limit, limit=most),
                                "max_output_tokens", "invalid_value")
        reasoning = body.get("reasoning") or {}
        turns = [{"role": m["role"], "content": m["content"]} for m in body["input"]
                 if "role" in m]
        wants = self.model.wants({"messages": turns, "reasoning_effort": reasoning.get("effort")})
        summary = reasoning.get("summary") in ("auto", "concise", "detailed")
        move = pick(turns)
        thought: dict[str, Any] = {"type": "reasoning", "id": "rs_1", "summary": [
            {"type": "summary_text", "text": f"**Weighing {move['move']}**\n\nIt is legal here."}
        ] if summary else []}
        key = body.get("prompt_cache_key", "")
        cached = 1200 if key in self.keys else 0
        self.keys.add(key)
        if limit < wants + ANSWER:
            return self.response(body, "incomplete", [thought], limit, limit, cached)
        self.answered += 1
        text = json.dumps(move)
        if self.refuse_every and self.answered % self.refuse_every == 0:
            content = [{"type": "refusal", "refusal": "I can't help with that."}]
            item: dict[str, Any] = {"type": "message", "id": "msg_1", "role": "assistant",
                                    "status": "completed", "content": content}
        elif "tools" in body:
            item = {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                    "name": body["tools"][0]["name"], "arguments": text, "status": "completed"}
        else:
            item = {"type": "message", "id": "msg_1", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        return self.response(body, "completed", [thought, item], wants + ANSWER, wants, cached)

    @staticmethod
    def response(body: dict[str, Any], status: str, output: list[dict[str, Any]],
                 spent: int, reasoning: int, cached: int) -> Scripted:
        return Scripted({
            "id": "resp_1", "object": "response", "created_at": 0, "model": body["model"],
            "status": status,
            "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete"
            else None,
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": body.get("tools", []),
            "usage": {"input_tokens": 1500, "input_tokens_details": {"cached_tokens": cached},
                      "output_tokens": spent,
                      "output_tokens_details": {"reasoning_tokens": reasoning},
                      "total_tokens": 1500 + spent}})
