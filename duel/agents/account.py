"""Whose moves a seat's figures count: one account per seat per game, for every kind of seat.

A figure that mixes an agent's moves with moves it did not make says nothing about the agent:
an `http:` seat facing a busy server, an LLM whose every reply is cut off, a person whose clock
ran out all "play" random moves that a win rate then counts as theirs. The account says, from the
decisions' recorded details alone (so it is rebuilt the same from a transcript, a tournament line
or the server's store), how many of a seat's decisions were its own, how many re-asks it took,
and how many were a fallback's move or a resignation, and why.

The details it reads are the forms every seat records:
- an asking seat's (attempts.py): ``{"llm"|"http": {"attempts", "legal_at_attempt", "fallback",
  "calls": [{"category", "status"?, "error"?}, ...]}}``;
- the server's turns (server/games/turns.py): ``{"fallback": KIND, "timeout": true}`` or
  ``{"fallback": KIND, "error": ...}`` for an agent or a clock that gave no move, and
  ``{"expired": true}`` for a game ended by idleness;
- ``"forfeit": true`` on a resignation, whoever decided it;
- anything else (a search's statistics, nothing at all) is the agent's own move.

Causes are named in one vocabulary (`CAUSES`). Those in `HARNESS_CAUSES` are failures of what
carries the agent, not of the agent (no connection, a busy server, a reply cut off at the
budget's cap, a refused request): a run stops rather than play on after a few of them in a row
(attempts.py). The others (a bad reply, an illegal move, the agent's own timeout) are the agent's
measured behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from duel.errors import InvalidStateError

ASKING_KEYS = ("llm", "http")  # the details' keys of the seats that ask outside (attempts.py)
# A failed call's category (attempts.Category) as a cause; TRANSPORT is split by what it was.
_BY_CATEGORY = {"TRUNCATED": "truncated", "EMPTY": "empty", "REFUSAL": "declined",
                "REFUSED": "refused", "UNPARSABLE": "unparsable", "SCHEMA": "malformed",
                "ILLEGAL": "illegal", "TOOL_STEPS": "tool_steps"}
CAUSES = ("transport", "busy", "timeout", "refused", "truncated", "error", "unparsable",
          "malformed", "illegal", "empty", "declined", "tool_steps", "expired")
HARNESS_CAUSES = frozenset({"transport", "busy", "refused", "truncated", "error"})
_BUSY = re.compile(r"\bHTTP (429|503)\b")
_TIMEOUT = re.compile(r"timed out|timeout", re.IGNORECASE)


def call_cause(call: dict[str, Any]) -> str | None:
    """Why one recorded call gave no usable move (None: it gave one, or looked something up)."""
    category = call.get("category")
    if category in ("OK", "TOOLS", None, ""):
        return None
    if category == "TRANSPORT":
        error = str(call.get("error") or "")
        if call.get("status") in (429, 503) or _BUSY.search(error):
            return "busy"
        if _TIMEOUT.search(error):
            return "timeout"
        return "transport"
    return _BY_CATEGORY.get(str(category), "error")


def decision_cause(details: dict[str, Any]) -> str | None:
    """Why a decision's move was not the agent's own (None: it was)."""
    for key in ASKING_KEYS:
        asked = details.get(key)
        if isinstance(asked, dict) and asked.get("fallback"):
            causes = [call_cause(c) for c in asked.get("calls", []) if isinstance(c, dict)]
            found = [c for c in causes if c is not None]
            return found[-1] if found else "error"
    if details.get("expired"):
        return "expired"
    if details.get("fallback"):  # the server's turns: an agent or a clock with no move
        return "timeout" if details.get("timeout") else "error"
    return None


@dataclass
class SeatAccount:
    """One seat's decisions: `moves` in all, `own` the agent's, `reasks` (answers refused and
    asked again), `fallbacks` (a fallback's move played for it), `forfeits` (resignations it did
    not decide itself), and `causes` of the decisions that were not its own."""

    moves: int = 0
    own: int = 0
    reasks: int = 0
    fallbacks: int = 0
    forfeits: int = 0
    causes: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def of_decisions(move_details: Iterable[dict[str, Any]]) -> SeatAccount:
        account = SeatAccount()
        for details in move_details:
            account.add(details)
        return account

    def add(self, details: dict[str, Any]) -> None:
        """One decision's details (a resignation's too)."""
        self.moves += 1
        for key in ASKING_KEYS:
            asked = details.get(key)
            if isinstance(asked, dict):
                self.reasks += max(0, int(asked.get("attempts") or 0) - 1)
        cause = decision_cause(details)
        if cause is None:
            self.own += 1
            return
        self.causes[cause] = self.causes.get(cause, 0) + 1
        if details.get("forfeit") is True:
            self.forfeits += 1
        else:
            self.fallbacks += 1

    def __iadd__(self, other: SeatAccount) -> SeatAccount:
        self.moves += other.moves
        self.own += other.own
        self.reasks += other.reasks
        self.fallbacks += other.fallbacks
        self.forfeits += other.forfeits
        for cause, n in other.causes.items():
            self.causes[cause] = self.causes.get(cause, 0) + n
        return self

    @staticmethod
    def combine(accounts: Iterable[SeatAccount | None]) -> SeatAccount:
        total = SeatAccount()
        for a in accounts:
            if a is not None:
                total += a
        return total

    @property
    def not_own(self) -> int:
        return self.fallbacks + self.forfeits

    @property
    def clean(self) -> bool:
        """Every decision was the agent's own."""
        return self.not_own == 0

    @property
    def harness_failures(self) -> int:
        """The decisions lost to what carries the agent, not to the agent."""
        return sum(n for c, n in self.causes.items() if c in HARNESS_CAUSES)

    # ------------------------------------------------------------------ words
    def brief(self) -> str:
        """The headline's clause: "590 of 1,331 moves were fallbacks (busy 590)"; "" if
        clean."""
        if self.clean:
            return ""
        parts = []
        if self.fallbacks:
            parts.append(f"{self.fallbacks:,} of {self.moves:,} moves were fallbacks")
        if self.forfeits:
            parts.append(f"{self.forfeits:,} forfeit{'s' if self.forfeits != 1 else ''} not "
                         "its own")
        return "; ".join(parts) + f" ({self.why()})"

    def why(self) -> str:
        return ", ".join(f"{c} {n:,}" for c, n in sorted(self.causes.items(),
                                                          key=lambda kv: (-kv[1], kv[0])))

    def line(self) -> str:
        """The account in full, for a report's per-seat line."""
        text = (f"{self.own:,} of {self.moves:,} moves its own, {self.reasks:,} re-asks, "
                f"{self.fallbacks:,} fallbacks, {self.forfeits:,} forfeits")
        return text + (f" (why: {self.why()})" if self.causes else "")

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "own": self.own, "reasks": self.reasks,
                "fallbacks": self.fallbacks, "forfeits": self.forfeits,
                "causes": dict(sorted(self.causes.items()))}

    @staticmethod
    def from_json(obj: Any, where: str = "account") -> SeatAccount:
        """Read :meth:`to_json`'s form; InvalidStateError names a bad field as `where`.KEY."""
        if not isinstance(obj, dict):
            raise InvalidStateError(f"{where} must be an object")
        values: dict[str, int] = {}
        for key in ("moves", "own", "reasks", "fallbacks", "forfeits"):
            value = obj.get(key)
            if type(value) is not int or value < 0:
                raise InvalidStateError(f"{where}.{key} must be a count")
            values[key] = value
        causes = obj.get("causes", {})
        if not (isinstance(causes, dict) and all(
                isinstance(k, str) and type(n) is int and n >= 0 for k, n in causes.items())):
            raise InvalidStateError(f"{where}.causes must map causes to counts")
        return SeatAccount(**values, causes=dict(causes))


def accounts_json(per_seat: dict[str, SeatAccount]) -> dict[str, dict[str, Any]]:
    return {player: a.to_json() for player, a in per_seat.items()}


def checked_accounts(obj: Any) -> dict[str, SeatAccount] | None:
    """A game line's ``"accounts"`` (player "1"/"2" to its account) read; None if the line is
    older than accounts. InvalidStateError names a bad field."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or set(obj) != {"1", "2"}:
        raise InvalidStateError('game record field accounts must map "1" and "2" to accounts')
    return {p: SeatAccount.from_json(a, f"game record field accounts.{p}")
            for p, a in obj.items()}
