"""The two tasks' parameters (`-T name=value`), checked before any model is called.

Inspect hands task parameters over as text or as YAML-parsed values, and only warns about a name
a task does not take; duel refuses a bad value or an unknown name at once, in one line
(:class:`duel.errors.SpecError`), as its own CLI does. Nothing here imports Inspect, so the
checks are tested without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duel.errors import SpecError

ROLE = "role"  # -T opponent=role: the opponent is Inspect's model role "opponent"
OPPONENT_ROLE = "opponent"
TOOL_WORDS = {"on": True, "true": True, "off": False, "false": False}
QUALITY_ITERATIONS = 200  # the analyser's iterations per decision for the loss (docs/inspect.md)


def joined(value: Any) -> str:
    """A spec as it was typed. `-T opponent=mcts:iterations=200,c=1.4` reaches the task as
    the list ['mcts:iterations=200', 'c=1.4']: Inspect splits a value at its commas."""
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def harness_options(text: Any) -> dict[str, str]:
    """`history=all,names=renamed` (or a YAML mapping) as the LLM seat's harness options."""
    if text is None or text == "" or text == []:
        return {}
    if isinstance(text, dict):
        return {str(k): str(v) for k, v in text.items()}
    text = joined(text)
    out: dict[str, str] = {}
    for part in str(text).split(","):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"harness: {part.strip()!r} is not key=value (e.g. history=all)")
        out[key.strip()] = value.strip()
    return out


def whole(name: str, value: Any, least: int) -> int:
    """A whole-number parameter, at least `least`."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise SpecError(f"-T {name}: {value!r} is not a whole number") from None
    if number < least:
        raise SpecError(f"-T {name}: must be at least {least}, got {number}")
    return number


def refuse_unknown(unknown: dict[str, Any]) -> None:
    """Inspect passes `model` to every task that takes **kwargs; any other name is a typo."""
    names = sorted(k for k in unknown if k != "model")
    if names:
        raise SpecError(f"unknown task parameter(s) {', '.join(names)}; see "
                        "`python -m duel.inspect` or docs/inspect.md")


@dataclass(frozen=True)
class Seat:
    """How the evaluated model plays a decision: the LLM seat's own settings."""

    prompt: str
    harness: dict[str, str]
    max_attempts: int
    fallback: str
    tools: bool = False  # -T tools=on: the one tool set as Inspect tools (duel.inspect.tools)

    @staticmethod
    def parse(prompt: str, harness: Any, max_attempts: Any, fallback: str, tools: str) -> Seat:
        from duel.envs.seat import framework_seat

        # Inspect's YAML reading makes `on`/`off` booleans; typed as text they stay words.
        word = str(tools).strip().lower()
        if word not in TOOL_WORDS:
            raise SpecError(f"-T tools: {tools!r} is not on or off")
        seat = Seat(str(prompt), harness_options(harness), whole("max_attempts", max_attempts, 1),
                    str(fallback), TOOL_WORDS[word])
        framework_seat(prompt=seat.prompt, harness=seat.harness,  # a bad setting fails here
                       max_attempts=seat.max_attempts, fallback=seat.fallback)
        return seat


@dataclass(frozen=True)
class MatchParams:
    opponent: str  # an agent spec, or ROLE
    games: int
    seed: int
    quality: int  # 0: no analyser
    transcripts: Path | None

    @property
    def by_role(self) -> bool:
        return self.opponent == ROLE

    @staticmethod
    def parse(opponent: Any, games: Any, seed: Any, quality: Any,
              transcripts: str | None) -> MatchParams:
        from duel.agents.spec import make_agent

        opponent = joined(opponent).strip()
        if opponent != ROLE:
            opponent = make_agent(opponent).spec  # a bad spec fails here, with its reason
        return MatchParams(opponent, whole("games", games, 1), whole("seed", seed, 0),
                           whole("quality", quality, 0),
                           Path(transcripts) if transcripts else None)


def default_suite() -> Path:
    """The small suite shipped with the package (duel/inspect/data/suite.json)."""
    return Path(__file__).resolve().parent / "data" / "suite.json"
