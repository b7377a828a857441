"""LLM totals: one seat's over one game (a transcript's result line, a tournament's games.jsonl
line), and those summed over many games (the tournament and grading reports).

:class:`LLMTotals` is the one type and its two builders are the one place totals are made:
:meth:`LLMTotals.of_decisions` from the calls a seat's decisions recorded, :meth:`LLMTotals.
combine` from games' totals; both run the same :class:`_Tally`. The JSON form is the files', byte
for byte: lines written before reasoning (then the output of unusable replies) was counted have
no ``reasoning_tokens`` and ``reasoning`` (``unusable_output_tokens``) and keep none (they read
as None).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from duel.accounting.calls import LLMCall
from duel.errors import InvalidStateError

DEFAULT_REASONING = "default"  # the label of games recorded before results named their setting
# Keys always present, then those an older line may lack (None: absent, or an unknown price).
_NUMBERS = ("moves", "calls", "input_tokens", "output_tokens", "latency_s", "first_try_legal",
            "legal_after_retries", "mean_attempts", "fallbacks")
_OPTIONAL_NUMBERS = ("cost_usd", "cached_tokens", "cache_write_tokens", "reasoning_tokens",
                     "unusable_output_tokens")
# The files' key order (a combined total puts "games" first).
_ORDER = ("games", "moves", "calls", "input_tokens", "output_tokens", "cached_tokens",
          "cache_write_tokens", "reasoning_tokens", "unusable_output_tokens", "cost_usd",
          "latency_s", "first_try_legal", "legal_after_retries", "mean_attempts", "fallbacks",
          "categories", "reasoning")
_ALWAYS = (*_NUMBERS, "cost_usd")
# Keys added after the first totals were written: a file written before one of them lacks it,
# and its totals rebuilt from the calls are compared without it (as_written).
LATER_KEYS = ("reasoning_tokens", "reasoning", "unusable_output_tokens", "cache_write_tokens")


def as_written(rebuilt: dict[str, Any], written: dict[str, Any]) -> dict[str, Any]:
    """`rebuilt` totals without the later keys that the `written` ones lack (an older file)."""
    return {k: v for k, v in rebuilt.items() if k in written or k not in LATER_KEYS}


def reasoning_label(settings: dict[str, Any] | None) -> str:
    """The reasoning setting a result was played with: "reasoning_effort=high",
    "thinking=2048", the provider's documented default for the model when neither was set
    ("reasoning_effort=medium (provider default)", "thinking=off (provider default)", "no
    reasoning", "unknown (provider default)"), or "default" (a record written before duel
    named the default)."""
    if settings and settings.get("reasoning_effort"):
        return f"reasoning_effort={settings['reasoning_effort']}"
    if settings and settings.get("thinking"):
        return f"thinking={settings['thinking']}"
    if settings and settings.get("default_reasoning"):
        return str(settings["default_reasoning"])
    return DEFAULT_REASONING


@dataclass(frozen=True)
class LLMTotals:
    """Calls, tokens (the reasoning tokens among the output tokens too, and the output tokens
    of replies that were not played: cut off, empty, not JSON, malformed, illegal), cost (None if a
    model has no price), latency in calls, first-try legality, legality after retries and
    attempts (means per LLM move), fallbacks, calls by category, and the reasoning setting
    played with. `games` is set on a sum over games only."""

    moves: int
    calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int | None
    cache_write_tokens: int | None
    reasoning_tokens: int | None
    unusable_output_tokens: int | None
    cost_usd: float | None
    latency_s: float
    first_try_legal: float
    legal_after_retries: float
    mean_attempts: float
    fallbacks: int
    categories: dict[str, int] | None
    reasoning: str | None
    games: int | None = None

    # ------------------------------------------------------------------ the builders
    @staticmethod
    def of_decisions(move_details: Iterable[dict[str, Any]]) -> LLMTotals | None:
        """One seat's totals over its decisions' details (those without an LLM record are
        skipped); None if it made no LLM decision. The reasoning setting is the first
        decision's."""
        tally = _Tally()
        for details in move_details:
            llm = details.get("llm")
            if llm:
                tally.add_decision(llm)
        if tally.moves == 0:
            return None
        return tally.totals(latency_digits=3)

    @staticmethod
    def combine(per_game: Iterable[LLMTotals | None]) -> LLMTotals:
        """The games' totals summed (None: a game without LLM moves), means weighted by moves;
        the reasoning settings of every game, named in order."""
        tally = _Tally(zero=0)  # as sum() starts: no games cost 0, not 0.0
        games = 0
        for t in per_game:
            if t is not None:
                games += 1
                tally.add_game(t)
        return tally.totals(games=games, reasoning=",".join(sorted(set(tally.labels))))

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in _ORDER:
            value = getattr(self, key)
            if value is not None or key in _ALWAYS:
                out[key] = value
        return out

    @staticmethod
    def from_json(obj: Any, where: str = "totals") -> LLMTotals:
        """Read :meth:`to_json`'s form (any version of it); InvalidStateError names a bad
        field as `where`.KEY."""
        if not isinstance(obj, dict):
            raise InvalidStateError(f"{where} must be an object or null")
        for key in (*_NUMBERS, *_OPTIONAL_NUMBERS, "games"):
            value = obj.get(key)
            if key not in _NUMBERS and value is None:  # an unknown price, an older line
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidStateError(f"{where}.{key} must be a number")
        if not isinstance(obj.get("reasoning", ""), str | None):
            raise InvalidStateError(f"{where}.reasoning must be a string")
        categories = obj.get("categories")
        if categories is not None and not (
                isinstance(categories, dict)
                and all(type(n) is int for n in categories.values())):
            raise InvalidStateError(f"{where}.categories must map categories to counts")
        values: dict[str, Any] = {key: obj.get(key) for key in _ORDER}
        return LLMTotals(**values)

    # ------------------------------------------------------------------ lines
    def match_line(self, seat: int) -> str:
        """One seat's totals after `duel match`."""
        return (f"LLM player {seat}: {self.moves} moves, {self.calls} calls, "
                f"first-try legal {self.first_try_legal:.0%}, legal after retries "
                f"{self.legal_after_retries:.0%}, {self.fallbacks} fallbacks, tokens "
                f"{self.input_tokens} in ({self._cached()}) / "
                f"{self.output_tokens} out ({self.reasoning_tokens or 0} reasoning"
                f"{self._unusable()}), {self._cost()}, {self.latency_s:.1f} s in calls, reasoning "
                f"{self.reasoning or DEFAULT_REASONING}")

    def report_line(self, name: str) -> str:
        """One side's totals in a tournament report."""
        return (f"  {name} as an LLM (reasoning {self.reasoning}): {self.moves} moves, "
                f"first-try legal {self.first_try_legal:.0%}, legal after retries "
                f"{self.legal_after_retries:.0%}, {self.fallbacks} fallbacks, tokens "
                f"{self.input_tokens} in ({self._cached()}) / {self.output_tokens} out "
                f"({self.reasoning_tokens} "
                f"reasoning{self._unusable()}), {self._cost()}, {self.latency_s:.1f} s in calls")

    def _cached(self) -> str:
        """The input read from the provider's cache, its share, and the input written to it."""
        cached = self.cached_tokens or 0
        share = cached / self.input_tokens if self.input_tokens else 0.0
        writes = "" if not self.cache_write_tokens else \
            f", {self.cache_write_tokens} written to the cache"
        return f"{cached} cached, {share:.1%}{writes}"

    def _unusable(self) -> str:
        """The output spent on replies that were not played, and its share of the output."""
        if self.unusable_output_tokens is None:  # a line written before they were counted
            return ""
        share = self.unusable_output_tokens / self.output_tokens if self.output_tokens else 0.0
        return f"; {self.unusable_output_tokens} on unusable replies, {share:.1%}"

    def _cost(self) -> str:
        return "unknown price" if self.cost_usd is None else f"${self.cost_usd:.4f}"


