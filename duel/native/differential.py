"""The native core against the Python engine, ply by ply: seeded random games in which both
engines hold the same position, and after every move every state field and the legal-move list
must agree. `python -m duel.native.differential GAMES [FIRST_SEED]` runs the full count (the
note's >= 100,000 games); tests/engine/test_native.py runs a sample in CI."""

from __future__ import annotations

import random
import sys
import time
from typing import Any

from duel.engine import GameState, Move, new_game
from duel.engine.playout import random_game
from duel.native import (
    core,
    legal_moves,
    native_fields,
    python_fields,
    to_native,
)
from duel.native import random_game as native_random_game


def sample_position(seed: int) -> GameState:
    """A position some random plies into game `seed` (the draft, Age I, II or III) with a choice
    to make: the positions on which the searches' differentials (the analyser's, the guided
    tree's, their tests) compare the native core with Python."""
    state = new_game(seed)
    rng = random.Random(seed)
    for _ in range((seed * 11) % 80):
        if state.is_terminal():
            break
        state.play(rng.choice(state.legal_moves()))
    if state.is_terminal() or len(state.legal_moves()) < 2:
        state = new_game(seed)
    return state


class Disagreement(AssertionError):
    """The engines differ: the seed, the ply and the first field that differs."""


def _first_difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    for key in a:
        if a[key] != b.get(key):
            return f"{key}: python {a[key]!r} native {b.get(key)!r}"
    return ""


def compare(state: GameState, native: Any, where: str,
            loaded_prev: tuple[Any, ...] = (-1, "", -1, ())) -> list[Move]:
    """Both engines' positions and legal moves agree (else Disagreement); the legal moves."""
    mine = python_fields(state)
    theirs = native_fields(native, loaded_prev)
    if mine != theirs:
        raise Disagreement(f"{where}: {_first_difference(mine, theirs)}")
    legal = state.legal_moves()
    native_legal = legal_moves(native)
    if legal != native_legal:
        raise Disagreement(f"{where}: legal moves python {[str(m) for m in legal]} "
                           f"native {[str(m) for m in native_legal]}")
    return legal


def check_game(seed: int) -> int:
    """Game `seed` played by both engines at once (the moves drawn from `Random(seed)`), the
    start from both engines' own deal of `seed`; then the native playout must play the same
    whole game as duel.engine.playout. Returns the plies compared."""
    state = new_game(seed)
    native = core().new_game(seed)
    rng = random.Random(seed)
    plies = 0
    legal = compare(state, native, f"seed {seed} start")
    while not state.is_terminal():
        move = legal[rng.randrange(len(legal))]
        state.play(move)
        native.play(_code(move))
        plies += 1
        legal = compare(state, native, f"seed {seed} ply {plies} after {move}")
    if state.score(0) != native.score(0) or state.score(1) != native.score(1):
        raise Disagreement(f"seed {seed}: final scores")
    # The whole-game playout: the same moves, and the generator left in the same place.
    py_state, py_rng = new_game(seed), random.Random(~seed & 0xFFFF)
    py_moves: list[Move] = []
    random_game(py_state, py_rng, py_moves)
    nat_state, nat_rng = to_native(new_game(seed)), random.Random(~seed & 0xFFFF)
    nat_moves = native_random_game(nat_state, nat_rng)
    if py_moves != nat_moves or py_rng.random() != nat_rng.random():
        raise Disagreement(f"seed {seed}: the playouts differ")
    compare(py_state, nat_state, f"seed {seed} after the playout")
    return plies


def _code(move: Move) -> int:
    from duel.native import CODE_OF

    return CODE_OF[move]


def run(games: int, first: int = 0) -> dict[str, Any]:
    start = time.perf_counter()
    plies = sum(check_game(seed) for seed in range(first, first + games))
    return {"games": games, "first_seed": first, "plies": plies, "disagreements": 0,
            "seconds": round(time.perf_counter() - start, 1)}


if __name__ == "__main__":
    import json

    from duel.build import describe

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    first_seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    print(json.dumps({"build": describe(), **run(count, first_seed)}))
