"""Transcripts for tests: a game between agents written as `duel match` writes it, on any deal
and under any game code (twin deals share one, so that their views can be identical)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from duel.agents import make_agent
from duel.engine import Deal, Seat, new_game
from duel.match import agent_rng, decide
from duel.records import MoveRecord
from duel.transcripts import TranscriptWriter, header_line


def record_game(path: Path, p1: str, p2: str, seed: int = 0, deal: Deal | None = None,
                code: str | None = None) -> Path:
    """Play `p1` against `p2` on `deal` (default: the deal of `seed`), agents seeded by `seed`,
    and write the transcript to `path`."""
    agents = (make_agent(p1), make_agent(p2))
    deal = deal or new_game(seed).deal
    state = new_game(deal=deal, code=code)
    writer = TranscriptWriter(path, header_line(seed, deal, state.code, True,
                                                [(a.spec, None) for a in agents], 0.0))
    rngs = (agent_rng(seed, Seat.P1), agent_rng(seed, Seat.P2))
    while not state.is_terminal():
        move, details, _ = decide(agents[state.current], state, rngs[state.current])
        writer.record(MoveRecord.decided(state, move, 0.0, details))
        state = state.apply(move)
    result = state.result()
    assert result is not None
    writer.finish(result)
    return path


def one_card_twin(deal: Deal) -> Deal:
    """The same deal but for one Age III card swapped with a card removed from Age III: the two
    games look the same to both seats until that card would show."""
    age3, removed3 = list(deal.age3), list(deal.removed3)
    age3[19], removed3[0] = removed3[0], age3[19]
    return dataclasses.replace(deal, age3=tuple(age3), removed3=tuple(removed3))
