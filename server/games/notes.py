"""The LLM seat's notes (harness setting ``notes=on``) are private to the seat until the game is
over: while it runs, a move's ``note`` and the replies that hold it (each call's ``raw``) are
shown sealed to players and spectators alike. Everything else of the move's details is public
once the move is played, as always (server/games/export.py); the operator sees all."""

from __future__ import annotations

from typing import Any

SEALED = "(private to the seat until the game is over)"


def seal_notes(line: dict[str, Any]) -> dict[str, Any]:
    """A transcript move line with its note and the replies holding it sealed (other lines,
    and moves without a note, as they are)."""
    details = line.get("details")
    if not isinstance(details, dict):
        return line
    llm = details.get("llm")
    if not isinstance(llm, dict) or "note" not in llm:
        return line
    calls = [{**c, "raw": SEALED} if isinstance(c, dict) and c.get("raw") else c
             for c in llm.get("calls") or []]
    sealed = {**llm, "note": None if llm["note"] is None else SEALED, "calls": calls}
    return {**line, "details": {**details, "llm": sealed}}
