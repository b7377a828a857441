"""Every error duel raises about its input or its peers, under one root: :class:`DuelError`.

A caller that wants one line for a user catches ``DuelError``; a caller that must choose a
response (the server's routes choose an HTTP status) looks at the subclass. Errors carry a
message in the game's words and nothing about transport: no HTTP status lives here.

Errors about bad values also derive from ``ValueError``, as they did before there was one root,
so ``except ValueError`` around a parse keeps working.
"""

from __future__ import annotations

from typing import Any


class DuelError(Exception):
    """The root of every error duel raises on purpose."""


# ---------------------------------------------------------------------------- game input
class InvalidStateError(DuelError, ValueError):
    """A JSON state or deal is malformed or describes an impossible position."""


class InvalidMoveError(DuelError, ValueError):
    """A move is malformed: not the prompt's JSON shape, an unknown name, a wrong type.
    `detail`, when given, is a structured account for a client (the server sends it as is)."""

    def __init__(self, message: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.detail = detail


class IllegalMoveError(DuelError, ValueError):
    """A move is well formed but not legal in this state; the message says why. `detail`, when
    given, is a structured account for a client (the move, the reason, the legal moves)."""

    def __init__(self, message: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.detail = detail


# ---------------------------------------------------------------------------- configuration
class SpecError(DuelError, ValueError):
    """An agent spec that names an unknown agent or parameter, or a bad value."""


class PromptError(DuelError, ValueError):
    """A prompt variant that cannot be read or applied."""


class PriceTableError(DuelError, ValueError):
    """The DUEL_PRICES file cannot be read or has a malformed entry."""


class BenchError(DuelError, RuntimeError):
    """A benchmark that could not measure what it measures (a server that did not start, a
    pure build that failed, positions that could not be found)."""


class UsageError(DuelError):
    """Bad input that a parser cannot see (a file, a combination of options), on the command
    line or in a request."""


# ---------------------------------------------------------------------------- records
class TranscriptError(DuelError):
    """A transcript that cannot be read, or whose facts the engine does not reproduce."""


class StoreError(DuelError):
    """A store write that lost a race (the ply is already taken) or names an unknown game."""


# ---------------------------------------------------------------------------- LLM providers
class ProviderError(DuelError):
    """An LLM provider failed to give a usable answer."""


class TransportError(ProviderError):
    """Connection failure, timeout, 429 or 5xx: retried with backoff, never a used attempt."""

    def __init__(self, message: str, retry_after: float | None = None,
                 status: int | None = None, billed: Any = None,
                 reported: str | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status
        self.reported = reported  # the provider's own code or words for a failed reply
        # what a reply that failed after it began was billed (a provider Reply), so the
        # record keeps the tokens and money spent on it
        self.billed = billed


class RequestError(ProviderError):
    """The provider refused this request (400): counts as a failed attempt, unless the LLM
    player can change the parameter it names. `detail` is the server's own message, `param`
    the parameter its error body names, if it names one."""

    def __init__(self, message: str, detail: str = "", param: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail
        self.param = param


class LLMConfigError(ProviderError):
    """Missing or rejected key, unknown model: nothing to retry; the user must fix it."""


class SeatFailedError(DuelError):
    """A seat's moves keep coming from its fallback for a reason that is not the agent's (no
    connection, a busy server past the seat's wait, every reply cut off at the model's output
    limit): the game stops rather than play on the agent's behalf. The message names the seat
    and the cause in one line."""


# ---------------------------------------------------------------------------- games in play
class GameNotFoundError(DuelError):
    """No game has this code."""


class AuthError(DuelError):
    """A seat token is missing or unknown."""


class ForbiddenError(DuelError):
    """The token is valid but for another game or seat."""


class ConflictError(DuelError):
    """The request is well formed but the game has moved on: over, stale ply, not your turn,
    a transcript asked for before the end."""


class TooLargeError(DuelError):
    """An input over a size limit (a request body)."""


class BusyError(DuelError):
    """A capacity limit is reached (agent searches, rate limit); try again later."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class DeadlineError(BusyError):
    """An agent did not answer within the deadline the server gives every move (the server
    was too busy, or the agent hung); a game's seat gets its fallback, a caller may retry."""


class MisdirectedError(DuelError):
    """A request that names a host this server does not answer to (its Host header): a page
    of another site reaching a loopback server through DNS rebinding."""


class SlowClientError(DuelError):
    """A client sent its request too slowly (its body trickled in past the server's deadline)."""
