"""``duel positions extract``: a position suite from analysed games.

Every decision of the transcripts (both seats; forced moves have no decision) is analysed with
duel.analysis, or read from the transcript's fresh sidecar when there is one and no analyser
option was given (``--iterations``/``--seed`` ask for those settings: a sidecar made with others is
analysed again and rewritten, as ``duel analyse`` does). A decision becomes a candidate when the
analyser's best move is worth at least ``min_gap`` more than its second-best: a position where
the choice matters, so that a player's answer says something about it.

Why :data:`DEFAULT_MIN_GAP` is 0.05: it is the analyser's mistake threshold (duel.analysis.summary),
the smallest loss more than the analyser's noise (two seeds agree on a loss within 0.05 for 97%
of decisions at the default budget); under it, which of the two top moves is "best" is often a
coin toss of the search, and a position would grade luck.

Candidates are grouped by Age and decision kind (draft, card, wonder, token, destroy, start
player, as the analyser classes them); each group keeps at most ``per_kind`` of its positions,
drawn at random with ``seed`` when it has more, so the many card decisions cannot crowd out the
rarer kinds. A position met twice (two games of one deal open alike) is kept once: its id is the
hash of its view.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from duel.analysis import Analysis, Settings, load_analysis
from duel.analysis.game import verified_steps
from duel.analysis.many import analyse_all
from duel.analysis.sidecar import file_hash
from duel.analysis.summary import MISTAKE
from duel.engine import GameState, Perspective
from duel.engine.decisions import KINDS
from duel.errors import TranscriptError, UsageError
from duel.records import mover_view_hash
from duel.transcripts import read

from .suite import Position, Suite, engine_legal

DEFAULT_MIN_GAP: Final = MISTAKE
DEFAULT_PER_KIND: Final = 40
SEATS: Final = (1, 2)  # both seats' decisions are positions


def transcripts_of(paths: Iterable[str]) -> list[Path]:
    """The transcript files named: files as given, folders searched for ``*.jsonl`` (sorted);
    each once. UsageError for a path that does not exist or a folder without transcripts."""
    found: list[Path] = []
    for name in paths:
        p = Path(name)
        if p.is_dir():
            inside = sorted(q for q in p.rglob("*.jsonl") if q.is_file())
            if not inside:
                raise UsageError(f"{p} holds no transcript (*.jsonl)")
            found.extend(inside)
        elif p.is_file():
            found.append(p)
        else:
            raise UsageError(f"no such transcript: {p}")
    if not found:
        raise UsageError("no transcript given")
    return list(dict.fromkeys(found))


def analyse(files: Sequence[Path], settings: Settings | None, jobs: int, progress: bool,
            ray: str | None = None) -> dict[Path, Analysis]:
    """The analysis of both seats of each file: its fresh sidecar when `settings` is None and
    there is one, or one made with `settings` when there is; the others analysed with
    `settings` (or the default) through the one campaign runner (`jobs` processes, or `ray`),
    each sidecar written as it comes back, so a stopped extraction resumes where it was."""
    found: dict[Path, Analysis] = {}
    for path in files:
        try:
            analysis = load_analysis(path)
        except TranscriptError:
            analysis = None  # stale or unreadable: analysed again
        if analysis is not None and (settings is None or (
                analysis.settings == settings and tuple(analysis.seats) == SEATS)):
            found[path] = analysis
    todo = [(path, SEATS) for path in files if path not in found]

    def each(path: Path, analysis: Analysis, _: Path) -> None:
        found[path] = analysis

    analyse_all(todo, settings or Settings(), jobs, ray, progress, each)
    return found


@dataclass(frozen=True)
class Candidate:
    order: tuple[int, int]  # (transcript number, ply): the suite's order
    position: Position


def candidates(path: Path, number: int, analysis: Analysis) -> list[Candidate]:
    """Every analysed decision of `path` as a position (all gaps)."""
    before: dict[int, GameState] = {ply: state for ply, state, _ in verified_steps(read(path))}
    digest = file_hash(path)
    settings = analysis.settings.to_json()
    out = []
    for d in analysis.decisions:
        state = before.get(d.ply)
        if state is None or mover_view_hash(state) != d.view_hash:
            raise TranscriptError(f"the analysis of {path} does not match its ply {d.ply}: "
                                  f"run duel analyse {path} --force")
        seen = Perspective.to_move(state)
        view = seen.view(state)
        values = tuple(v.relabelled(seen.move_out(v.move)) for v in d.moves)
        pos = Position(
            id=d.view_hash, source={"transcript": str(path), "sha256": digest, "ply": d.ply,
                                    "player": d.player},
            step=d.step, age=d.age, kind=d.kind, view=view, legal=tuple(engine_legal(view)),
            values=values, analysis={**settings, "ran": d.iterations})
        out.append(Candidate((number, d.ply), pos))
    return out


def select(found: Sequence[Candidate], min_gap: float, per_kind: int, seed: int
           ) -> list[Candidate]:
    """The candidates over the gap, each position once, at most `per_kind` per Age and kind
    (a seeded random draw where a group has more), in the transcripts' order."""
    unique: dict[str, Candidate] = {}
    for c in sorted(found, key=lambda c: c.order):  # the draw depends on the candidates only
        if c.position.gap >= min_gap:
            unique.setdefault(c.position.id, c)
    groups: dict[tuple[int, str], list[Candidate]] = {}
    for c in unique.values():
        groups.setdefault((c.position.age, c.position.kind), []).append(c)
    kept: list[Candidate] = []
    for (age, kind), group in sorted(groups.items()):
        if len(group) > per_kind:
            group = random.Random(f"duel-positions:{seed}:{age}:{kind}").sample(group, per_kind)
        kept.extend(group)
    return sorted(kept, key=lambda c: c.order)


