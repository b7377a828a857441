"""Transcripts: one JSON-lines file per game, written as the game goes.

Line 1 is the header (versions, the deal, options, each seat's agent spec and prompt variant),
then one record per decision (a resignation too, as the last one, its move never played), then
a footer with the result. The format is published as duel/schemas/transcript.schema.json;
`format_version` lets old files stay readable.

This module is the one writer and the one replay: `duel match`, tournaments and the server's
export build their lines with `header_line`/`move_line`/`result_line`; the CLI, the viewer,
grading, the server's restore and the tests re-play games with `replay_moves`, which checks
every recorded fact against the engine.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any

from duel import __version__
from duel.engine import (
    RULES_VERSION,
    SEATS,
    Deal,
    DuelError,
    GameState,
    Move,
    Result,
    Seat,
    new_game,
)
from duel.errors import InvalidStateError, TranscriptError
from duel.records import GameSummary, MoveRecord, mover_view_hash, view_hash

FORMAT_VERSION = 1
DEFAULT_DIR = "transcripts"

__all__ = ["FORMAT_VERSION", "MoveRecord", "ReplayStep", "Transcript", "TranscriptError",
           "TranscriptWriter", "check_result", "header_line", "initial_state", "is_forfeit",
           "read", "render_line", "replay", "replay_moves", "result_line", "seal", "view_hash"]


def prompt_of(agent: Any) -> dict[str, Any] | None:
    """The prompt variant an agent plays with (LLM agents), as the header records it: its
    harness settings' label (duel.prompts.harness) when they are not the defaults, the
    renaming the model was told, and with `tools=on` the tools it is offered (their steps per
    turn and hash)."""
    variant = getattr(agent, "variant", None)
    if variant is None:
        return None
    prompt: dict[str, Any] = {"name": variant.name, "hash": variant.hash}
    if getattr(agent, "tool_steps", 0):
        from duel.agents.llm.toolloop import tools_record

        prompt["tools"] = tools_record(agent)
    harness = getattr(agent, "harness", None)
    if harness is not None and not harness.is_default:
        prompt["harness"] = harness.label
    renamed = getattr(agent, "renaming", None)
    if renamed is not None:  # names=renamed: the invented names the model was told
        prompt["renaming"] = renamed.record()
    return prompt


def header_line(seed: int | None, deal: Deal, code: str, open_box: bool,
                players: Sequence[tuple[str, dict[str, Any] | None]], started_at: float
                ) -> dict[str, Any]:
    """Line 1: versions, the deal, options, each seat's agent spec and prompt variant."""
    return {
        "type": "header", "format_version": FORMAT_VERSION, "duel_version": __version__,
        "rules_version": RULES_VERSION, "seed": seed,
        "deal_from_seed": isinstance(seed, int) and new_game(seed).deal == deal,
        "code": code, "deal": deal.to_json(), "options": {"open_box": open_box},
        "players": {str(i + 1): {"spec": spec, "prompt": prompt}
                    for i, (spec, prompt) in enumerate(players)},
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started_at)),
    }


# What a sealed header leaves out: every hidden card is in the deal, and the seed makes it.
SEALED_OUT = ("seed", "deal", "deal_from_seed")


def seal(header: dict[str, Any]) -> dict[str, Any]:
    """A running game's header as players and spectators may read it: without the deal and
    the seed, and marked `"sealed": true`. A sealed transcript cannot be replayed; the game's
    complete transcript, deal included, is public once it is over."""
    return {**{k: v for k, v in header.items() if k not in SEALED_OUT}, "sealed": True}


def move_line(record: MoveRecord) -> dict[str, Any]:
    return {"type": "move", **record.to_json()}


def result_line(result: Result, records: Sequence[MoveRecord]) -> dict[str, Any]:
    """The last line: the result, the number of decisions, the time the agents took and each
    seat's LLM totals."""
    from duel.accounting.games import llm_totals

    return {"type": "result", **result.to_json(), "moves": len(records),
            "seconds": round(sum(r.seconds for r in records), 3),
            "totals": {str(s.player): llm_totals(r.details for r in records if r.seat is s)
                       for s in SEATS}}


def render_line(line: dict[str, Any]) -> str:
    """A line as the file holds it: what the writer writes and the server exports."""
    return json.dumps(line) + "\n"


