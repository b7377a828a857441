"""The operator's limits on the server's work: the deadline of every agent move, the caps on
concurrent searches and LLM calls, game creation, the finished games kept in memory and the
connection timeouts. `duel serve` sets them from its options (`add_arguments`, `from_args`);
tests make them small."""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, fields

from duel.errors import UsageError
from server.work.search_budget import MAX_SECONDS

CPUS = max(2, os.cpu_count() or 1)
MAX_LLM_SECONDS = 3600.0


@dataclass(frozen=True)
class Limits:
    search_deadline: float = MAX_SECONDS  # seconds per move of any agent but an LLM
    llm_deadline: float = 120.0  # seconds per LLM move, across its attempts and retries
    searches: int = CPUS  # concurrent searches (worker processes) in total
    searches_per_caller: int = max(1, CPUS // 2)  # per client address
    llm_calls: int = 16  # concurrent LLM moves in total
    llm_calls_per_caller: int = 4  # per client address
    create_per_minute: float = 60.0  # games a client may create, on average
    create_burst: int = 20  # ... and at once
    max_live_games: int = 1000  # unfinished games at once; 0: no cap
    idle_expiry: float = 86400.0  # seconds an unfinished game may go without a move
    finished_grace: float = 300.0  # seconds a finished game stays in memory after its last use
    finished_kept: int = 200  # finished games kept in memory at most
    keep_alive: int = 5  # seconds an idle connection stays open
    header_timeout: float = 10.0  # seconds to send a request's line and headers
    body_timeout: float = 30.0  # seconds to send a request's body
    max_connections: int = 1000  # open connections and requests; beyond, uvicorn answers 503
    connections_per_address: int = 64  # open connections of one client address at once
    streams_per_address: int = 16  # event streams of one client address at once
    lease: float = 15.0  # seconds a server holds a shared game's turns without renewing

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not (isinstance(value, int | float) and math.isfinite(value)) or value < 0 or (
                    value == 0 and f.name != "max_live_games"):
                raise UsageError(f"{f.name.replace('_', '-')} must be a positive number, "
                                 f"got {value!r}")
        if self.search_deadline > MAX_SECONDS:
            raise UsageError(f"search-deadline is at most {MAX_SECONDS:g} seconds (the cap of "
                             f"every search), got {self.search_deadline:g}")
        for share in ("connections_per_address", "streams_per_address"):
            if getattr(self, share) >= self.max_connections:
                raise UsageError(f"{share.replace('_', '-')} must be below max-connections "
                                 f"({self.max_connections}), so that one address cannot hold "
                                 f"every connection; got {getattr(self, share)}")
        if self.llm_deadline > MAX_LLM_SECONDS:
            raise UsageError(f"llm-deadline is at most {MAX_LLM_SECONDS:g} seconds, got "
                             f"{self.llm_deadline:g}")


HELP = {
    "search_deadline": "seconds per agent move (searches and every agent but an LLM); a "
                       "search is cut there, and past it the seat's fallback plays",
    "llm_deadline": "seconds per LLM move, across all its attempts and retries",
    "searches": "concurrent searches in total (one worker process each)",
    "searches_per_caller": "concurrent searches per client address (seat tokens add no share)",
    "llm_calls": "concurrent LLM moves in total",
    "llm_calls_per_caller": "concurrent LLM moves per client address",
    "create_per_minute": "games a client address may create per minute",
    "create_burst": "games a client address may create at once",
    "max_live_games": "unfinished games at once (0: no cap)",
    "idle_expiry": "seconds an unfinished game may go without a move; then the player to move "
                   "forfeits (recorded as expired) and the game frees what it held",
    "finished_grace": "seconds a finished game stays in memory after its last request "
                      "(it is served from the database after)",
    "finished_kept": "finished games kept in memory at most",
    "keep_alive": "seconds an idle connection is kept open",
    "header_timeout": "seconds a client has to send a request's line and headers",
    "body_timeout": "seconds a client has to send a request's body",
    "max_connections": "open connections at once (uvicorn answers 503 beyond)",
    "connections_per_address": "open connections of one client address at once (idle, "
                               "sending or streaming; 429 beyond); a trusted proxy's are not "
                               "counted",
    "streams_per_address": "event streams one client address may hold open (429 beyond)",
    "lease": "with PostgreSQL: seconds a server's hold on a game's agent seats and clock "
             "lasts unrenewed (it renews every third of it); when a server dies, another "
             "takes its games over after this",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `duel serve` options of every limit, defaulting to `Limits()`."""
    defaults = Limits()
    group = parser.add_argument_group("limits")
    for f in fields(Limits):
        default = getattr(defaults, f.name)
        group.add_argument("--" + f.name.replace("_", "-"), type=type(default),
                           default=default, help=f"{HELP[f.name]} (default {default:g})")


def from_args(args: argparse.Namespace) -> Limits:
    """The limits `add_arguments`' options hold (UsageError naming a bad one)."""
    return Limits(**{f.name: getattr(args, f.name) for f in fields(Limits)})