def extract(paths: Iterable[str], min_gap: float = DEFAULT_MIN_GAP,
            per_kind: int = DEFAULT_PER_KIND, settings: Settings | None = None, seed: int = 0,
            jobs: int = 2, progress: bool = False, ray: str | None = None) -> Suite:
    """The suite of the transcripts at `paths` (see the module docstring). `settings` None: a
    fresh sidecar is read as it is, a transcript without one is analysed at the defaults."""
    if not 0 <= min_gap <= 1:
        raise UsageError(f"--min-gap must be between 0 and 1 (a difference in expected score), "
                         f"got {min_gap}")
    if per_kind < 1:
        raise UsageError(f"--per-kind must be at least 1, got {per_kind}")
    if seed < 0:
        raise UsageError(f"--seed must be >= 0, got {seed}")
    files = transcripts_of(paths)
    analyses = analyse(files, settings, jobs, progress, ray)  # its errors name their file
    found: list[Candidate] = []
    for number, path in enumerate(files):
        try:
            found.extend(candidates(path, number, analyses[path]))
        except TranscriptError as exc:
            text = str(exc)
            raise TranscriptError(text if str(path) in text else f"{path}: {text}") from None
    kept = select(found, min_gap, per_kind, seed)
    over = len({c.position.id for c in found if c.position.gap >= min_gap})
    selection: dict[str, Any] = {
        "min_gap": min_gap, "per_kind": per_kind, "seed": seed, "transcripts": len(files),
        "decisions": len(found), "over_gap": over,
        "by_age": {str(a): n for a in (1, 2, 3)
                   if (n := sum(1 for c in kept if c.position.age == a))},
        "by_kind": {k: n for k in KINDS if (n := sum(1 for c in kept if c.position.kind == k))},
    }
    return Suite(tuple(c.position for c in kept), selection)


def describe(suite: Suite, out: Path) -> str:
    """What the extraction found, for the terminal."""
    s = suite.selection
    ages = ", ".join(f"Age {a}: {n}" for a, n in s["by_age"].items()) or "none"
    kinds = ", ".join(f"{k.replace('_', ' ')}: {n}" for k, n in s["by_kind"].items()) or "none"
    return (f"{len(suite.positions)} positions from {s['transcripts']} transcript(s): "
            f"{s['decisions']} decisions analysed, {s['over_gap']} distinct ones with the best "
            f"move at least {s['min_gap']:g} over the second-best, at most {s['per_kind']} kept "
            f"per Age and kind.\n  by Age: {ages}\n  by kind: {kinds}\nSuite written to {out}")