class _Tally:
    """Running sums, in the order things were recorded, from `zero` (so that a rebuilt total is
    the number, int or float, that was written)."""

    def __init__(self, zero: float = 0.0) -> None:
        self.moves = self.calls = self.input = self.output = self.cached = self.reasoning = 0
        self.unusable: int | None = 0  # None: a game's line did not count them
        self.writes: int | None = 0  # the same
        self.fallbacks = 0
        self.first_try = self.legal = self.attempts = 0.0  # weighted by moves
        self.cost = zero
        self.cost_known = True
        self.latency = zero
        self.categories: dict[str, int] = {}
        self.labels: list[str] = []

    def add_decision(self, llm: dict[str, Any]) -> None:
        self.moves += 1
        self.labels.append(reasoning_label(llm.get("settings")))
        self.attempts += llm["attempts"]
        if llm["legal_at_attempt"] == 1:
            self.first_try += 1
        if llm["legal_at_attempt"] is not None:
            self.legal += 1
        if llm["fallback"]:
            self.fallbacks += 1
        for obj in llm["calls"]:
            call = LLMCall.from_json(obj)
            self.calls += 1
            self.input += call.input_tokens
            self.output += call.output_tokens
            self.cached += call.cached_tokens
            if self.writes is not None:
                self.writes += call.cache_write_tokens or 0
            self.reasoning += call.reasoning_tokens or 0
            # a reply not played; a tools=on look-up (TOOLS) is used: its answer leads on
            if call.category not in ("OK", "TOOLS") and self.unusable is not None:
                self.unusable += call.output_tokens
            self.latency += call.latency_s
            self.categories[call.category] = self.categories.get(call.category, 0) + 1
            self._add_cost(call.cost_usd)

    def add_game(self, t: LLMTotals) -> None:
        self.moves += t.moves
        self.calls += t.calls
        self.first_try += t.first_try_legal * t.moves
        self.legal += t.legal_after_retries * t.moves
        self.attempts += t.mean_attempts * t.moves
        self.fallbacks += t.fallbacks
        self.input += t.input_tokens
        self.output += t.output_tokens
        self.cached += t.cached_tokens or 0
        self.reasoning += t.reasoning_tokens or 0
        if t.cache_write_tokens is None or self.writes is None:
            self.writes = None
        else:
            self.writes += t.cache_write_tokens
        if t.unusable_output_tokens is None or self.unusable is None:
            self.unusable = None  # a line written before they were counted: unknown
        else:
            self.unusable += t.unusable_output_tokens
        self.latency += t.latency_s
        for category, n in (t.categories or {}).items():
            self.categories[category] = self.categories.get(category, 0) + n
        self.labels.append(t.reasoning or DEFAULT_REASONING)
        self._add_cost(t.cost_usd)

    def _add_cost(self, usd: float | None) -> None:
        if usd is None:
            self.cost_known = False
        else:
            self.cost += usd

    def totals(self, games: int | None = None, reasoning: str | None = None,
               latency_digits: int | None = None) -> LLMTotals:
        moves = self.moves

        def per_move(x: float) -> float:
            return x / moves if moves else 0.0

        return LLMTotals(
            moves=moves, calls=self.calls, input_tokens=self.input, output_tokens=self.output,
            cached_tokens=self.cached, cache_write_tokens=self.writes,
            reasoning_tokens=self.reasoning,
            unusable_output_tokens=self.unusable,
            cost_usd=round(self.cost, 6) if self.cost_known else None,
            latency_s=self.latency if latency_digits is None
            else round(self.latency, latency_digits),
            first_try_legal=per_move(self.first_try),
            legal_after_retries=per_move(self.legal), mean_attempts=per_move(self.attempts),
            fallbacks=self.fallbacks, categories=self.categories,
            reasoning=reasoning if reasoning is not None else self.labels[0], games=games)


# ---------------------------------------------------------------------------- the JSON forms
def checked_totals(obj: Any) -> dict[str, Any] | None:
    """A game line's ``"totals"`` (player "1"/"2" to that seat's LLM totals or null), checked
    by :meth:`LLMTotals.from_json`; InvalidStateError names a bad field."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or not set(obj) <= {"1", "2"}:
        raise InvalidStateError('game record field totals must map "1" and "2" to LLM totals')
    for player, t in obj.items():
        if t is not None:
            LLMTotals.from_json(t, f"game record field totals.{player}")
    return obj


def combine(per_game: Iterable[dict[str, Any] | LLMTotals | None]) -> dict[str, Any]:
    """:meth:`LLMTotals.combine` over games' totals in their JSON form (or typed), as JSON."""
    return LLMTotals.combine(
        t if isinstance(t, LLMTotals) or t is None else LLMTotals.from_json(t)
        for t in per_game).to_json()


def summary_line(name: str, t: dict[str, Any]) -> str:
    """One side's LLM totals (JSON form) in a tournament report."""
    return LLMTotals.from_json(t).report_line(name)
