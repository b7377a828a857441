"""duel: 7 Wonders Duel for LLM agents, MCTS and external bots.

    import duel

    state = duel.new_game(seed=7)                 # the rules engine: state.legal_moves(), apply
    result = duel.play_match(duel.make_agent("rule"), duel.make_agent("mcts:iterations=200"),
                             seed=3, transcript="game.jsonl")
    final = duel.replay("game.jsonl")             # checked through the engine
    analysis = duel.analyse("game.jsonl", iterations=300)

Every name is loaded when first used: `import duel` itself loads no numpy, onnxruntime, LLM SDK,
web framework, torch or matplotlib. Every error duel raises on purpose derives from DuelError.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from duel.build import activate as _activate

__version__ = "0.1.0"

# Before any compiled module loads: a stale one must not run (see duel.build).
_activate()

# The public API: name -> the module it lives in.
_API = {
    "new_game": "duel.engine", "GameState": "duel.engine", "Move": "duel.engine",
    "Seat": "duel.engine", "Deal": "duel.engine", "Result": "duel.engine",
    "Perspective": "duel.engine", "seat_view": "duel.engine",
    "DuelError": "duel.errors", "IllegalMoveError": "duel.errors",
    "InvalidMoveError": "duel.errors", "InvalidStateError": "duel.errors",
    "SpecError": "duel.errors", "TranscriptError": "duel.errors",
    "Agent": "duel.agents.base", "Decision": "duel.agents.base",
    "make_agent": "duel.agents.spec", "register": "duel.agents.spec",
    "play_match": "duel.match", "MatchResult": "duel.match",
    "read_transcript": "duel.transcripts",
    "replay": "duel.api", "analyse": "duel.api",
}
_RENAMED = {"read_transcript": "read"}

__all__ = [
    "Agent", "Deal", "Decision", "DuelError", "GameState", "IllegalMoveError",
    "InvalidMoveError", "InvalidStateError", "MatchResult", "Move", "Perspective", "Result",
    "Seat", "SpecError", "TranscriptError", "__version__", "analyse", "make_agent", "new_game",
    "play_match", "read_transcript", "register", "replay", "seat_view",
]


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'duel' has no attribute {name!r}")
    value = getattr(import_module(module), _RENAMED.get(name, name))
    globals()[name] = value  # once: the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # the names as type checkers and editors see them
    from duel.agents.base import Agent, Decision
    from duel.agents.spec import make_agent, register
    from duel.api import analyse, replay
    from duel.engine import Deal, GameState, Move, Perspective, Result, Seat, new_game, seat_view
    from duel.errors import (
        DuelError,
        IllegalMoveError,
        InvalidMoveError,
        InvalidStateError,
        SpecError,
        TranscriptError,
    )
    from duel.match import MatchResult, play_match
    from duel.transcripts import read as read_transcript
