"""A responder for FakeLLMServer that answers as the Gemini API documents `generateContent`
(``POST /v1beta/models/{model}:generateContent``), for the real `google-genai` SDK:

- the reply is ``candidates[0].content.parts``: a thought summary (``thought: true``) when the
  request's ``generationConfig.thinkingConfig.includeThoughts`` asks for one, then the answer
  (JSON text for ``responseMimeType: application/json``, a ``functionCall`` when tools are
  offered), the last part carrying a ``thoughtSignature``;
- thinking spends ``thoughtsTokenCount`` (billed as output, beside ``candidatesTokenCount``);
- implicit caching: a request whose ``systemInstruction`` was seen before reads it from the
  cache (at least 1024 tokens), reported as ``cachedContentTokenCount`` within
  ``promptTokenCount``;
- a tool loop is held to Google's rule for Gemini 3: a model turn with a function call given
  back without its ``thoughtSignature`` is refused with a 400;
- explicit caching: ``POST /v1beta/cachedContents`` makes a cache of a system instruction,
  tools and tool config (refused below 1024 tokens, "too small", as Google does); a
  ``generateContent`` naming it as ``cachedContent`` reads them from it (all its tokens counted
  cached) and is refused with a 400 if it also sends any of the three, or names an unknown
  cache;
- each call is billed at `prices` (per million tokens: input, cached_input, output), into
  `billed`; a cache made, at the input price and `storage` (a million tokens an hour) for its
  TTL.

A token is four characters of the request's text. It answers a legal move of the position.
"""

from __future__ import annotations

import json
from typing import Any

from helpers.fake_llm_server import Scripted
from helpers.fake_reasoning_servers import pick

ANSWER = 30  # output tokens of an answer
THOUGHTS = 200  # thinking tokens of a call that thinks
SIGNATURE = "c2lnbmVkLXRob3VnaHQ="  # base64, as the API sends it
MISSING = ("Function call is missing a thought_signature in functionCall parts. This is "
           "required for tools to work correctly.")


def field(obj: dict[str, Any], camel: str) -> Any:
    """A request field in either spelling: the API parses its JSON as protobuf does, taking
    ``thinkingLevel`` and ``thinking_level`` alike (the SDK sends some of each)."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return obj.get(camel, obj.get(snake))


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _text(content: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in content.get("parts", []) if not p.get("thought"))


def as_chat(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The contents as chat messages (for `pick`, which reads the first user turn)."""
    return [{"role": "user" if c.get("role") == "user" else "assistant", "content": _text(c)}
            for c in contents]


MIN_CACHE = 1024  # Gemini 2.5 Flash's minimum tokens for a cache
CACHED_WITH = ("CachedContent can not be used with GenerateContent request setting "
               "system_instruction, tools or tool_config.\n\nProposed fix: move those values "
               "to CachedContent from GenerateContent request.")


def _error(code: int, message: str, status: str) -> Scripted:
    return Scripted({"error": {"code": code, "message": message, "status": status}}, code)


class GeminiModel:
    """`tool_steps`: with tools offered, look-ups (get_state) before make_move."""

    routes = ("/cachedContents",)

    def __init__(self, prices: dict[str, float], tool_steps: int = 1,
                 storage: float = 1.0) -> None:
        self.prices = prices
        self.storage = storage
        self.tool_steps = tool_steps
        self.seen: set[str] = set()
        self.billed: list[float] = []
        self.bodies: list[dict[str, Any]] = []
        self.caches: dict[str, dict[str, Any]] = {}

    def route(self, path: str, body: dict[str, Any]) -> Scripted:
        """``POST /v1beta/cachedContents``: a cache of the body's system instruction, tools
        and tool config, billed as made (creation at the input price, storage for its TTL)."""
        system = _text(field(body, "systemInstruction") or {})
        kept = {"system": system, "tools": body.get("tools"),
                "toolConfig": field(body, "toolConfig")}
        n = tokens(system) + (tokens(json.dumps(body["tools"])) if body.get("tools") else 0)
        if n < MIN_CACHE:
            return _error(400, f"Cached content is too small. total_token_count={n}, "
                          f"min_total_token_count={MIN_CACHE}", "INVALID_ARGUMENT")
        ttl = float(str(body.get("ttl", "3600s")).removesuffix("s"))
        name = f"cachedContents/c{len(self.caches) + 1}"
        self.caches[name] = {**kept, "tokens": n}
        self.billed.append(n * (self.prices["input"] + self.storage * ttl / 3600) / 1e6)
        return Scripted({"name": name, "model": body.get("model"), "displayName":
                         body.get("displayName", ""), "usageMetadata": {"totalTokenCount": n},
                         "createTime": "2026-12-02T05:00:00Z",
                         "expireTime": "2026-12-02T06:00:00Z"})

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.bodies.append(body)
        contents = body["contents"]
        system = _text(field(body, "systemInstruction") or {})
        named = field(body, "cachedContent")
        cache: dict[str, Any] | None = None
        if named:
            if system or body.get("tools") or field(body, "toolConfig"):
                return _error(400, CACHED_WITH, "INVALID_ARGUMENT")
            if named not in self.caches:
                return _error(403, "CachedContent not found (or permission denied)",
                              "PERMISSION_DENIED")
            cache = self.caches[named]
            system = cache["system"]
            body = {**body, "tools": cache["tools"]}
        config = field(body, "generationConfig") or {}
        thinking = field(config, "thinkingConfig") or {}
        for c in contents:  # Google's rule for function calls given back
            for p in c.get("parts", []):
                if c.get("role") == "model" and field(p, "functionCall") and \
                        not field(p, "thoughtSignature"):
                    return Scripted({"error": {"code": 400, "message": MISSING,
                                               "status": "INVALID_ARGUMENT"}}, 400)
        prompt = tokens(system) + sum(tokens(json.dumps(c)) for c in contents)
        cached = tokens(system) if system in self.seen and tokens(system) >= MIN_CACHE else 0
        if cache is not None:  # all of an explicit cache is read from it
            prompt += cache["tokens"] - tokens(system)
            cached = cache["tokens"]
        self.seen.add(system)
        budget = field(thinking, "thinkingBudget")
        thinks = budget is None or budget != 0
        move = pick(as_chat(contents))
        parts: list[dict[str, Any]] = []
        if thinks and field(thinking, "includeThoughts"):
            parts.append({"text": "**Weighing the pyramid**\n\nThe open cards first.",
                          "thought": True})
        answer: dict[str, Any]
        if body.get("tools"):
            looked = sum(1 for c in contents for p in c.get("parts", [])
                         if field(p, "functionResponse"))
            name = "get_state" if looked < self.tool_steps else "make_move"
            declared = [d["name"] for t in body["tools"] for d in field(t, "functionDeclarations")]
            if name not in declared:
                name = declared[0]
            answer = {"functionCall": {"name": name,
                                       "args": move if name != "get_state" else {}}}
        else:
            answer = {"text": json.dumps(move)}
        parts.append({**answer, "thoughtSignature": SIGNATURE})
        thoughts = THOUGHTS if thinks else 0
        p = self.prices
        self.billed.append(((prompt - cached) * p["input"] + cached * p["cached_input"]
                            + (ANSWER + thoughts) * p["output"]) / 1e6)
        usage: dict[str, Any] = {"promptTokenCount": prompt, "candidatesTokenCount": ANSWER,
                                 "totalTokenCount": prompt + ANSWER + thoughts}
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        if cached:
            usage["cachedContentTokenCount"] = cached
        return Scripted({
            "candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage, "modelVersion": "gemini-2.5-flash",
            "responseId": f"resp-{len(self.billed)}"})
