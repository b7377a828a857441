"""What callers never see: the paths, URLs and remote replies behind an operator-configured
agent's failure (the server's log has them). (An agent's details, search statistics and LLM
replies, exist only once its move is played; they are public from then on: server/games/export.py.)

A configured agent reaches callers wrapped in :class:`OperatorAgent`: it answers to its name, and
whatever goes wrong inside it comes out as one line built from the error's class and duel's own
words, never from a file name, an endpoint or what the endpoint said."""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterable, Sequence
from typing import Any

from duel.agents.base import Agent, Decision
from duel.agents.spec import split_spec
from duel.engine import Move
from duel.errors import DuelError, LLMConfigError, ProviderError, RequestError, TransportError

log = logging.getLogger("duel.server")

# Whatever a configured spec could hide: a URL (any scheme), an absolute, home or relative path,
# and anything an error quotes (duel's errors quote the file or value they refuse).
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]*")
_PATH = re.compile(r"(?<![\w/.~-])(?:[A-Za-z]:[\\/]|~?/|\.{1,2}[\\/])[^\s'\"<>,;]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
SHORTEST_SECRET = 3  # a shorter piece of a spec ("m", "0") would blank words, not places
LOGGED = 300  # characters of a refused remote reply kept in the log

# What a provider's failure says to callers; its message quotes the endpoint's reply.
_PROVIDER_REASONS: tuple[tuple[type[ProviderError], str], ...] = (
    (LLMConfigError, "the provider is not usable as configured (key, model, endpoint or "
                     "installation)"),
    (RequestError, "the provider refused the request"),
    (TransportError, "the provider could not be reached or failed"),
    (ProviderError, "the provider gave no usable answer"),
)


def secrets_of(spec: str) -> list[str]:
    """The pieces of a configured spec's text after its kind (the whole, each option's value,
    each side of an `@`), longest first so that a URL goes before its host: a model file named
    without a slash is as private as a path."""
    rest = spec.partition(":")[2]
    parts = split_spec(spec)
    pieces = {rest}
    for value in (parts.target, *(v for _, v in parts.options)):
        pieces.update({value, *value.split("@")})
    return sorted((p for p in pieces if len(p) >= SHORTEST_SECRET), key=len, reverse=True)


def scrub(text: str, hide: Iterable[str] = ()) -> str:
    """`text` on one line, with every string of `hide`, every quoted string, URL and path in it
    replaced by a mark."""
    text = " ".join(text.split())
    for secret in hide:
        text = text.replace(secret, "<configured>")
    text = _QUOTED.sub("<quoted>", text)
    text = _URL.sub("<url>", text)
    return _PATH.sub("<path>", text)


def public_reason(exc: BaseException, hide: Iterable[str] = ()) -> str:
    """One line on why an agent failed that callers may read: a provider's failure by its kind
    alone, duel's own refusals scrubbed (see `scrub`), anything else by its class."""
    if isinstance(exc, ProviderError):
        said = next(text for cls, text in _PROVIDER_REASONS if isinstance(exc, cls))
        return f"{type(exc).__name__}: {said}"
    if isinstance(exc, DuelError):
        return scrub(str(exc), hide)
    return type(exc).__name__


def call_failure(error: str) -> str:
    """The public form of a failed LLM call's error (duel's wording of a provider's failure,
    with the endpoint's reply in it): what failed, and the HTTP status if there was one."""
    if "connection failed" in error:
        return "connection failed"
    status = re.search(r"HTTP (\d{3})", error)
    if status:
        return f"HTTP {status.group(1)}"
    if "malformed response" in error:
        return "malformed response"
    return "provider error"


class OperatorAgent:
    """An operator-configured agent as callers meet it: by its name. Its failures come out as
    ProviderError with a public reason (the detail goes to the log), and the errors its LLM
    calls met are recorded without the endpoint's replies."""

    def __init__(self, name: str, spec: str, inner: Agent) -> None:
        self.spec = name
        self.configured_spec = spec  # the server's own; never shown to callers
        self.inner = inner
        self.variant = getattr(inner, "variant", None)  # the transcript header's prompt
        self.harness = getattr(inner, "harness", None)  # and its harness settings
        self.renaming = getattr(inner, "renaming", None)
        self.observing = bool(getattr(inner, "observing", False))  # told the game's moves
        self._hide = secrets_of(spec)

    def observe(self, view: dict[str, Any], move: Move, after: dict[str, Any]) -> None:
        inner = getattr(self.inner, "observe", None)
        if inner is not None:
            inner(view, move, after)

    def recall(self, details: list[dict[str, Any]]) -> None:
        inner = getattr(self.inner, "recall", None)
        if inner is not None:
            inner(details)

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        try:
            decision = self.inner.choose(view, legal, rng)
        except Exception as exc:  # noqa: BLE001 - any failure, told in public words
            raise self._public(exc) from None
        decision.details = self._scrubbed(decision.details)
        return decision

    async def achoose(self, view: dict[str, Any], legal: Sequence[Move],
                      rng: random.Random) -> Decision:
        """`choose` for an inner agent that answers on an event loop (LLM agents): the server
        awaits it under its deadline."""
        try:
            decision: Decision = await self.inner.achoose(view, legal, rng)  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - any failure, told in public words
            raise self._public(exc) from None
        decision.details = self._scrubbed(decision.details)
        return decision

    def _public(self, exc: Exception) -> ProviderError:
        log.warning("agent %r failed: %s: %s", self.spec, type(exc).__name__, exc)
        return ProviderError(f"agent {self.spec!r} failed: {public_reason(exc, self._hide)}")

    def _scrubbed(self, details: dict[str, Any]) -> dict[str, Any]:
        http = details.get("http")
        if isinstance(http, dict) and isinstance(http.get("calls"), list):
            details = {**details, "http": self._scrubbed_http(http)}
        llm = details.get("llm")
        if not isinstance(llm, dict) or not isinstance(llm.get("calls"), list):
            return details
        calls = []
        for call in llm["calls"]:
            if isinstance(call, dict) and call.get("category") == "TRANSPORT" \
                    and isinstance(call.get("error"), str):
                log.warning("agent %r: call failed: %s", self.spec, call["error"])
                call = {**call, "error": call_failure(call["error"])}
            calls.append(call)
        return {**details, "llm": {**llm, "calls": calls}}

    def _scrubbed_http(self, http: dict[str, Any]) -> dict[str, Any]:
        """An http: agent's record as callers see it: what a remote server replied is kept
        only when it was a legal move; errors are scrubbed of the operator's URL and agent."""
        calls = []
        for call in http["calls"]:
            if not isinstance(call, dict):
                continue
            if call.get("category") != "OK":
                log.warning("agent %r: remote reply refused: %s %s", self.spec,
                            call.get("error"), str(call.get("reply", ""))[:LOGGED])
                call = {**call, "reply": "",
                        "error": scrub(str(call.get("error", "")), self._hide)}
            calls.append(call)
        return {**{k: v for k, v in http.items() if k != "agent"}, "calls": calls}
