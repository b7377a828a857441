"""Seat tokens never reach a log: an event stream's token travels in the query string
(EventSource cannot set headers), and uvicorn's access log prints the raw query."""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

__all__ = ["REDACTED_LOGGERS", "RedactTokens", "redact_logs"]


class RedactTokens(logging.Filter):
    """Hides the value of every query pair whose name is a token's, however it is spelled, in
    log records (uvicorn's access log prints the raw query string; an event stream's token
    travels there because EventSource cannot set headers). A name counts once decoded (as often
    as it takes: `%74oken`, `%2574oken`) and case-folded, if it holds "token"."""

    PAIR = re.compile(r"([?&;])([^=&;\s\"#?]*)=([^&;\s\"#]*)")

    @staticmethod
    def _decoded(name: str) -> str:
        for _ in range(5):
            once = unquote_plus(name)
            if once == name:
                break
            name = once
        return name.strip().casefold()

    def _redact(self, text: str) -> str:
        def pair(m: re.Match[str]) -> str:
            if "token" in self._decoded(m.group(2)):
                return f"{m.group(1)}{m.group(2)}=***"
            return m.group(0)

        return self.PAIR.sub(pair, text)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self._redact(a) if isinstance(a, str) else a
                                for a in record.args)
        if isinstance(record.msg, str):
            record.msg = self._redact(record.msg)
        return True


# The loggers that may print a request's query: uvicorn's access and error logs, and ours.
REDACTED_LOGGERS = ("uvicorn.access", "uvicorn.error", "duel.server")


def redact_logs() -> None:
    """Adds the filter to each of REDACTED_LOGGERS, once however many apps are made."""
    for name in REDACTED_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
