"""Transcripts: one JSON-lines file per game, written as the game goes.

Line 1 is the header (versions, the deal, options, each seat's agent spec and prompt variant),
then one record per decision, then a footer with the result. Every line is flushed as soon as it
is written, so a killed match leaves a readable partial file. `format_version` lets old files
stay readable. `replay` re-plays the deal and the moves through the engine and checks every
recorded fact.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
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
        self._write({
            "type": "header", "format_version": FORMAT_VERSION, "duel_version": __version__,
            "rules_version": RULES_VERSION, "seed": seed, "code": code or deal_code(deal),
            "deal": deal.to_json(),
            "options": {"open_box": open_box},
            "players": {str(i + 1): {"spec": a.spec, "prompt": _prompt_of(a)}
                        for i, a in enumerate(agents)},
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        })

    def _write(self, obj: dict[str, Any]) -> None:
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

    def finish(self, result: Any) -> None:
        from duel.agents.llm.accounting import llm_totals

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
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return Path(folder) / f"{stamp}-{code}.jsonl"


class TranscriptError(Exception):
    """A transcript that cannot be read, or whose facts the engine does not reproduce."""


@dataclass
class Transcript:
    header: dict[str, Any]
    moves: list[dict[str, Any]]
    footer: dict[str, Any] | None
    problems: list[str]  # lines that could not be read (a cut-off last line, say)


def read(path: str | Path) -> Transcript:
    """Parse a transcript; unreadable lines are reported in `problems`, not raised."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise TranscriptError(f"cannot read {path}: {exc.strerror}") from exc
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
        elif kind == "move":
            moves.append(obj)
        elif kind == "result":
            footer = obj
        else:
            problems.append(f"line {i}: unexpected record {str(kind)!r}")
    if header is None:
        raise TranscriptError(f"{path}: the first line is not a transcript header")
    version = header.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise TranscriptError(f"{path}: format_version {version!r} is not supported "
                              f"(this duel reads up to {FORMAT_VERSION})")
    return Transcript(header, moves, footer, problems)


@dataclass
class ReplayStep:
    ply: int
    before: GameState
    move: Move
    after: GameState


def replay(t: Transcript) -> Iterator[ReplayStep]:
    """Re-play the transcript, checking each record; raises TranscriptError at the first
    mismatch, naming the ply and the field."""
    try:
        deal = Deal.from_json(t.header["deal"])
    except (DuelError, KeyError) as exc:
        raise TranscriptError(f"header: deal: {exc}") from None
    code = t.header.get("code")
    state = new_game(deal=deal, open_box=bool(t.header.get("options", {}).get("open_box", True)),
                     code=code if isinstance(code, str) else None)
    for expected_ply, rec in enumerate(t.moves, 1):
        ply = rec.get("ply")
        if ply != expected_ply:
            raise TranscriptError(f"ply {expected_ply}: field ply is {ply!r}")
        if rec.get("player") != state.current_player:
            raise TranscriptError(f"ply {ply}: field player is {rec.get('player')!r}, but "
                                  f"player {state.current_player} is to move")
        if rec.get("step") != state.step_name:
            raise TranscriptError(f"ply {ply}: field step is {rec.get('step')!r}, expected "
                                  f"{state.step_name}")
        seen = view_hash(seat_view(state, as_player2=state.current_player))
        if rec.get("view_hash") != seen:
            raise TranscriptError(f"ply {ply}: field view_hash differs (recorded "
                                  f"{rec.get('view_hash')}, replayed {seen})")
        try:
            move = Move.from_json(rec.get("move"))
        except DuelError as exc:
            raise TranscriptError(f"ply {ply}: field move: {exc}") from None
        if rec.get("details", {}).get("forfeit"):
            return  # the player resigned here; the move was never played
        if move not in state.legal_moves():
            raise TranscriptError(f"ply {ply}: field move is illegal: {state.why_illegal(move)}")
        price = state.price(move)
        if rec.get("price") != price:
            raise TranscriptError(f"ply {ply}: field price is {rec.get('price')!r}, the engine "
                                  f"says {price}")
        after = state.apply(move)
        yield ReplayStep(ply, state, move, after)
        state = after


def check_result(t: Transcript, final: GameState) -> None:
    """The footer must match the replayed end of the game."""
    f = t.footer
    if f is None:
        raise TranscriptError(f"the file ends after ply {len(t.moves)} without a result "
                              "(a partial transcript)")
    if f.get("forfeit"):
        expected: dict[str, Any] = {"winner": 3 - f["forfeit"], "victory": "forfeit",
                                    "player1": final.score(0), "player2": final.score(1)}
    else:
        r = final.result()
        if r is None:
            raise TranscriptError(f"result: the replayed game is not over after ply "
                                  f"{len(t.moves)}")
        expected = r
    for field in ("winner", "victory"):
        if f.get(field) != expected[field]:
            raise TranscriptError(f"result: field {field} is {f.get(field)!r}, replay gives "
                                  f"{expected[field]!r}")
    for seat in ("player1", "player2"):
        if f.get("scores", {}).get(seat) != expected[seat]:
            raise TranscriptError(f"result: field scores.{seat} differs from the replay")