class TranscriptWriter:
    """Writes one game as it goes: the header now, each record as it is made (use
    :meth:`record` as `play_match`'s `on_move`), the result at the end. Every line is flushed
    and synced, so a killed match leaves a readable partial file."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = self.path.open("w")
        self._records: list[MoveRecord] = []
        self._write(header)

    @staticmethod
    def for_match(path: str | Path, seed: int | None, deal: Deal, agents: Sequence[Any],
                  open_box: bool = True, code: str | None = None) -> TranscriptWriter:
        """A writer for a game between `agents` (player 1's first) on `deal`."""
        header = header_line(seed, deal, code or new_game(deal=deal).code, open_box,
                             [(a.spec, prompt_of(a)) for a in agents], time.time())
        return TranscriptWriter(path, header)

    def _write(self, obj: dict[str, Any]) -> None:
        if self._file.closed:  # closed after the last move (`duel match` does): append
            self._file = self.path.open("a")
        self._file.write(render_line(obj))
        self._file.flush()
        os.fsync(self._file.fileno())

    def record(self, record: MoveRecord, *_: object) -> None:
        self._write(move_line(record))
        self._records.append(record)

    def finish(self, result: Result) -> None:
        """Write the result line, then close."""
        self._write(result_line(result, self._records))
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




@dataclass
class Transcript:
    header: dict[str, Any]
    moves: list[dict[str, Any]]
    footer: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)  # lines that could not be read, or
    # that do not belong (a cut-off last line, a stray record, a line after the result)

    def spec(self, player: int) -> str | None:
        """The agent spec the header names for player 1 or 2 (None if it names none)."""
        players = self.header.get("players")
        entry = players.get(str(player)) if isinstance(players, dict) else None
        spec = entry.get("spec") if isinstance(entry, dict) else None
        return spec if isinstance(spec, str) else None


def read(path: str | Path) -> Transcript:
    """Parse a transcript; unreadable or stray lines are reported in `problems`, not raised
    (`check_result` then refuses the file). Raises TranscriptError only when there is no
    header or its format version is not one this duel reads (`replay` checks the rest)."""
    from duel.io import decode, parse_json, read_bytes

    try:
        lines = decode(read_bytes(str(path)), str(path)).splitlines()
    except InvalidStateError as exc:
        raise TranscriptError(str(exc)) from None
    header: dict[str, Any] | None = None
    moves: list[dict[str, Any]] = []
    footer: dict[str, Any] | None = None
    problems: list[str] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = parse_json(line, f"line {i}")
        except InvalidStateError as exc:
            problems.append(f"{exc} (cut off?)" if "is not JSON" in str(exc) else str(exc))
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
    if t.header.get("sealed") is True:
        raise TranscriptError("a sealed transcript: the server withholds the deal of a game "
                              "still in play; its complete transcript is public once the game "
                              "is over")
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
    record: MoveRecord


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
    """Re-play a transcript: its header, then :func:`replay_moves`. Raises TranscriptError at
    the first mismatch, naming the ply and the field (and the rules version, if it differs)."""
    try:
        problem = record_error(t.header)
        if problem:
            raise TranscriptError(f"header: {problem}")
        state = initial_state(t)
        seed = t.header.get("seed")
        if t.header.get("deal_from_seed") and new_game(seed).deal != state.deal:
            raise TranscriptError(f"header: field deal is not the deal of seed {seed}, as "
                                  "deal_from_seed says")
        yield from replay_moves(state, t.moves)
    except TranscriptError as exc:
        raise TranscriptError(f"{exc}{_rules_note(t)}") from None


def replay_moves(start: GameState, moves: Sequence[dict[str, Any]]) -> Iterator[ReplayStep]:
    """Re-play move records (transcript lines, or the store's rows: the same JSON) from
    `start`, checking each one (its schema, ply, player, step, view hash, move legality and
    price); raises TranscriptError at the first mismatch, naming the ply and the field. A
    forfeit record ends the replay (its move was never played)."""
    state = start
    for expected_ply, line in enumerate(moves, start.ply + 1):
        rec = line if "type" in line else {"type": "move", **line}
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
        seen = mover_view_hash(state)
        if rec["view_hash"] != seen:
            raise TranscriptError(f"ply {ply}: field view_hash differs (recorded "
                                  f"{rec['view_hash']}, replayed {seen})")
        try:
            move = Move.from_json(rec["move"])
        except DuelError as exc:
            raise TranscriptError(f"ply {ply}: field move: {exc}") from None
        if is_forfeit(rec):
            if expected_ply != start.ply + len(moves):
                raise TranscriptError(f"ply {ply}: field details.forfeit is true, but "
                                      f"{start.ply + len(moves) - ply} more moves follow")
            return  # the player resigned here; the move was never played
        if move not in state.legal_moves():
            raise TranscriptError(f"ply {ply}: field move is illegal: {state.why_illegal(move)}")
        price = state.price(move)
        if rec["price"] != price:
            raise TranscriptError(f"ply {ply}: field price is {rec['price']!r}, the engine "
                                  f"says {price}")
        after = state.apply(move)
        yield ReplayStep(ply, state, move, after, MoveRecord.from_json(rec))
        state = after


