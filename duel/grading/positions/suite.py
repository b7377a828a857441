"""A position suite: decisions from real games, each as the seat saw it, with the analyser's value
of every legal move (``duel positions extract`` writes one, ``duel grade --positions`` reads it).

One JSON file, published as duel/schemas/suite.schema.json. A position holds:

- ``id``: the hash of its view (duel.records.view_hash), so one position met in two games (two
  games of one deal open alike) is kept once;
- ``source``: the transcript (path as given, SHA-256), the ply and the player who decided there;
- ``view``: exactly what that player saw, the prompt's JSON state in which it is player2 (never
  the true state: the hidden cards are not in the file);
- ``legal``: the legal moves, in the view's labels and in the order the engine gives for that
  view (the order an agent is offered them);
- ``values``: every legal move's value (the deciding seat's expected score after it, win 1,
  draw 1/2, loss 0) with its standard error, visits and halving rounds, ranked best first as
  the analyser ranked them; ``gap``: the best value minus the second-best;
- ``analysis``: the analyser's settings, and ``ran``: the iterations it ran there.

**Loss** of an answer: the best move's value minus the answer's, never negative (the analyser's
loss, duel.analysis.decision). A resignation (an LLM's ``forfeit`` fallback) is worth 0: its loss
is the best move's value.

Reading a suite checks it against its schema, then every position against the engine: its view
must load (``InfoSet.from_view``), the engine's legal moves for that view must be exactly
``legal``, and ``values`` must value each of them once. A file that fails is refused, naming the
position, so a hand-edited or tampered suite cannot grade anything.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from duel import __version__
from duel.analysis.search import MoveValue
from duel.engine import RULES_VERSION, InfoSet, Move
from duel.errors import DuelError, UsageError
from duel.util.files import atomic_write

FORMAT_VERSION: Final = 1
TYPE: Final = "position-suite"


@dataclass(frozen=True)
class Position:
    """One decision of a suite (moves in the view's labels: the deciding seat is player2)."""

    id: str
    source: dict[str, Any]  # transcript, sha256, ply, player
    step: str
    age: int
    kind: str
    view: dict[str, Any]
    legal: tuple[Move, ...]
    values: tuple[MoveValue, ...]  # ranked best first
    analysis: dict[str, Any]  # the analyser's settings and "ran", the iterations run

    @property
    def best(self) -> MoveValue:
        return self.values[0]

    @property
    def gap(self) -> float:
        """How much the best move is worth over the second-best (0 with one legal move)."""
        if len(self.values) < 2:
            return 0.0
        return round(max(0.0, self.values[0].value - self.values[1].value), 4)

    def value(self, move: Move) -> float:
        """The analyser's value of `move` (a legal move, in the view's labels)."""
        for v in self.values:
            if v.move == move:
                return v.value
        raise UsageError(f"position {self.id}: {move} is not one of its legal moves")

    def loss(self, move: Move, forfeit: bool = False) -> float:
        """The loss of answering `move` (or of resigning): see the module docstring."""
        chosen = 0.0 if forfeit else self.value(move)
        return round(max(0.0, self.best.value - chosen), 4)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "source": self.source, "step": self.step, "age": self.age,
                "kind": self.kind, "view": self.view,
                "legal": [m.to_json() for m in self.legal],
                "values": [v.to_json() for v in self.values], "best": self.best.move.to_json(),
                "gap": self.gap, "analysis": self.analysis}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Position:
        """Read :meth:`to_json`'s form (already checked against the schema)."""
        return Position(obj["id"], obj["source"], obj["step"], obj["age"], obj["kind"],
                        obj["view"], tuple(Move.from_json(m) for m in obj["legal"]),
                        tuple(MoveValue.from_json(v) for v in obj["values"]), obj["analysis"])


@dataclass(frozen=True)
class Suite:
    """The positions and how they were chosen (`selection`: the extraction's options and
    counts)."""

    positions: tuple[Position, ...]
    selection: dict[str, Any]
    duel_version: str = __version__
    rules_version: str = RULES_VERSION

    def to_json(self) -> dict[str, Any]:
        return {"type": TYPE, "format_version": FORMAT_VERSION,
                "duel_version": self.duel_version, "rules_version": self.rules_version,
                "selection": self.selection,
                "positions": [p.to_json() for p in self.positions]}

    def by_id(self) -> dict[str, Position]:
        return {p.id: p for p in self.positions}


