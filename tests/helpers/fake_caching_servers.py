"""Responders for FakeLLMServer whose prompt caches and bills behave as the providers document:

- OpenAI (`OpenAICache`): caches a prompt prefix of at least 1024 tokens by itself, in steps of
  128 tokens, and reports it as ``prompt_tokens_details.cached_tokens``; it bills no cache
  writes. Requests with a ``prompt_cache_key`` are routed to the cache of that key; without
  one, `unkeyed_hit_every` says how often the same prefix lands on a machine that holds it
  (every request by default). `OpenAIResponsesCache` is the same cache on the Responses API:
  the prefix is the request's ``instructions``, reported as
  ``usage.input_tokens_details.cached_tokens``.
- Anthropic (`AnthropicCache`): caches only up to a block marked ``cache_control``; the first
  request writes the cache (``cache_creation_input_tokens``), later ones read it
  (``cache_read_input_tokens``); ``input_tokens`` counts the rest.
- OpenRouter in front of Anthropic (`OpenRouterAnthropic`): the chat API; caches only when
  ``cache_control`` is sent (on a content block or at the top level), reports
  ``cached_tokens`` and ``cache_write_tokens``, and bills each call in ``usage.cost`` at its
  backend's prices (`prices`, per million tokens), which need not be the maker's list prices.

A token is four characters of the request's text. Each answers a legal move of the position.
"""

from __future__ import annotations

import json
from typing import Any

from helpers.fake_llm_server import Scripted
from helpers.fake_reasoning_servers import pick

ANSWER = 30  # output tokens of an answer


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or [] if isinstance(block, dict))


def _marked(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("cache_control") for b in content)


class OpenAICache:
    def __init__(self, unkeyed_hit_every: int = 1) -> None:
        self.unkeyed_hit_every = unkeyed_hit_every
        self.seen: set[tuple[str, str]] = set()
        self.unkeyed = 0

    def cached(self, key: str, system: str) -> int:
        """The tokens of `system`, the prompt's prefix, read from the cache of `key`."""
        scope = (key, system)
        hit = scope in self.seen
        if not key:
            self.unkeyed += 1
            hit = hit and self.unkeyed % self.unkeyed_hit_every == 0
        self.seen.add(scope)
        prefix = tokens(system)
        return (prefix // 128) * 128 if hit and prefix >= 1024 else 0

    def __call__(self, body: dict[str, Any]) -> Scripted:
        messages = body["messages"]
        system = _text(messages[0]["content"])
        total = sum(tokens(_text(m["content"])) for m in messages)
        cached = self.cached(body.get("prompt_cache_key", ""), system)
        move = json.dumps(pick(messages))
        message: dict[str, Any] = {"role": "assistant", "content": move}
        finish = "stop"
        if "tools" in body:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "play_move", "arguments": move}}]}
            finish = "tool_calls"
        return Scripted({
            "id": "chatcmpl-c", "object": "chat.completion", "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": total, "completion_tokens": ANSWER,
                      "total_tokens": total + ANSWER,
                      "prompt_tokens_details": {"cached_tokens": cached}}})


class OpenAIResponsesCache(OpenAICache):
    """The same cache on the Responses API (``instructions`` then ``input``)."""

    def __call__(self, body: dict[str, Any]) -> Scripted:  # type: ignore[override]
        system = body.get("instructions") or ""
        turns = [{"role": m["role"], "content": m["content"]} for m in body["input"]
                 if "role" in m]
        total = tokens(system) + sum(tokens(_text(m["content"])) for m in turns)
        cached = self.cached(body.get("prompt_cache_key", ""), system)
        text = json.dumps(pick(turns))
        return Scripted({
            "id": "resp_c", "object": "response", "created_at": 0, "model": body["model"],
            "status": "completed", "incomplete_details": None,
            "output": [{"type": "message", "id": "msg_c", "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": total, "input_tokens_details": {"cached_tokens": cached},
                      "output_tokens": ANSWER,
                      "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": total + ANSWER}})


class AnthropicCache:
    """Also Anthropic's free token counting (`count`, for the server's count_tokens path): the
    input a call of the same request is billed for."""

    def __init__(self) -> None:
        self.written: set[str] = set()

    def count(self, body: dict[str, Any]) -> int:
        system = body.get("system") or []
        blocks = system if isinstance(system, list) else [{"type": "text", "text": system}]
        return tokens(_text(blocks)) + sum(tokens(_text(m["content"])) for m in body["messages"])

    def __call__(self, body: dict[str, Any]) -> Scripted:
        system = body.get("system") or []
        blocks = system if isinstance(system, list) else [{"type": "text", "text": system}]
        prefix = sum(tokens(b["text"]) for b in blocks) if _marked(blocks) else 0
        key = _text(blocks)
        rest = sum(tokens(_text(m["content"])) for m in body["messages"])
        read = write = 0
        if prefix:
            if key in self.written:
                read = prefix
            else:
                write = prefix
                self.written.add(key)
        uncached = tokens(_text(blocks)) - prefix + rest
        move = pick(body["messages"])
        return Scripted({
            "id": "msg_c", "type": "message", "role": "assistant", "model": body["model"],
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "play_move",
                         "input": move}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": uncached, "output_tokens": ANSWER,
                      "cache_read_input_tokens": read, "cache_creation_input_tokens": write}})


class OpenRouterAnthropic:
    """`prices`: what the backend bills per million tokens (input, output, cache read, cache
    write)."""

    def __init__(self, prices: dict[str, float]) -> None:
        self.prices = prices
        self.written: set[str] = set()
        self.billed: list[float] = []

    def __call__(self, body: dict[str, Any]) -> Scripted:
        messages = body["messages"]
        system = messages[0]["content"]
        marked = _marked(system) or bool(body.get("cache_control"))
        prefix = tokens(_text(system)) if marked else 0
        total = sum(tokens(_text(m["content"])) for m in messages)
        read = write = 0
        if prefix:
            if _text(system) in self.written:
                read = prefix
            else:
                write = prefix
                self.written.add(_text(system))
        p = self.prices
        cost = ((total - read - write) * p["input"] + read * p["cached_input"]
                + write * p["cache_write_input"] + ANSWER * p["output"]) / 1e6
        self.billed.append(cost)
        return Scripted({
            "id": "gen-1", "object": "chat.completion", "created": 0, "model": body["model"],
            "provider": "Anthropic",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": json.dumps(pick(messages))}}],
            "usage": {"prompt_tokens": total, "completion_tokens": ANSWER,
                      "total_tokens": total + ANSWER, "cost": cost,
                      "prompt_tokens_details": {"cached_tokens": read,
                                                "cache_write_tokens": write},
                      "completion_tokens_details": {"reasoning_tokens": 0}}})