def final_state(start: GameState, moves: Sequence[dict[str, Any]]) -> GameState:
    """The position after re-playing `moves` (checked as :func:`replay_moves` does)."""
    state = start
    for step in replay_moves(start, moves):
        state = step.after
    return state


def expected_result(t: Transcript, final: GameState) -> Result:
    """The result the replay gives: the engine's, or a forfeit by the last record's player."""
    last = t.moves[-1] if t.moves else None
    forfeit_record = last is not None and is_forfeit(last)
    f = t.footer or {}
    if forfeit_record or f.get("forfeit") is not None:
        seat = last["player"] if forfeit_record and last is not None else final.current_player
        return Result.forfeited(Seat.of_player(seat), final.scores())
    r = final.result()
    if r is None:
        raise TranscriptError(f"result: the replayed game is not over after ply "
                              f"{len(t.moves)}")
    return r


def check_result(t: Transcript, final: GameState) -> None:
    """The footer must match the replayed end of the game (`final`: the state after the last
    move replayed): winner, victory, both score breakdowns, the move count, the forfeit and
    the LLM totals. Stray lines (`t.problems`) fail here too."""
    try:
        _check_result(t, final)
    except TranscriptError as exc:
        raise TranscriptError(f"{exc}{_rules_note(t)}") from None


def _check_result(t: Transcript, final: GameState) -> None:
    from duel.accounting.games import llm_totals
    from duel.accounting.totals import as_written

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
    if f["forfeit"] is None and forfeit_record:
        raise TranscriptError(f"result: field forfeit is null, but ply {len(t.moves)} "
                              "records a forfeit")
    expected = expected_result(t, final)
    if expected.forfeit is not None:
        if not forfeit_record:
            moves += 1  # files written before the forfeit's decision was recorded
        if f["forfeit"] != expected.forfeit.player:
            raise TranscriptError(f"result: field forfeit is {f['forfeit']!r}, but player "
                                  f"{expected.forfeit.player} was to move when the game ended")
    want = expected.to_json()
    for name in ("winner", "victory"):
        if f[name] != want[name]:
            raise TranscriptError(f"result: field {name} is {f[name]!r}, replay gives "
                                  f"{want[name]!r}")
    for seat in SEATS:
        for key, value in expected.score(seat).items():
            if f["scores"][seat.key].get(key) != value:
                raise TranscriptError(f"result: field scores.{seat.key}.{key} is "
                                      f"{f['scores'][seat.key].get(key)!r}, replay gives "
                                      f"{value!r}")
    if f["moves"] != moves:
        raise TranscriptError(f"result: field moves is {f['moves']!r}, the file has {moves}")
    if forfeit_record or f["forfeit"] is None:  # else the forfeit's LLM calls are not in the file
        for s in (1, 2):
            totals = llm_totals(m.get("details", {}) for m in t.moves if m.get("player") == s)
            written = f["totals"][str(s)]
            if totals is not None and isinstance(written, dict):
                # keys absent from files written before they were counted
                totals = as_written(totals, written)
            if written != totals:
                raise TranscriptError(f"result: field totals.{s} differs from the totals of "
                                      f"the recorded LLM calls ({totals})")


def verified_result(t: Transcript) -> Result:
    """Re-play the whole transcript and check its footer (:func:`check_result`); the result the
    engine gives. Raises TranscriptError at the first fact that does not match."""
    final = initial_state(t)
    for step in replay(t):
        final = step.after
    check_result(t, final)
    return expected_result(t, final)


def _seconds(move: dict[str, Any]) -> float:
    """A move line's decision time (0 where a hand-written line has none, or not a number)."""
    value = move.get("seconds")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else 0.0


def verified_summary(t: Transcript) -> GameSummary:
    """A finished transcript as a game summary, after :func:`verified_result`."""
    from duel.agents.account import SeatAccount
    from duel.agents.search_time import SearchTime

    players = t.header["players"]
    seed = t.header.get("seed")
    accounts = {str(s): SeatAccount.of_decisions(m.get("details") or {} for m in t.moves
                                                 if m.get("player") == s) for s in (1, 2)}
    search = {str(s): SearchTime.of_records((_seconds(m), m.get("details") or {})
                                            for m in t.moves if m.get("player") == s)
              for s in (1, 2)}
    searched = {player: time for player, time in search.items() if time.moves}
    return GameSummary(seed if type(seed) is int else None,
                       (str(players["1"]["spec"]), str(players["2"]["spec"])),
                       verified_result(t), len(t.moves),
                       float(t.footer["seconds"]) if t.footer else 0.0, accounts=accounts,
                       search=searched or None)
