"""Google's Gemini API (`llm:google:MODEL`) through the official `google-genai` SDK
(`generateContent` at ``/v1beta/models/{model}:generateContent``).

- The rules text is the request's `systemInstruction`; the conversation its `contents` (turns
  of `parts`), converted here from the Chat Completions form the conversation keeps (text,
  image_url data URLs as `inlineData`, `role: "tool"` results as `functionResponse` parts).
- Structured output is `responseMimeType: application/json` with the move schema as
  `responseJsonSchema` (mode json_schema), JSON mode alone (json_object), the move as a function
  declaration called through `functionCallingConfig` ANY (mode tool) or text.
- tools=on offers the tool set as `functionDeclarations` (mode AUTO); the model's turn goes
  back as it came, so its `thoughtSignature`s reach the next request of the tool loop, as
  Google requires of Gemini 3's function calls.
- Thinking is as Google documents it per family: `thinkingLevel` for Gemini 3
  (reasoning_effort=low|high, and minimal|medium on Flash), `thinkingBudget` for Gemini 2.5
  (thinking=N tokens; 0 turns it off on Flash, -1 is dynamic); `includeThoughts` is asked
  whenever the model thinks, and the thought summaries (`thought: true` parts) are recorded
  as the call's thinking text.
- Usage is `usageMetadata`: `promptTokenCount` (the cached part included),
  `cachedContentTokenCount` (Gemini caches a repeated prefix by itself, implicit caching),
  `candidatesTokenCount` plus `thoughtsTokenCount` as output (thoughts bill as output).
- `cache=explicit`: the rules text (with the tools and tool config, which a cached request may
  not send beside it) goes once into a `cachedContents` resource of a one-hour TTL, and each
  call names it (`cachedContent`): the cost saving Google guarantees, where implicit caching
  only may hit. The call that made a cache records its tokens as cache writes, priced as
  creation (input price), the hour's storage and that call's read (models.py); a cache is made
  anew a minute before its hour ends. A text under the model's minimum for a cache is refused
  by Google: that call goes uncached and the refusal is said once on stderr.
- The key is GEMINI_API_KEY; `base_url=` goes to the SDK's `HttpOptions(base_url=...)`. The
  SDK's own retries are off (its default): duel retries transport failures and records each.
  Calls are not streamed: `timeout=` bounds the whole call.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import time
from dataclasses import dataclass
from typing import Any

from duel.agents.llm.models import ANSWER_TOKENS, CACHE_HOURS, ModelFamily, family
from duel.agents.llm.providers.base import (
    TOOL_DESCRIPTION,
    TOOL_NAME,
    Reply,
    ToolUse,
    _retry_after,
    by_status,
    may_think,
)
from duel.agents.llm.providers.openai_chat import key
from duel.agents.llm.providers.registry import KINDS, BuildOptions
from duel.agents.llm.schema import structured_schema
from duel.agents.llm.transport.adapt import MODES, Settings
from duel.errors import LLMConfigError, SpecError, TransportError

NAME = "google"
API_VERSION = "v1beta"
TOKEN_PARAM = KINDS[NAME].caps.token_param
CACHE_FORMS = ("implicit", "explicit")
CACHE_TTL_S = CACHE_HOURS * 3600  # Google's default TTL, the hour models.py prices
_clock = time.monotonic  # when a cache was made (a test moves it on an hour)
RENEW_S = 60  # a cache is made anew this long before its TTL ends: no call names a gone one
# finishReason values that mean the model (or its filter) declined, not a malformed reply
DECLINED = ("SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION")


def build(target: str, o: BuildOptions) -> GeminiProvider:
    if o.mode and o.mode not in MODES:
        raise SpecError("llm:google: mode must be json_schema, tool, json_object or text")
    fam = family(target)
    return GeminiProvider(target, key(KINDS[NAME].key_env, NAME), o.base_url,
                          o.mode or "json_schema",
                          o.timeout, thinks=fam is None or fam.reasons,
                          cache=o.cache or "implicit")


def budget_form(model: str, fam: ModelFamily | None) -> bool:
    """Whether `model` takes a thinking budget (Gemini 2.5) rather than a thinking level."""
    return fam.thinking if fam is not None else model.rpartition("/")[2].startswith("gemini-2")


def check_options(params: dict[str, Any]) -> None:
    cache = params.get("cache")
    if cache is not None and cache not in CACHE_FORMS:
        raise SpecError(f"llm:google: cache must be implicit (Gemini caches a repeated prefix "
                        f"by itself) or explicit (a cachedContents resource), got {cache!r}")
    thinking = params["thinking"]
    if thinking is not None and thinking < -1:
        raise SpecError(f"llm:google: thinking is a budget of tokens (0 off on Flash, -1 "
                        f"dynamic), got {thinking}")


def reasoning_family(fam: ModelFamily | None, model: str, params: dict[str, Any]) -> None:
    """The reasoning options against the model's form (SpecErrors before any money is spent):
    Gemini 3 takes a thinking level (reasoning_effort=), Gemini 2.5 a budget (thinking=N)."""
    effort, thinking = params["reasoning_effort"], params["thinking"]
    if budget_form(model, fam):
        if effort is not None:
            raise SpecError(f"llm:google: {model} takes no reasoning_effort (Gemini 2.5 takes "
                            "a thinking budget); use thinking=N")
        return
    if thinking is not None:
        levels = "|".join(fam.efforts) if fam is not None and fam.efforts else "low|high"
        raise SpecError(f"llm:google: {model} takes no thinking budget (Gemini 3 takes a "
                        f"thinking level); set reasoning_effort={levels}")
    if effort is not None and fam is not None and effort not in fam.efforts:
        raise SpecError(f"llm:google: {model} takes reasoning_effort "
                        f"{', '.join(fam.efforts)}, got {effort!r}")


@dataclass
class _Cache:
    """An explicit cache: its resource name, its tokens, when it was made (monotonic s), and
    whether a reply has recorded its making yet (as cache writes)."""

    name: str
    tokens: int
    made_at: float
    recorded: bool = False


class GeminiProvider:
    """The Gemini API; `thinks`: the model thinks (its thought summaries are asked for)."""

    name = NAME
    caps = KINDS[NAME].caps

    def __init__(self, model: str, api_key: str, base_url: str | None = None,
                 mode: str = "json_schema", timeout: float = 600.0, thinks: bool = True,
                 cache: str = "implicit") -> None:
        from google import genai
        from google.genai import types

        self.model = model
        self.mode = mode
        self.thinks = thinks
        self.timeout = timeout
        self.base_url = base_url or ""
        self.cache = cache
        self._caches: dict[str, _Cache] = {}  # explicit caching: one per (rules text, tools)
        self._uncachable: set[str] = set()  # what Google refused to cache (too small)
        self._types = types
        # v1beta: where Google documents generateContent with responseJsonSchema, thinking
        # levels and thought signatures (the SDK's own default version may differ)
        self._client = genai.Client(api_key=api_key, http_options=types.HttpOptions(
            base_url=base_url, api_version=API_VERSION, timeout=int(timeout * 1000)))

    def defaults(self) -> Settings:
        return Settings(self.mode, None, TOKEN_PARAM, ANSWER_TOKENS)

    async def close(self) -> None:
        await self._client.aio.aclose()

    def config(self, system: str, max_tokens: int, temperature: float | None,
               schema: dict[str, Any] | None, s: Settings,
               tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        """The request's `generationConfig`, tools and system instruction (the SDK's
        GenerateContentConfig, in its REST spelling)."""
        schema = schema if schema is not None else structured_schema()
        config: dict[str, Any] = {"systemInstruction": system, "maxOutputTokens": max_tokens}
        if tools is not None:
            config["tools"] = [{"functionDeclarations": [_declaration(t) for t in tools]}]
            config["toolConfig"] = {"functionCallingConfig": {"mode": "AUTO"}}
        elif s.mode == "json_schema":
            config["responseMimeType"] = "application/json"
            config["responseJsonSchema"] = schema
        elif s.mode == "json_object":
            config["responseMimeType"] = "application/json"
        elif s.mode == "tool":
            config["tools"] = [{"functionDeclarations": [{
                "name": TOOL_NAME, "description": TOOL_DESCRIPTION,
                "parametersJsonSchema": schema}]}]
            forced = {"mode": "ANY", "allowedFunctionNames": [TOOL_NAME]}
            config["toolConfig"] = {"functionCallingConfig": forced if s.tool_choice == "forced"
                                    else {"mode": "AUTO"}}
        if temperature is not None:
            config["temperature"] = temperature
        thinking: dict[str, Any] = {}
        if s.reasoning_effort is not None:
            thinking["thinkingLevel"] = s.reasoning_effort.upper()
        if s.thinking is not None:
            thinking["thinkingBudget"] = s.thinking
        if (self.thinks or may_think(s)) and s.thinking != 0:
            thinking["includeThoughts"] = True  # the summaries, recorded as thinking text
        if thinking:
            config["thinkingConfig"] = thinking
        return config

    async def complete(self, system: str, messages: list[dict[str, Any]], max_tokens: int,
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None,
                       tools: list[dict[str, Any]] | None = None) -> Reply:
        s = settings or self.defaults()
        types = self._types
        built = self.config(system, max_tokens, temperature, schema, s, tools)
        made: _Cache | None = None
        if self.cache == "explicit":
            built, made = await self._use_cache(built)
        try:
            config = types.GenerateContentConfig.model_validate_json(json.dumps(built))
            contents = [types.Content.model_validate_json(json.dumps(c))
                        for c in contents_of(messages)]
        except ValueError as exc:  # what duel built, refused by the SDK's own types: no call
            raise LLMConfigError(f"{self.name}: the SDK refused the request duel built, "
                                 f"nothing was sent: {str(exc)[:300]}") from exc
        try:
            resp = await self._client.aio.models.generate_content(
                model=self.model, contents=contents, config=config)
        except Exception as exc:  # noqa: BLE001 - mapped to our three kinds, or re-raised
            raise self._classify(exc) from exc
        try:
            out = reply(resp, "tools" if tools is not None else s.mode)
        except (AttributeError, TypeError, ValueError, IndexError) as exc:
            raise TransportError(f"{self.name}: malformed response: {exc}") from exc
        if made is not None and not made.recorded:
            # the first reply read from a new cache records its making: those tokens are
            # writes, not reads (a call that failed before this left it unrecorded)
            moved = min(made.tokens, out.cached_tokens)
            out.cached_tokens -= moved
            out.cache_write_tokens = moved
            made.recorded = True
        return out

    async def _use_cache(self, built: dict[str, Any]) -> tuple[dict[str, Any], _Cache | None]:
        """`built` naming the explicit cache of its rules text, tools and tool config (made
        here when there is none or its hour is nearly over) instead of sending them, and that
        cache. A text Google will not cache goes as it is."""
        cached: dict[str, Any] = {k: built[k] for k in ("systemInstruction", "tools", "toolConfig")
                                  if k in built}
        key = hashlib.sha256(json.dumps(cached, sort_keys=True).encode()).hexdigest()
        if key in self._uncachable:
            return built, None
        entry = self._caches.get(key)
        if entry is None or _clock() - entry.made_at > CACHE_TTL_S - RENEW_S:
            entry = await self._create_cache(key, cached)
            if entry is None:
                return built, None
        rest = {k: v for k, v in built.items() if k not in cached}
        return {**rest, "cachedContent": entry.name}, entry

    async def _create_cache(self, key: str, cached: dict[str, Any]) -> _Cache | None:
        """A `cachedContents` resource of `cached` (REST spelling), or None where Google
        refuses it as too small for the model (said once; the calls then go uncached)."""
        from google.genai import errors

        config = self._types.CreateCachedContentConfig.model_validate_json(json.dumps(
            {**cached, "ttl": f"{CACHE_TTL_S}s", "displayName": "duel rules " + key[:12]}))
        try:
            made = await self._client.aio.caches.create(model=self.model, config=config)
        except errors.ClientError as exc:
            if exc.code == 400 and "too small" in str(exc.message or "").lower():
                self._uncachable.add(key)
                print(f"duel: llm:google:{self.model}: cache=explicit: Google will not cache "
                      f"this text ({str(exc.message)[:200]}); these calls go uncached "
                      "(implicit caching may still hit)", file=sys.stderr)
                return None
            raise self._classify(exc) from exc
        except Exception as exc:  # noqa: BLE001 - mapped to our three kinds, or re-raised
            raise self._classify(exc) from exc
        usage = made.usage_metadata
        if not made.name:
            raise TransportError(f"{self.name}: the cache made for the rules text came back "
                                 "without a name")
        entry = _Cache(made.name, (usage.total_token_count or 0) if usage is not None else 0,
                       _clock())
        self._caches[key] = entry
        return entry


    def _classify(self, exc: Exception) -> Exception:
        """The SDK's errors as duel's kinds: its APIError by HTTP status; a timeout, a failed
        connection or a body that is not the API's JSON as a retried TransportError."""
        import aiohttp
        import httpx
        from google.genai import errors

        if isinstance(exc, errors.APIError):
            detail = str(exc.message or exc.status or "")[:300]
            return by_status(int(exc.code or 0), detail, self.name, self.model,
                             _retry_after(exc))
        if isinstance(exc, asyncio.TimeoutError | httpx.TimeoutException):
            return TransportError(f"{self.name}: timed out (no reply received, nothing recorded "
                                  f"as billed): {exc}")
        if isinstance(exc, aiohttp.ClientError | httpx.HTTPError | OSError):
            return TransportError(f"{self.name}: connection failed: {exc}")
        if isinstance(exc, ValueError):
            return TransportError(f"{self.name}: malformed response: {str(exc)[:300]}")
        return exc


