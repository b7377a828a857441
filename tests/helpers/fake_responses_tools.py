"""Function tools on OpenAI's Responses API, as OpenAI documents them, for the real openai SDK:

- tools are ``{"type": "function", "name", "description", "parameters", "strict"}`` (Chat
  Completions' ``{"type": "function", "function": {...}}`` is refused, naming
  ``tools[i].name``), ``tool_choice`` is ``auto``/``none``/``required`` or
  ``{"type": "function", "name"}``;
- a reply's calls are ``function_call`` output items (``id``, ``call_id``, ``name``,
  ``arguments`` as JSON text) after the ``reasoning`` item they came from; the next request's
  ``input`` gives the output items back and answers each call with a ``function_call_output``
  item naming its ``call_id``;
- with ``store: false`` nothing is kept between requests: a reasoning item given back must
  carry the ``encrypted_content`` asked for with ``include: ["reasoning.encrypted_content"]``,
  must be followed by the item it led to, and a function_call of a reasoning model must come
  with the reasoning item it followed.

`input_problem` refuses, with the API's own 400 message, an input that breaks those rules (a
call left unanswered, an output answering no call, a reasoning item missing, dropped or not
encrypted), so that a conversation the fake takes is one the API would take.
`ResponsesToolModel` plays as the Chat Completions tool model of `fake_tool_models` does (the
same `behaviour`s), reasoning before each reply with a summary when one is asked for.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from helpers.fake_llm_server import Scripted
from helpers.fake_reasoning_servers import openai_error
from helpers.fake_tool_models import BEHAVIOURS, Turn, _args_text, _decoded, decide

ENCRYPTED = "include"  # the value of `include` that returns the encrypted reasoning
NOT_STORED = ("Item with id '{id}' not found. Items are not persisted when `store` is set to "
              "false. Try again with `store` set to true, or remove this item from your input.")
NO_FOLLOWING = "Item '{id}' of type 'reasoning' was provided without its required following item."
NO_REASONING = ("Item '{id}' of type 'function_call' was provided without its required "
                "'reasoning' item: '{rs}'.")
NO_CALL = "No tool call found for function call output with call_id {id}."
NO_OUTPUT = "No tool output found for function call {id}."


def encrypt(item_id: str) -> str:
    """The fake's encrypted reasoning: opaque to the client, checked when given back."""
    return "gAAAAB" + base64.b64encode(json.dumps({"rs": item_id}).encode()).decode()


def _decrypts_to(blob: Any, item_id: str) -> bool:
    if not isinstance(blob, str) or not blob.startswith("gAAAAB"):
        return False
    try:
        return bool(json.loads(base64.b64decode(blob[6:]))["rs"] == item_id)
    except (ValueError, KeyError, TypeError):
        return False


def tools_problem(body: dict[str, Any]) -> str:
    """The API's refusal of the request's tools or tool_choice, or ''."""
    for i, tool in enumerate(body.get("tools") or []):
        if tool.get("type") != "function":
            return f"Invalid value: '{tool.get('type')}'. Supported values are: 'function', ..."
        if not tool.get("name"):
            return f"Missing required parameter: 'tools[{i}].name'."
        if (tool.get("parameters") or {}).get("type") != "object":
            return f"Invalid schema for function '{tool['name']}': schema must be an object."
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and not (choice.get("type") == "function" and choice.get("name")):
        return "Missing required parameter: 'tool_choice.name'."
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        return f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and 'required'."
    return ""


def input_problem(items: list[dict[str, Any]], issued: dict[str, str]) -> str:
    """The API's refusal of an `input` list under ``store: false``, or ''. `issued` maps the
    function_call ids this server returned after a reasoning item to that item's id."""
    waiting: dict[str, int] = {}  # call_id -> position of its function_call
    seen_reasoning: set[str] = set()
    for i, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == "reasoning":
            if not _decrypts_to(item.get("encrypted_content"), item.get("id", "")):
                return NOT_STORED.format(id=item.get("id"))
            after = items[i + 1] if i + 1 < len(items) else {}
            if after.get("type", "message") not in ("function_call", "message") or \
                    after.get("role", "assistant") != "assistant":
                return NO_FOLLOWING.format(id=item["id"])
            seen_reasoning.add(item["id"])
        elif kind == "function_call":
            rs = issued.get(item.get("id", ""))
            if rs is not None and rs not in seen_reasoning:
                return NO_REASONING.format(id=item["id"], rs=rs)
            waiting[item["call_id"]] = i
        elif kind == "function_call_output":
            if item.get("call_id") not in waiting:
                return NO_CALL.format(id=item.get("call_id"))
            del waiting[item["call_id"]]
            if not isinstance(item.get("output"), str):
                return f"Invalid type for 'input[{i}].output': expected a string."
    if waiting:
        return NO_OUTPUT.format(id=next(iter(waiting)))
    return ""


