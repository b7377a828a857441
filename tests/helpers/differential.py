"""The differential between the compiled and the pure build: seeded random games and seeded
MCTS decisions reduced to digests (every move, every state's fields after every move, the
result; every decision with its search statistics). The test compares this process's digests
with a subprocess's that runs the pure source (``DUEL_PURE=1 python differential.py ...``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
from typing import Any

from duel.agents.mcts import MCTSAgent
from duel.engine import GameState, Move, new_game
from duel.engine.city import PlayerState
from duel.engine.perspective import Perspective
from duel.engine.playout import random_game

# The price memo (prices, table) is a cache; the deal never changes within a game.
_SKIP = {"prices", "players", "deal", "table"}
_STATE_FIELDS = [f.name for f in dataclasses.fields(GameState) if f.name not in _SKIP]
_PLAYER_FIELDS = [f.name for f in dataclasses.fields(PlayerState) if f.name not in _SKIP]


def state_repr(state: GameState) -> str:
    return repr(([getattr(state, n) for n in _STATE_FIELDS],
                 [[getattr(p, n) for n in _PLAYER_FIELDS] for p in state.players]))


def game_digest(seed: int) -> str:
    """The random game of `seed` played in place (the engine's playout loop), one move at a
    time so that every state is hashed."""
    state = new_game(seed)
    h = hashlib.sha256(state_repr(state).encode())
    moves: list[Move] = []
    rng = random.Random(seed)
    while not state.is_terminal():
        before = len(moves)
        # One move of the shared loop: the same generator draws, the same move is played.
        move = rng.choice(state.legal_moves())
        state.play(move)
        moves.append(move)
        h.update(repr(move.to_json()).encode())
        h.update(state_repr(state).encode())
        assert len(moves) == before + 1
    # The engine's own loop must play the very same game.
    again: list[Move] = []
    replay = new_game(seed)
    random_game(replay, random.Random(seed), again)
    assert again == moves and state_repr(replay) == state_repr(state), seed
    result = state.result()
    assert result is not None
    h.update(json.dumps(result.to_json(), sort_keys=True).encode())
    return h.hexdigest()


def decision_digest(seed: int, iterations: int) -> str:
    """An MCTS decision at a seeded position (up to 59 random plies into game `seed`): the move,
    its details and every root child's visits and reward."""
    state = new_game(seed)
    rng = random.Random(seed)
    for _ in range(seed % 60):
        if state.is_terminal():
            break
        state.play(rng.choice(state.legal_moves()))
    if state.is_terminal():
        return "terminal"
    seen = Perspective.to_move(state)
    agent = MCTSAgent(iterations=iterations)
    decision, children = agent.analyse(seen.view(state), seen.moves_out(state.legal_moves()),
                                       random.Random(seed))
    details = {k: v for k, v in decision.details.items() if k != "seconds"}  # a clock
    stats = sorted((m.to_json()["move"], repr(m.to_json()), v, repr(r)) for m, v, r in children)
    return hashlib.sha256(repr((decision.move.to_json(), json.dumps(details,
                                sort_keys=True), stats)).encode()).hexdigest()


def digests(kind: str, start: int, count: int, iterations: int = 100) -> list[str]:
    if kind == "games":
        return [game_digest(s) for s in range(start, start + count)]
    return [decision_digest(s, iterations) for s in range(start, start + count)]


def main(argv: list[str]) -> None:
    kind, start, count, iterations = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    from duel.build import build

    out: dict[str, Any] = {"build": build(), "digests": digests(kind, start, count, iterations)}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
