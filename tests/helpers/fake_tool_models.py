"""Responders for FakeLLMServer that play through tools as the providers document tool use
today, for the real SDKs:

- OpenAI Chat Completions: the reply's `message.tool_calls` (`id`, `type: "function"`,
  `function.name`, `function.arguments` as JSON text) with `finish_reason: "tool_calls"`; the
  next request answers each call with a `role: "tool"` message naming its `tool_call_id`.
- Anthropic Messages: `tool_use` content blocks (`id`, `name`, `input`) with
  `stop_reason: "tool_use"`; the next request's user turn starts with a `tool_result` block
  for each (`tool_use_id`, `content`, `is_error`).

Each refuses, with the provider's own 400 error, a request that breaks those rules (a tool call
left unanswered, a result answering no call, a tool not in the provider's form), so that a
conversation the fake accepts is one the provider would accept.

What the model does is its `behaviour`: `careful` looks up the state and the legal moves (two
calls in one reply), then simulates and explains, then plays a legal move from legal_moves'
answer with make_move; `illegal` first plays a covered card; `clumsy` first calls a tool that
does not exist and one with arguments that are not JSON; `looping` never stops looking up;
`texting` answers with the move JSON as text after its look-ups.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from helpers.fake_llm_server import Scripted

BEHAVIOURS = ("careful", "illegal", "clumsy", "looping", "texting", "stringy")


@dataclass
class Turn:
    """A conversation as the model reads it: the first user message, and the tool calls made
    so far with their answers (decoded), in order."""

    first: str
    results: list[tuple[str, dict[str, Any], Any]] = field(default_factory=list)
    replies: int = 0  # the model's replies so far


def decide(turn: Turn, behaviour: str) -> list[tuple[str, dict[str, Any] | str]] | str:
    """The model's next reply: tool calls (name, arguments: an object, or a string sent as
    is), or a text answer."""
    names = [name for name, _, _ in turn.results]
    if behaviour == "looping":
        return [("get_state", {})]
    if behaviour == "clumsy" and turn.replies == 0:
        return [("peek_at_hidden_cards", {}), ("get_state", "{not json")]
    if "legal_moves" not in names:
        return [("get_state", {}), ("legal_moves", {"why_not": True})]
    legal = next(r for n, _, r in turn.results if n == "legal_moves")
    moves = [{"move": m["move"], "moveData": m["moveData"]} for m in legal["moves"]]
    if "simulate" not in names and behaviour == "stringy":  # objects sent as JSON strings
        return [("simulate", {**moves[0], "moveData": json.dumps(moves[0]["moveData"])})]
    if "simulate" not in names:
        return [("simulate", moves[0]), ("explain", {"name": "LUMBER_YARD"})]
    choice = moves[zlib.crc32(turn.first.encode()) % len(moves)]
    refused = [r for n, _, r in turn.results if n == "make_move"]
    if behaviour == "illegal" and not refused:
        candidates = [{"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": i}}
                      for i in range(20)]
        return [("make_move", next(c for c in candidates if c not in moves))]
    if behaviour == "stringy":  # the whole move in `move`, as a JSON string
        return [("make_move", {"move": json.dumps(choice)})]
    if behaviour == "texting":
        return "I have looked enough. My move:\n```json\n" + json.dumps(choice) + "\n```"
    return [("make_move", choice)]


def _args_text(args: dict[str, Any] | str) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def _decoded(content: Any) -> Any:
    try:
        return json.loads(content)
    except (TypeError, ValueError):
        return content


class OpenAIToolModel:
    """A Chat Completions model that uses the tools it is offered (see the module)."""

    def __init__(self, behaviour: str = "careful") -> None:
        assert behaviour in BEHAVIOURS
        self.behaviour = behaviour
        self.calls = 0
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.calls += 1
        self.bodies.append(body)
        problem = self.check(body)
        if problem:
            return Scripted({"error": {"message": problem, "type": "invalid_request_error",
                                       "param": "messages", "code": None}}, 400)
        turn = self.read(body["messages"])
        action = decide(turn, self.behaviour)
        usage = {"prompt_tokens": 1000 + 100 * len(body["messages"]), "completion_tokens": 25,
                 "total_tokens": 0, "prompt_tokens_details": {"cached_tokens": 900}}
        if isinstance(action, str):
            message: dict[str, Any] = {"role": "assistant", "content": action}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{self.calls}_{i}", "type": "function",
                 "function": {"name": name, "arguments": _args_text(args)}}
                for i, (name, args) in enumerate(action)]}
            finish = "tool_calls"
        return Scripted({"id": f"chatcmpl-{self.calls}", "object": "chat.completion",
                         "created": 0, "model": "m", "choices": [
                             {"index": 0, "message": message, "finish_reason": finish}],
                         "usage": usage})

    @staticmethod
    def check(body: dict[str, Any]) -> str:
        """OpenAI's refusal of a malformed tool conversation, or ''."""
        for tool in body.get("tools") or []:
            fn = tool.get("function") or {}
            if tool.get("type") != "function" or not fn.get("name") or \
                    fn.get("parameters", {}).get("type") != "object":
                return f"Invalid tools: {json.dumps(tool)[:80]}"
        if body.get("tools") and body.get("tool_choice") not in (None, "auto", "none",
                                                                  "required"):
            return "Invalid value for 'tool_choice'"
        messages = body["messages"]
        waiting: list[str] = []
        for i, m in enumerate(messages):
            if m["role"] == "tool":
                if m.get("tool_call_id") not in waiting:
                    return (f"Invalid parameter: messages[{i}]: messages with role 'tool' must "
                            "be a response to a preceeding message with 'tool_calls'.")
                waiting.remove(m["tool_call_id"])
                if not isinstance(m.get("content"), str):
                    return f"messages[{i}].content must be a string"
                continue
            if waiting:
                return ("An assistant message with 'tool_calls' must be followed by tool "
                        "messages responding to each 'tool_call_id'. The following "
                        f"tool_call_ids did not have response messages: {', '.join(waiting)}")
            if m["role"] == "assistant" and m.get("tool_calls"):
                waiting = [c["id"] for c in m["tool_calls"]]
        if waiting:
            return ("An assistant message with 'tool_calls' must be followed by tool messages "
                    f"responding to each 'tool_call_id': {', '.join(waiting)}")
        return ""

    @staticmethod
    def read(messages: list[dict[str, Any]]) -> Turn:
        first = next(m["content"] for m in messages if m["role"] == "user")
        turn = Turn(first)
        asked: dict[str, tuple[str, Any]] = {}
        for m in messages:
            if m["role"] == "assistant":
                turn.replies += 1
                for c in m.get("tool_calls") or []:
                    asked[c["id"]] = (c["function"]["name"], _decoded(c["function"]["arguments"]))
            elif m["role"] == "tool":
                name, args = asked[m["tool_call_id"]]
                turn.results.append((name, args, _decoded(m["content"])))
        return turn


