"""How every seat that asks outside waits before asking again: the server's own retry-after
when it gives one (a busy server says when to come back), else exponential backoff with
jitter, so that many games do not retry in lockstep. The LLM seats' transport retries
(duel.agents.llm.agent) and the `http:` seat's busy and unreachable servers (remote.py) wait
by this one rule."""

from __future__ import annotations

import email.utils
import os
import random
import time
from typing import Any

from tenacity.wait import wait_base

from duel.errors import SpecError, TransportError

# Decisions in a row whose move came from the fallback for a reason that is not the agent's
# (duel.agents.account.HARNESS_CAUSES) before a run stops: the seat's `stop_after=`, else this
# variable (set by the runs' --stop-after-fallbacks), else STOP_AFTER.
STOP_AFTER = 3
STOP_AFTER_ENV = "DUEL_STOP_AFTER_FALLBACKS"


def retry_after(headers: Any) -> float | None:
    """Seconds a busy server asks for in its headers: `retry-after-ms`, `retry-after` in
    seconds, or `retry-after` as an HTTP date (None: no advice, or none that can be read)."""
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue
        return max(0.0, seconds) if seconds == seconds else None  # NaN: no advice
    value = headers.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is not None:
            return max(0.0, when.timestamp() - time.time())
    return None


def backoff_wait(tries: int, base: float, cap: float = 60.0,
                 retry_after: float | None = None, retry_after_cap: float = 600.0) -> float:
    """Seconds to wait before try `tries` + 1 (`tries` >= 1 made so far)."""
    if retry_after is not None:
        return max(0.0, min(retry_after_cap, retry_after))
    return float(min(cap, base * 2 ** (tries - 1)) * random.uniform(0.75, 1.0))


class WaitRetryAfter(wait_base):
    """:func:`backoff_wait` as tenacity's wait: a TransportError's retry-after is honoured."""

    def __init__(self, base: float, cap: float = 60.0, retry_after_cap: float = 600.0) -> None:
        self.base = base
        self.cap = cap
        self.retry_after_cap = retry_after_cap

    def __call__(self, retry_state: Any) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        after = exc.retry_after if isinstance(exc, TransportError) else None
        return backoff_wait(retry_state.attempt_number, self.base, self.cap, after,
                            self.retry_after_cap)


def stop_after(value: int | None) -> int:
    """The number of harness fallbacks in a row a seat stops its run at (0: never)."""
    if value is None:
        text = os.environ.get(STOP_AFTER_ENV, "")
        try:
            value = int(text) if text else STOP_AFTER
        except ValueError:
            raise SpecError(f"{STOP_AFTER_ENV} must be a whole number, got {text!r}") from None
    if value < 0:
        raise SpecError(f"stop_after must be 0 (never) or more, got {value}")
    return value