def engine_legal(view: dict[str, Any]) -> list[Move]:
    """The legal moves the engine gives for `view` (they depend on what the view shows only:
    face-up cards, coins and cities, so any sample of the hidden cards gives them)."""
    return InfoSet.from_view(view).sample(random.Random(0)).legal_moves()


def problem(obj: dict[str, Any], index: int) -> str | None:
    """What makes position `index` of a schema-valid suite disagree with the engine, or None."""
    pos = obj["positions"][index]
    try:
        legal = engine_legal(pos["view"])
    except DuelError as exc:
        return f"its view does not load: {exc}"
    stated = [Move.from_json(m) for m in pos["legal"]]
    if stated != legal:
        missing = [str(m) for m in legal if m not in stated]
        extra = [str(m) for m in stated if m not in legal]
        return ("its legal moves are not the engine's for its view (missing: "
                f"{', '.join(missing) or 'none'}; not legal: {', '.join(extra) or 'none'}"
                + ("; order differs" if not missing and not extra else "") + ")")
    valued = [Move.from_json(v["move"]) for v in pos["values"]]
    if sorted(map(str, valued)) != sorted(map(str, legal)):
        return "its values do not value each legal move exactly once"
    from duel.records import view_hash

    if view_hash(pos["view"]) != pos["id"]:
        return "its id is not the hash of its view"
    if pos["best"] != pos["values"][0]["move"]:
        return "its best move is not the first of its values"
    return None


def check(obj: Any, where: str) -> Suite:
    """A suite from its JSON form, after the schema and the engine checks; UsageError naming
    `where` and the first position that fails."""
    from duel.schemas import schema_error

    bad = schema_error("suite", obj)
    if bad:
        found = _position_of(obj, bad)
        raise UsageError(f"{where} is not a position suite: {found}{bad}")
    if obj["format_version"] > FORMAT_VERSION:
        raise UsageError(f"{where} has format version {obj['format_version']}; this duel reads "
                         f"version {FORMAT_VERSION}")
    if obj["rules_version"] != RULES_VERSION:
        raise UsageError(f"{where} was extracted under rules version {obj['rules_version']!r}; "
                         f"this engine implements {RULES_VERSION!r}: extract it again")
    seen: set[str] = set()
    for i, pos in enumerate(obj["positions"]):
        if pos["id"] in seen:
            raise UsageError(f"{where}: position {pos['id']} (number {i + 1}) appears twice")
        seen.add(pos["id"])
        why = problem(obj, i)
        if why:
            raise UsageError(f"{where}: position {pos['id']} (number {i + 1}, from "
                             f"{pos['source']['transcript']} ply {pos['source']['ply']}) is "
                             f"refused: {why}")
    return Suite(tuple(Position.from_json(p) for p in obj["positions"]), obj["selection"],
                 obj["duel_version"], obj["rules_version"])


def _position_of(obj: Any, message: str) -> str:
    """'position ID (number N): ' when a schema message points inside a position, else ''."""
    found = re.search(r" at positions/(\d+)", message)
    if not found:
        return ""
    i = int(found.group(1))
    try:
        return f"position {obj['positions'][i]['id']} (number {i + 1}): "
    except (KeyError, IndexError, TypeError):
        return f"position number {i + 1}: "


def load(path: str | Path) -> Suite:
    """Read and check the suite at `path` (see :func:`check`)."""
    from duel.io import read_json

    try:
        obj = read_json(str(path))
    except DuelError as exc:
        raise UsageError(str(exc)) from None
    return check(obj, str(path))


def write(suite: Suite, path: str | Path) -> Path:
    """Write `suite` to `path` atomically, after the same checks a reader makes."""
    obj = suite.to_json()
    check(obj, "the extracted suite")  # an internal error, should it ever fail
    out = Path(path)
    try:
        atomic_write(out, json.dumps(obj, separators=(",", ":")) + "\n")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    return out
