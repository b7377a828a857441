"""`GET /games/{code}/log`: the moves played so far in words (duel.words, the one writer of
texts for people), for the play page's move log and its "last move" panel, which a reload
rebuilds from here.

Each entry is a move as the partial transcript has it (public once played: its details are
the transcript's, search statistics and LLM replies included), with its text and, for a
search's top moves, each move's text, written from the state the move was played in. A move
names only what was face up when it was played; its players are "{1}"/"{2}" (true player
numbers), for the page to fill with its own labels."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from duel.engine import GameState, Move
from duel.transcripts import is_forfeit
from duel.words.agents import details_words
from duel.words.moves import move_json_text, move_text
from server.deps import Game, Manager
from server.errors import ERRORS
from server.games.events import replay_states

router = APIRouter(prefix="/games", tags=["games"])


def entry(before: GameState, after: GameState | None, line: dict[str, Any]) -> dict[str, Any]:
    """One transcript move line, with its words."""
    move = Move.from_json(line["move"])
    out = {k: line[k] for k in ("ply", "player", "move", "price", "seconds", "details")}
    out["age"] = before.age
    out["text"] = "resigns" if is_forfeit(line) else move_text(before, move, after)
    details = dict(line.get("details") or {})
    if isinstance(details.get("top"), list):
        details["top"] = [{**row, "text": move_json_text(before, row.get("move"))}
                          for row in details["top"] if isinstance(row, dict)]
    out["details"] = details
    out["notes"] = details_words(details)
    # The only legal move: the play page plays it for its person, and says so.
    out["forced"] = len(before.legal_moves()) == 1
    return out


@router.get("/{code}/log", responses=ERRORS)
async def log(code: str, game: Game, m: Manager,
              since: Annotated[int, Query(ge=0, description="only the moves from this ply on")]
              = 0) -> dict[str, Any]:
    """The moves so far, from ply `since` on, each with its text in words."""
    lines = [ln for ln in await m.transcript(game, partial=True)
             if ln["type"] == "move" and ln["ply"] >= since]
    if not lines:
        return {"moves": []}
    states: dict[int, GameState] = {}
    wanted = {ln["ply"] - 1 for ln in lines} | {ln["ply"] for ln in lines}
    for ply in wanted:
        state = game.past(ply)
        if state is not None:
            states[ply] = state
    if any(ln["ply"] - 1 not in states for ln in lines):
        states = {**await replay_states(game, m.store), **states}
    out = []
    for ln in lines:
        before = states.get(ln["ply"] - 1)
        if before is None:  # not kept and not replayed: nothing to write it from
            continue
        out.append(entry(before, states.get(ln["ply"]), ln))
    return {"moves": out}