def _declaration(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool of the set (Chat Completions' form, toolloop.py) as a Gemini function
    declaration, its parameters as JSON Schema."""
    f = tool.get("function", tool)
    return {"name": f["name"], "description": f.get("description", ""),
            "parametersJsonSchema": f.get("parameters") or {"type": "object"}}


def contents_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as Gemini `contents`: each chat message as a turn of parts; a model
    turn given back as it came (its thought signatures with it); the `role: "tool"` results
    after it as one user turn of `functionResponse` parts, each naming the call it answers
    (by id where the call had one, else by its place among the turn's calls)."""
    out: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []  # the last model turn's function calls
    answered = 0
    for m in messages:
        role = m.get("role")
        if "parts" in m:  # a model turn as the API sent it
            out.append(m)
            calls = [p["functionCall"] for p in m["parts"] if "functionCall" in p]
            answered = 0
            continue
        if role == "tool":
            call = calls[answered] if answered < len(calls) else {}
            answered += 1
            result = json.loads(m.get("content") or "{}")
            part = {"functionResponse": {
                **({"id": call["id"]} if call.get("id") else {}),
                "name": call.get("name", ""),
                "response": result if isinstance(result, dict) else {"result": result}}}
            if out and out[-1]["role"] == "user" and any(
                    "functionResponse" in p for p in out[-1]["parts"]):
                out[-1]["parts"].append(part)
            else:
                out.append({"role": "user", "parts": [part]})
            continue
        out.append({"role": "model" if role == "assistant" else "user",
                    "parts": _parts(m.get("content"))})
    return out


def _parts(content: Any) -> list[dict[str, Any]]:
    """A chat message's content as parts: text, and the board's data URL as inlineData."""
    if isinstance(content, str) or content is None:
        return [{"text": content or ""}]
    parts: list[dict[str, Any]] = []
    for p in content:
        if p.get("type") == "text":
            parts.append({"text": p["text"]})
        elif p.get("type") == "image_url":
            head, _, data = p["image_url"]["url"].partition(",")
            mime = head.removeprefix("data:").removesuffix(";base64")
            parts.append({"inlineData": {"mimeType": mime, "data": data}})
    return parts


def reply(resp: Any, mode: str) -> Reply:
    """A generateContent response as duel's Reply (`mode` "tools": its function calls as tool
    uses, and its turn as it goes back)."""
    candidates = resp.candidates or []
    candidate = candidates[0] if candidates else None
    content = candidate.content if candidate is not None else None
    parts = (content.parts or []) if content is not None else []
    said: list[str] = []
    thoughts: list[str] = []
    uses: list[ToolUse] = []
    move: Any | None = None
    for i, part in enumerate(parts):
        if part.text is not None and part.thought:
            thoughts.append(part.text)
        elif part.text is not None:
            said.append(part.text)
        elif part.function_call is not None:
            call = part.function_call
            args = json.dumps(call.args or {})
            if mode == "tools":
                uses.append(ToolUse(call.id or f"call_{i}", call.name or "", args))
            elif call.name == TOOL_NAME and move is None:
                move = call.args or {}
    text = "".join(said)
    structured: Any | None = None
    if mode == "tool" and move is not None:
        text, structured = json.dumps(move), move
    elif mode in ("json_schema", "json_object") and text:
        try:
            structured = json.loads(text)
        except ValueError:
            structured = None
    finish = str(getattr(candidate.finish_reason, "value", candidate.finish_reason) or "") \
        if candidate is not None else ""
    feedback = getattr(resp, "prompt_feedback", None)
    blocked = getattr(feedback, "block_reason", None) if feedback is not None else None
    if blocked is not None and not finish:
        finish = f"blocked: {getattr(blocked, 'value', blocked)}"
    content_text = "".join(said)
    raw = content_text + ("\n" if content_text and text != content_text else "") + \
        (text if text != content_text else "")
    message = None
    if uses:
        raw = "\n".join([*([text] if text else []),
                         *(f"{t.name}({t.arguments})" for t in uses)])
        message = {"role": "model", "parts": [p.model_dump(mode="json", by_alias=True,
                                                           exclude_none=True) for p in parts]}
    u = resp.usage_metadata
    prompt = (u.prompt_token_count or 0) if u is not None else 0
    cached = (u.cached_content_token_count or 0) if u is not None else 0
    answer = (u.candidates_token_count or 0) if u is not None else 0
    thought = (u.thoughts_token_count or 0) if u is not None else 0
    return Reply(text, structured, finish, prompt, answer + thought, cached,
                 truncated=finish == "MAX_TOKENS", raw=raw, reasoning_tokens=thought,
                 thinking="\n\n".join(thoughts), tool_calls=uses, message=message,
                 refused=(finish in DECLINED or blocked is not None) and not said and not uses,
                 served_model=getattr(resp, "model_version", None) or None,
                 request_id=getattr(resp, "response_id", None) or None)
