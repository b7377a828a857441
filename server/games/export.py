"""A game's transcript, built by the one transcript writer's line functions: the server exports
what `duel.transcripts.TranscriptWriter` writes for the same game. A move's details (search
statistics, LLM replies and reasoning) are there once the move is played: nobody, player or
spectator, sees an agent's thinking before its move, and everybody may after it. An LLM seat's
note (``notes=on``) is sealed until the game is over (server/games/notes.py).

Before the game is over its transcript is sealed (`duel.transcripts.seal`): the header carries
neither the deal nor the seed, which hold every hidden card (the face-down slots, the later
Ages' decks, the removed cards, the box). Only the operator reads a running game's deal."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from duel.engine import SEATS, Deal
from duel.errors import ConflictError
from duel.transcripts import header_line, move_line, prompt_of, result_line, seal
from server.games.live import LiveGame
from server.games.notes import seal_notes
from server.store import Store


def header(game: LiveGame) -> dict[str, Any]:
    """The transcript's first line: the deal, the options and each seat's agent."""
    options = game.row.options
    players = [(spec, prompt_of(game.agents.get(seat)))
               for seat, spec in zip(SEATS, game.row.seats, strict=True)]
    return header_line(options.get("seed"), Deal.from_json(options["deal"]), game.code,
                       options["open_box"], players, game.row.created or time.time())


async def transcript_lines(game: LiveGame, store: Store, partial: bool = False,
                           operator: bool = False) -> list[dict[str, Any]]:
    """The game's transcript lines; ConflictError before the game is over, unless `partial`
    (then an unfinished game has no result line, and its header is sealed unless `operator`
    asks: the omniscient operator alone sees a running game's deal)."""
    if not game.over and not partial:
        raise ConflictError("the transcript is ready once the game is over")
    records = await asyncio.to_thread(store.moves, game.code)
    first = header(game)
    if not game.over and not operator:
        first = seal(first)
    moves = [move_line(r) for r in records]
    if not game.over and not operator:
        moves = [seal_notes(line) for line in moves]  # an LLM seat's plan stays its own
    lines = [first, *moves]
    result = game.result
    if result is not None:
        lines.append(result_line(result, records))
    return lines
