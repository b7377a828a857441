"""The settings an LLM call is sent with, and how they adapt to what a model refuses.

When a provider refuses a request with a 400 that names one parameter duel can change, duel
changes exactly that one and sends the request again at once:

- ``temperature``: no longer sent;
- ``max_tokens`` / ``max_completion_tokens``: the other name is sent, or, when the server
  states the model's limit ("64000 > 32000"), the limit;
- ``response_format``: json_schema becomes a tool call, json_object becomes plain text;
- ``tool_choice``: a forced tool becomes ``auto`` (the prompt asks for the move), then no tool
  at all (json_object, or text for Anthropic);
- ``tools``: no tool at all.

The change is remembered per endpoint and model for the rest of the process (every agent and
game of the process, the server's and a tournament worker's included, shares it). It spends no
attempt and is no failure of the model's. A refusal duel cannot adapt to stops the run with
LLMConfigError naming the parameter and the server's message: ``reasoning_effort`` and
``thinking`` (they are the setting a result is labelled with, and only sent when the spec sets
them), a parameter refused again after duel changed it during the same call, or one duel did
not send.
"""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass, replace
from typing import Any

from duel.errors import LLMConfigError, RequestError

MODES = ("json_schema", "tool", "json_object", "text")


@dataclass(frozen=True)
class Settings:
    """What a call is sent with besides the conversation. `max_output` is the model's output
    limit when known (the table's, or one a refusal stated): budgets never go above it."""

    mode: str
    temperature: float | None
    token_param: str
    max_tokens: int
    reasoning_effort: str | None = None
    thinking: int | None = None
    provider_pin: str | None = None
    tool_choice: str = "forced"  # forced or auto, in tool mode
    max_output: int | None = None
    # Anthropic: adaptive thinking sent ({"type": "adaptive"}, the model sizes it), and the
    # thinking display asked for ("summarized" where the model omits the text by default)
    adaptive_thinking: bool = False
    thinking_display: str | None = None
    # The reasoning a result is labelled with when neither reasoning option is set: the
    # provider's documented default for the model, "unknown (provider default)" if duel does
    # not know it. None: not looked up (a provider's bare defaults, a test's).
    default_reasoning: str | None = None
    # A compatible server's kind (servers.py: llamacpp, vllm, ollama, unknown), which decides
    # the structured output a refused one falls back to. None: not a compatible server.
    server: str | None = None
    # The largest budget a reply cut off while reasoning grows to (models.py: the model's
    # limit, or its provider's largest for a model the table does not know). None: the spec
    # set max_tokens, and growth stops at TRUNCATION_GROWTH times it.
    grow_to: int | None = None

    def reasons(self) -> bool:
        return bool(self.reasoning_effort and self.reasoning_effort != "none") or \
            bool(self.thinking) or self.adaptive_thinking

    def public(self, provider: str, model: str) -> dict[str, Any]:
        """The effective settings as a transcript and `LLMAgent.settings()` show them."""
        d = asdict(self)
        for key in ("max_output", "adaptive_thinking", "thinking_display", "grow_to"):
            d.pop(key)
        for key in ("default_reasoning", "server"):
            if d[key] is None:
                d.pop(key)
        if self.adaptive_thinking:
            d["thinking_request"] = "adaptive" + (
                f", display {self.thinking_display}" if self.thinking_display else "")
        return {"provider": provider, "model": model, **d}


@dataclass(frozen=True)
class Adaptation:
    parameter: str
    change: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"parameter": self.parameter, "change": self.change, "reason": self.reason}


# ---------------------------------------------------------------------------- what is learned
_lock = threading.Lock()
_learned: dict[tuple[str, str], dict[str, Any]] = {}
_MISSING = object()


def learned(endpoint: str, model: str) -> dict[str, Any]:
    """The settings changed for this endpoint and model so far in the process."""
    with _lock:
        return dict(_learned.get((endpoint, model), {}))


def learn(endpoint: str, model: str, changes: dict[str, Any]) -> bool:
    """Remember `changes`; False if another call of the process had learned them already."""
    with _lock:
        known = _learned.setdefault((endpoint, model), {})
        new = any(known.get(k, _MISSING) != v for k, v in changes.items())
        known.update(changes)
        return new


def forget() -> None:
    """Drop everything learned, the grown output budgets and the servers looked up too (a
    fresh process; tests)."""
    from duel.agents.llm.servers import kinds as server_kinds
    from duel.agents.llm.transport import budgets

    with _lock:
        _learned.clear()
    budgets.forget()
    server_kinds.forget()


def effective(base: Settings, endpoint: str, model: str) -> Settings:
    """`base` with what the process has learned about this endpoint and model."""
    changes = learned(endpoint, model)
    if "max_output" in changes:
        limit = changes["max_output"]
        changes["max_tokens"] = min(base.max_tokens, limit)
    return replace(base, **changes) if changes else base


# ---------------------------------------------------------------------------- refusals
# Parameters a refusal may name, in the order a message naming several is read: a thinking
# refusal names tool_choice or temperature as the thing to change, and thinking itself last.
_NAMES: tuple[tuple[str, str], ...] = (
    ("tool_choice", r"tool[_ ]choice"),
    ("temperature", r"temperature"),
    ("max_tokens", r"max_(?:completion_|output_)?tokens"),
    ("response_format", r"response[_ ]format|text\.format"),
    ("reasoning_effort", r"reasoning[_.]effort|output_config\.effort"),
    ("tools", r"\btools\b"),
    ("thinking", r"\bthinking\b"),
)
_GROUP = {"max_completion_tokens": "max_tokens", "max_output_tokens": "max_tokens",
          "text": "response_format"}  # the Responses API's names
