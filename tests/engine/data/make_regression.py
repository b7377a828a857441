"""Writes tests/engine/data/regression.json: perft-style fingerprints of 30 seeded random games.

For seeds 0..29: game seed = s, move rng = random.Random(s), move = rng.choice(legal_moves()).
Each game records, at every ply, the number of legal moves, the step and the move chosen, and the
final result (winner, victory, both totals). tests/engine/test_regression.py replays the same
games and compares, so any change to the rules shows up as the first ply where a count differs.

Regenerate only after an intended rule change, and review the diff:

    python3 tests/engine/data/make_regression.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from duel.engine import Seat, new_game  # noqa: E402

SEEDS = range(30)
OUT = HERE / "regression.json"


def fingerprint(seed: int) -> dict[str, Any]:
    """The perft record of one seeded random game."""
    state = new_game(seed)
    rng = random.Random(seed)
    counts: list[int] = []
    steps: list[str] = []
    moves: list[str] = []
    while True:
        legal = state.legal_moves()
        counts.append(len(legal))
        steps.append(state.step_name)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(str(move))
        state = state.apply(move)
    result = state.result()
    assert result is not None
    return {
        "counts": counts,
        "steps": steps,
        "moves": moves,
        "result": {"winner": result.winner_label, "victory": result.victory,
                   "totals": [result.total(Seat.P1), result.total(Seat.P2)]},
    }


def build() -> dict[str, Any]:
    return {
        "about": ("perft-style fingerprints; regenerate with "
                  "python3 tests/engine/data/make_regression.py"),
        "games": {str(s): fingerprint(s) for s in SEEDS},
    }


def main() -> None:
    data = build()
    # One game per line keeps the file small and its diffs readable.
    lines = ["{", f'  "about": {json.dumps(data["about"])},', '  "games": {']
    games = list(data["games"].items())
    for i, (seed, game) in enumerate(games):
        comma = "," if i < len(games) - 1 else ""
        lines.append(f"    {json.dumps(seed)}: {json.dumps(game)}{comma}")
    lines += ["  }", "}"]
    OUT.write_text("\n".join(lines) + "\n")
    assert json.loads(OUT.read_text()) == data
    print(f"wrote {OUT} ({len(games)} games)")


if __name__ == "__main__":
    main()