def read(items: list[dict[str, Any]]) -> Turn:
    """The conversation as the model reads it (see fake_tool_models.Turn)."""
    first = next(m["content"] for m in items if m.get("role") == "user")
    turn = Turn(first if isinstance(first, str) else first[0]["text"])
    asked: dict[str, tuple[str, Any]] = {}
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            asked[item["call_id"]] = (item["name"], _decoded(item["arguments"]))
        elif kind == "function_call_output":
            name, args = asked[item["call_id"]]
            turn.results.append((name, args, _decoded(item["output"])))
    # a reply is the run of items between two inputs of the client's
    turn.replies = sum(1 for a, b in zip(items, items[1:], strict=False)
                       if _is_reply(a) and not _is_reply(b))
    return turn


def _is_reply(item: dict[str, Any]) -> bool:
    return item.get("type") in ("reasoning", "function_call") or item.get("role") == "assistant"


class ResponsesToolModel:
    """A Responses API reasoning model that uses the tools it is offered (fake_tool_models'
    behaviours). Refuses what the API refuses (`input_problem`, `tools_problem`)."""

    def __init__(self, behaviour: str = "careful", reasoning: int = 300) -> None:
        assert behaviour in BEHAVIOURS
        self.behaviour = behaviour
        self.reasoning = reasoning
        self.calls = 0
        self.bodies: list[dict[str, Any]] = []
        self.issued: dict[str, str] = {}

    def __call__(self, body: dict[str, Any]) -> Scripted:
        from helpers.fake_responses_server import chat_parameter

        self.calls += 1
        self.bodies.append(body)
        problem = chat_parameter(body)
        if problem is not None:
            return problem
        bad_tools = tools_problem(body)
        why = bad_tools or input_problem(body["input"], self.issued)
        if why:
            return openai_error(400, why, "tools" if bad_tools else "input", "invalid_value")
        action = decide(read(body["input"]), self.behaviour)
        rs = f"rs_{self.calls}"
        summary = (body.get("reasoning") or {}).get("summary") in ("auto", "concise", "detailed")
        thought: dict[str, Any] = {"type": "reasoning", "id": rs, "summary": [
            {"type": "summary_text", "text": f"**Looking things up ({self.calls})**"}]
            if summary else []}
        if ENCRYPTED in body and "reasoning.encrypted_content" in body[ENCRYPTED]:
            thought["encrypted_content"] = encrypt(rs)
        output: list[dict[str, Any]] = [thought]
        if isinstance(action, str):
            output.append({"type": "message", "id": f"msg_{self.calls}", "role": "assistant",
                           "status": "completed", "content": [
                               {"type": "output_text", "text": action, "annotations": []}]})
        else:
            for i, (name, args) in enumerate(action):
                fc = f"fc_{self.calls}_{i}"
                self.issued[fc] = rs
                output.append({"type": "function_call", "id": fc,
                               "call_id": f"call_{self.calls}_{i}", "name": name,
                               "arguments": _args_text(args), "status": "completed"})
        tokens = 1000 + 100 * len(body["input"])
        return Scripted({
            "id": f"resp_{self.calls}", "object": "response", "created_at": 0,
            "model": body["model"], "status": "completed", "incomplete_details": None,
            "output": output, "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools", []),
            "usage": {"input_tokens": tokens, "input_tokens_details": {"cached_tokens": 900},
                      "output_tokens": self.reasoning + 25,
                      "output_tokens_details": {"reasoning_tokens": self.reasoning},
                      "total_tokens": tokens + self.reasoning + 25}})