_LIMIT = re.compile(r"(\d+)\s*>\s*(\d+)(?:\s*-\s*(\d+))?")
_AT_MOST = re.compile(r"(?:at most|maximum of|up to)\s+(\d+)", re.IGNORECASE)
_UNSUPPORTED = re.compile(r"unsupported|not supported|unrecognized|unknown|not allowed|"
                          r"not permitted|extra (?:inputs|fields)|instead", re.IGNORECASE)


def refused_parameter(exc: RequestError) -> str | None:
    """The parameter a 400 names (the body's `param` first, then the message), or None."""
    if exc.param:
        param = exc.param.split(".")[0].split("[")[0]
        param = _GROUP.get(param, param)
        if any(param == name for name, _ in _NAMES):
            return param
    text = exc.detail or str(exc)
    for name, pattern in _NAMES:
        if re.search(pattern, text, re.IGNORECASE):
            return name
    return None


def adapt(settings: Settings, sent_tokens: int, exc: RequestError, who: str, anthropic: bool,
          tried: set[str]) -> tuple[dict[str, Any], Adaptation] | None:
    """The change that answers this refusal of a request sent with `settings` and an output
    limit of `sent_tokens`: the settings to change and its record. None if the refusal names
    no parameter (the attempt is spent, as for any refused request). Raises LLMConfigError for
    a parameter duel cannot change."""
    param = refused_parameter(exc)
    if param is None:
        return None
    message = exc.detail or str(exc)
    if param in tried:
        raise LLMConfigError(f"{who}: the server refused {param} again after duel changed it: "
                             f"{message}")
    found = _change(settings, sent_tokens, param, message, anthropic)
    if found is None:
        raise LLMConfigError(f"{who}: the server refused {_sent(settings, param)} and duel "
                             f"cannot change it: {message}")
    tried.add(param)
    changes, text = found
    return changes, Adaptation(param, text, message)


def _sent(settings: Settings, param: str) -> str:
    """The parameter as the request had it, for an error message."""
    if param == "reasoning_effort" and settings.reasoning_effort is not None:
        return (f"reasoning_effort={settings.reasoning_effort} (set in the spec; choose a value "
                "the model accepts, or leave it unset)")
    if param == "thinking" and settings.thinking:
        return (f"thinking={settings.thinking} (set in the spec; the model may not take a "
                "thinking budget)")
    if param == "temperature" and settings.temperature is None:
        return "temperature (which duel did not send)"
    return param


def _change(s: Settings, sent: int, param: str, message: str, anthropic: bool
            ) -> tuple[dict[str, Any], str] | None:
    if param == "temperature" and s.temperature is not None:
        return {"temperature": None}, f"temperature {s.temperature:g} -> not sent"
    if param == "max_tokens":
        return _token_change(s, sent, message)
    if param == "response_format" and s.server not in (None, "unknown"):
        return _server_fallback(s)
    if param == "response_format":
        if s.mode == "json_schema":
            return {"mode": "tool", "tool_choice": "forced"}, "json_schema -> tool call"
        if s.mode == "json_object":
            return {"mode": "text"}, "json_object -> text"
    if param == "tool_choice" and s.mode == "tool":
        if s.tool_choice == "forced":
            return {"tool_choice": "auto"}, "forced tool -> tool_choice auto"
        return _no_tools(anthropic)
    if param == "tools" and s.mode == "tool":
        return _no_tools(anthropic)
    return None  # reasoning_effort, thinking, or a parameter duel did not send


def _server_fallback(s: Settings) -> tuple[dict[str, Any], str] | None:
    """A compatible server's next structured output (servers.py), e.g. llama.cpp's json_object
    with the schema, which it enforces, rather than a forced tool, which it ignores."""
    from duel.agents.llm.servers.kinds import kind_of

    kind = kind_of(s.server)
    after = kind.fallback(s.mode) if kind is not None else None
    if kind is None or after is None:
        return None
    return ({"mode": after, "tool_choice": "forced"},
            f"{s.mode} -> {after} (the next structured output for {kind.label})")


def _no_tools(anthropic: bool) -> tuple[dict[str, Any], str]:
    mode = "text" if anthropic else "json_object"
    return {"mode": mode, "tool_choice": "forced"}, f"tool -> {mode}"


def _token_change(s: Settings, sent: int, message: str) -> tuple[dict[str, Any], str] | None:
    cap = _stated_limit(message, sent)
    if cap is not None:
        return {"max_output": cap}, f"{s.token_param} {sent} -> at most {cap} (the model's limit)"
    other = "max_completion_tokens" if s.token_param == "max_tokens" else "max_tokens"
    if re.search(rf"\b{s.token_param}\b", message) and _UNSUPPORTED.search(message):
        return {"token_param": other}, f"{s.token_param} -> {other}"
    return None


def _stated_limit(message: str, sent: int) -> int | None:
    """The output limit a refusal states ("64000 > 32000", "(8192 > 4096 - 3000)", "at most
    16384"), if it is under what was sent."""
    found = _LIMIT.search(message)
    if found and int(found.group(1)) == sent:
        cap = int(found.group(2)) - int(found.group(3) or 0)
    else:
        at_most = _AT_MOST.search(message)
        if at_most is None:
            return None
        cap = int(at_most.group(1))
    return cap if 0 < cap < sent else None
