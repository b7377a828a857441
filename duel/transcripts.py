"""Transcripts: one JSON-lines file per game, written as the game goes.

Line 1 is the header (versions, the deal, options, each seat's agent spec and prompt variant),
then one record per decision (a resignation too, as the last one, its move never played), then
a footer with the result. Every line is flushed as soon as it is written, so a killed match
leaves a readable partial file. The format is published as duel/schemas/transcript.schema.json;
`format_version` lets old files stay readable. `replay` and `check_result` re-play the deal and
the moves through the engine and check every recorded fact.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any

from duel import __version__
from duel.engine import (
    RULES_VERSION,
    Deal,
    DuelError,
    GameState,
    Move,
    deal_code,
    new_game,
    seat_view,
)

FORMAT_VERSION = 1
DEFAULT_DIR = "transcripts"


def view_hash(view: dict[str, Any]) -> str:
    """A stable hash of a view (canonical JSON)."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _prompt_of(agent: Any) -> dict[str, str] | None:
    variant = getattr(agent, "variant", None)
    if variant is None:
        return None
    return {"name": variant.name, "hash": variant.hash}


class TranscriptWriter:
    """Writes one game. Use as the `on_move` callback of `play_match` via :meth:`record`."""

    def __init__(self, path: str | Path, seed: int, deal: Deal, agents: tuple[Any, Any],
                 open_box: bool = True, code: str | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = self.path.open("w")
        self._plies = 0  # move records written
        self._write({
            "type": "header", "format_version": FORMAT_VERSION, "duel_version": __version__,
            "rules_version": RULES_VERSION, "seed": seed,
            "deal_from_seed": isinstance(seed, int) and new_game(seed).deal == deal,
            "code": code or deal_code(deal), "deal": deal.to_json(),
            "options": {"open_box": open_box},
            "players": {str(i + 1): {"spec": a.spec, "prompt": _prompt_of(a)}
                        for i, a in enumerate(agents)},
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        })

    def _write(self, obj: dict[str, Any]) -> None:
        if self._file.closed:  # closed after the last move (`duel match` does): append
            self._file = self.path.open("a")
        self._file.write(json.dumps(obj) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def record(self, record: Any, before: GameState, after: GameState) -> None:
        self._write({
            "type": "move", "ply": record.ply, "player": record.player, "step": record.step,
            "move": record.move.to_json(), "price": record.price,
            "view_hash": view_hash(seat_view(before, as_player2=record.player)),
            "seconds": round(record.seconds, 4), "details": record.details,
        })
        self._plies = record.ply

    def finish(self, result: Any) -> None:
        """Write the result line (and a forfeit's decision, which `play_match` records without
        calling `on_move`: the position it was taken in is the final one), then close."""
        from duel.agents.llm.accounting import llm_totals

        if result.forfeit is not None and self._plies == len(result.records) - 1:
            self.record(result.records[-1], result.final, result.final)
        r = result.result
        self._write({
            "type": "result", "winner": r["winner"], "victory": r["victory"],
            "scores": {"player1": r["player1"], "player2": r["player2"]},
            "moves": len(result.records), "seconds": round(result.seconds, 3),
            "forfeit": result.forfeit,
            "totals": {str(seat): llm_totals(rec.details for rec in result.records
                                             if rec.player == seat) for seat in (1, 2)},
        })
        self.close()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def default_path(code: str, folder: str = DEFAULT_DIR) -> Path:
    """transcripts/DATE-TIME-CODE.jsonl, with -2, -3... if the same deal was played in the same
    second (never overwriting a transcript)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = Path(folder) / f"{stamp}-{code}.jsonl"
    n = 1
    while path.exists():
        n += 1
        path = Path(folder) / f"{stamp}-{code}-{n}.jsonl"
    return path


class TranscriptError(Exception):
    """A transcript that cannot be read, or whose facts the engine does not reproduce."""


@dataclass
class Transcript:
    header: dict[str, Any]
    moves: list[dict[str, Any]]
    footer: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)  # lines that could not be read, or
    # that do not belong (a cut-off last line, a stray record, a line after the result)


def read(path: str | Path) -> Transcript:
    """Parse a transcript; unreadable or stray lines are reported in `problems`, not raised
    (`check_result` then refuses the file). Raises TranscriptError only when there is no
    header or its format version is not one this duel reads."""
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
                              ) from exc
    header: dict[str, Any] | None = None
    moves: list[dict[str, Any]] = []
    footer: dict[str, Any] | None = None
    problems: list[str] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            problems.append(f"line {i} is not JSON (cut off?)")
            continue
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "header" and header is None and i == 1:
            header = obj
        elif footer is not None:
            problems.append(f"line {i}: a {str(kind)!r} record after the result line")
        elif kind == "move":
            moves.append(obj)
        elif kind == "result":
            footer = obj
        else:
            problems.append(f"line {i}: unexpected record {str(kind)!r}")
    if header is None:
        raise TranscriptError(f"{path}: the first line is not a transcript header")
    version = header.get("format_version")
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
        raise TranscriptError(f"{path}: format_version {version!r} is not supported "
                              f"(this duel reads 1 to {FORMAT_VERSION})")
    return Transcript(header, moves, footer, problems)


_BRANCHES = {"header": 0, "move": 1, "result": 2}  # the published schema's oneOf, by "type"


@cache
def _branch_validator(kind: str) -> Any:
    import jsonschema

    from duel.schemas import schema

    return jsonschema.Draft202012Validator(schema("transcript")["oneOf"][_BRANCHES[kind]])


def record_error(rec: Any) -> str | None:
    """The most relevant violation of the published transcript schema by one line, naming
    the field ("field details.llm.calls.0.raw: ..."); None if the line validates."""
    from jsonschema.exceptions import best_match

    kind = rec.get("type") if isinstance(rec, dict) else None
    if kind not in _BRANCHES:
        return f"field type is {kind!r}, not header, move or result"
    err = best_match(_branch_validator(kind).iter_errors(rec))
    if err is None:
        return None
    path = [str(p) for p in err.absolute_path]
    message = err.message
    if err.validator == "required" and isinstance(err.instance, dict):
        missing = [k for k in err.validator_value if k not in err.instance]
        return f"field {'.'.join(path + missing[:1])} is missing"
    if path and path[0] == "move":
        from duel.schemas import move_schema_error

        message = move_schema_error(rec["move"]) or message  # names the move's wrong field
        path = ["move"]
    return f"field {'.'.join(path) or '(line)'}: {message}"


def initial_state(t: Transcript) -> GameState:
    """The game's start: the header's deal, box option and code."""
    try:
        deal = Deal.from_json(t.header["deal"])
    except (DuelError, KeyError) as exc:
        raise TranscriptError(f"header: field deal: {exc}") from None
    code = t.header.get("code")
    options = t.header.get("options")
    open_box = options.get("open_box", True) if isinstance(options, dict) else True
    return new_game(deal=deal, open_box=bool(open_box), code=code if isinstance(code, str)
                    else None)


@dataclass
class ReplayStep:
    ply: int
    before: GameState
    move: Move
    after: GameState


def _rules_note(t: Transcript) -> str:
    written = t.header.get("rules_version")
    if written == RULES_VERSION:
        return ""
    return (f" (the transcript was written under rules version {written!r}; this engine "
            f"implements {RULES_VERSION!r})")


def is_forfeit(rec: dict[str, Any]) -> bool:
    """Whether a move record is a resignation (its move was never played)."""
    details = rec.get("details")
    return isinstance(details, dict) and details.get("forfeit") is True


def replay(t: Transcript) -> Iterator[ReplayStep]:
    """Re-play the transcript, checking each record (its schema, ply, player, step, view hash,
    move legality and price); raises TranscriptError at the first mismatch, naming the ply and
    the field. A forfeit record ends the replay (its move was never played)."""
    try:
        yield from _replay(t)
    except TranscriptError as exc:
        raise TranscriptError(f"{exc}{_rules_note(t)}") from None


def _replay(t: Transcript) -> Iterator[ReplayStep]:
    problem = record_error(t.header)
    if problem:
        raise TranscriptError(f"header: {problem}")
    state = initial_state(t)
    seed = t.header.get("seed")
    if t.header.get("deal_from_seed") and new_game(seed).deal != state.deal:
        raise TranscriptError(f"header: field deal is not the deal of seed {seed}, as "
                              "deal_from_seed says")
    for expected_ply, rec in enumerate(t.moves, 1):
        problem = record_error(rec)
        if problem:
            raise TranscriptError(f"ply {expected_ply}: {problem}")
        ply = rec["ply"]
        if ply != expected_ply:
            raise TranscriptError(f"ply {expected_ply}: field ply is {ply!r}")
        if rec["player"] != state.current_player:
            raise TranscriptError(f"ply {ply}: field player is {rec['player']!r}, but "
                                  f"player {state.current_player} is to move")
        if rec["step"] != state.step_name:
            raise TranscriptError(f"ply {ply}: field step is {rec['step']!r}, expected "
                                  f"{state.step_name}")
        seen = view_hash(seat_view(state, as_player2=state.current_player))
        if rec["view_hash"] != seen:
            raise TranscriptError(f"ply {ply}: field view_hash differs (recorded "
                                  f"{rec['view_hash']}, replayed {seen})")
        try:
            move = Move.from_json(rec["move"])
        except DuelError as exc:
            raise TranscriptError(f"ply {ply}: field move: {exc}") from None
        if is_forfeit(rec):
            if expected_ply != len(t.moves):
                raise TranscriptError(f"ply {ply}: field details.forfeit is true, but "
                                      f"{len(t.moves) - ply} more moves follow")
            return  # the player resigned here; the move was never played
        if move not in state.legal_moves():
            raise TranscriptError(f"ply {ply}: field move is illegal: {state.why_illegal(move)}")
        price = state.price(move)
        if rec["price"] != price:
            raise TranscriptError(f"ply {ply}: field price is {rec['price']!r}, the engine "
                                  f"says {price}")
        after = state.apply(move)
        yield ReplayStep(ply, state, move, after)
        state = after


def check_result(t: Transcript, final: GameState) -> None:
    """The footer must match the replayed end of the game (`final`: the state after the last
    move replayed): winner, victory, both score breakdowns, the move count, the forfeit and
    the LLM totals. Stray lines (`t.problems`) fail here too."""
    try:
        _check_result(t, final)
    except TranscriptError as exc:
        raise TranscriptError(f"{exc}{_rules_note(t)}") from None


def _check_result(t: Transcript, final: GameState) -> None:
    from duel.agents.llm.accounting import llm_totals

    f = t.footer
    if f is None:
        raise TranscriptError(f"the file ends after ply {len(t.moves)} without a result "
                              "(a partial transcript)")
    if t.problems:
        raise TranscriptError(t.problems[0])
    problem = record_error(f)
    if problem:
        raise TranscriptError(f"result: {problem}")
    last = t.moves[-1] if t.moves else None
    forfeit_record = last is not None and is_forfeit(last)
    moves = len(t.moves)
    if f["forfeit"] is not None:
        seat = last["player"] if forfeit_record and last is not None else final.current_player
        if not forfeit_record:
            moves += 1  # files written before the forfeit's decision was recorded
        if f["forfeit"] != seat:
            raise TranscriptError(f"result: field forfeit is {f['forfeit']!r}, but player "
                                  f"{seat} was to move when the game ended")
        expected: dict[str, Any] = {"winner": 3 - seat, "victory": "forfeit",
                                    "player1": final.score(0), "player2": final.score(1)}
    else:
        if forfeit_record:
            raise TranscriptError(f"result: field forfeit is null, but ply {len(t.moves)} "
                                  "records a forfeit")
        r = final.result()
        if r is None:
            raise TranscriptError(f"result: the replayed game is not over after ply "
                                  f"{len(t.moves)}")
        expected = r
    for name in ("winner", "victory"):
        if f[name] != expected[name]:
            raise TranscriptError(f"result: field {name} is {f[name]!r}, replay gives "
                                  f"{expected[name]!r}")
    for seat_name in ("player1", "player2"):
        for key, value in expected[seat_name].items():
            if f["scores"][seat_name].get(key) != value:
                raise TranscriptError(f"result: field scores.{seat_name}.{key} is "
                                      f"{f['scores'][seat_name].get(key)!r}, replay gives "
                                      f"{value!r}")
    if f["moves"] != moves:
        raise TranscriptError(f"result: field moves is {f['moves']!r}, the file has {moves}")
    if forfeit_record or f["forfeit"] is None:  # else the forfeit's LLM calls are not in the file
        for s in (1, 2):
            totals = llm_totals(m.get("details", {}) for m in t.moves if m.get("player") == s)
            if f["totals"][str(s)] != totals:
                raise TranscriptError(f"result: field totals.{s} differs from the totals of "
                                      f"the recorded LLM calls ({totals})")