class AnthropicToolModel:
    """A Messages API model that uses the tools it is offered (see the module)."""

    def __init__(self, behaviour: str = "careful") -> None:
        assert behaviour in BEHAVIOURS
        self.behaviour = behaviour
        self.calls = 0
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.calls += 1
        self.bodies.append(body)
        problem = self.check(body)
        if problem:
            return Scripted({"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": problem},
                             "request_id": "req_fake"}, 400)
        turn = self.read(body["messages"])
        action = decide(turn, self.behaviour)
        if isinstance(action, str):
            content: list[dict[str, Any]] = [{"type": "text", "text": action}]
            stop = "end_turn"
        else:
            content = [{"type": "text", "text": "Let me look."}]
            if (body.get("thinking") or {}).get("type") in ("enabled", "adaptive"):
                content.insert(0, {"type": "thinking", "thinking": "Which card?",
                                   "signature": f"sig{self.calls}"})
            for i, (name, args) in enumerate(action):
                # Anthropic's input is always an object: arguments that are not JSON cannot be
                # sent, so a clumsy model sends them as a string field
                value = args if isinstance(args, dict) else {"raw": args}
                content.append({"type": "tool_use", "id": f"toolu_{self.calls}_{i}",
                                "name": name, "input": value})
            stop = "tool_use"
        return Scripted({
            "id": f"msg_{self.calls}", "type": "message", "role": "assistant", "model": "claude",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 200 + 50 * len(body["messages"]), "output_tokens": 30,
                      "cache_read_input_tokens": 1100, "cache_creation_input_tokens": 0}})

    @staticmethod
    def check(body: dict[str, Any]) -> str:
        """Anthropic's refusal of a malformed tool conversation, or ''."""
        for tool in body.get("tools") or []:
            if not tool.get("name") or tool.get("input_schema", {}).get("type") != "object":
                return f"tools: Input tag '{tool.get('type')}' found using 'type' does not match"
        if (body.get("tool_choice") or {}).get("type") not in (None, "auto", "any", "tool",
                                                                 "none"):
            return "tool_choice: invalid"
        messages = body["messages"]
        thinking = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
        for i, m in enumerate(messages):
            content = m["content"]
            if m["role"] != "assistant" or isinstance(content, str):
                continue
            ids = [b["id"] for b in content if b["type"] == "tool_use"]
            if not ids:
                continue
            if thinking and (content[0]["type"] != "thinking" or not content[0].get("signature")):
                return (f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`"
                        f", but found `{content[0]['type']}`. When `thinking` is enabled, a final "
                        "`assistant` message must start with a thinking block (preceeding the "
                        "lastmost set of `tool_use` and `tool_result` blocks).")
            after = messages[i + 1]["content"] if i + 1 < len(messages) else []
            blocks = after if isinstance(after, list) else []
            answered = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
            leading = [b for b in blocks[:len(answered)] if b.get("type") == "tool_result"]
            missing = [x for x in ids if x not in answered]
            if missing or len(leading) != len(answered):
                return (f"messages.{i + 1}: `tool_use` ids were found without `tool_result` "
                        f"blocks immediately after: {', '.join(missing or ids)}. Each "
                        "`tool_use` block must have a corresponding `tool_result` block in "
                        "the next message.")
        return ""

    @staticmethod
    def read(messages: list[dict[str, Any]]) -> Turn:
        first_content = next(m["content"] for m in messages if m["role"] == "user")
        first = first_content if isinstance(first_content, str) else first_content[0]["text"]
        turn = Turn(first)
        asked: dict[str, tuple[str, Any]] = {}
        for m in messages:
            if isinstance(m["content"], str):
                continue
            for b in m["content"]:
                if b["type"] == "tool_use":
                    asked[b["id"]] = (b["name"], b["input"])
                elif b["type"] == "tool_result":
                    name, args = asked[b["tool_use_id"]]
                    turn.results.append((name, args, _decoded(b["content"])))
            if m["role"] == "assistant":
                turn.replies += 1
        return turn
