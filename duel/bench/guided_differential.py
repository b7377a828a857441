"""`python -m duel.bench.guided_differential [POSITIONS] [GAMES]`: the guided search's native tree
against the Python one, beyond the tests' sample: from each of POSITIONS positions (some random
plies into game `seed`, as tests/guide/test_guide_native.py draws them) a seeded search at an
iteration budget, with the Gumbel root and with PUCT and the cap reached, must give the same
move, the same details (but the wall time), the same root statistics and the same generator
state after; and GAMES whole games of `mcts:guide=default,iterations=100,reuse=0` against `rule`
the same moves and details. Prints the counts of disagreements (all 0 when they agree)."""

from __future__ import annotations

import random
import sys
from typing import Any

SETTINGS: tuple[dict[str, Any], ...] = ({"iterations": 200},
                                        {"iterations": 300, "root": "puct", "cap": 2})




def _decide(state: Any, native: int, seed: int, params: dict[str, Any]) -> tuple[Any, ...]:
    from duel.agents.guided.agent import GuidedAgent
    from duel.engine import Perspective

    seen = Perspective.to_move(state)
    rng = random.Random(seed)
    decision, stats = GuidedAgent(native=native, **params).analyse(
        seen.view(state), seen.moves_out(state.legal_moves()), rng)
    details = {k: v for k, v in decision.details.items() if k != "seconds"}
    return decision.move, details, stats, rng.random()


def main(argv: list[str]) -> int:
    from duel.build import describe
    from duel.match import play_match
    from duel.native import available
    from duel.native.differential import sample_position

    positions = int(argv[0]) if argv else 100
    games = int(argv[1]) if len(argv) > 1 else 10
    if not available():
        print(f"the native core is not in use: {describe()}")
        return 1
    print(describe())
    for params in SETTINGS:
        bad = sum(_decide(sample_position(s), 1, s, params)
                  != _decide(sample_position(s), 0, s, params) for s in range(positions))
        print(f"{params}: {bad} of {positions} positions disagree")
    bad = plies = 0
    for seed in range(games):
        runs = [play_match(f"mcts:guide=default,iterations=100,reuse=0,native={n}", "rule",
                           seed=seed) for n in (1, 0)]
        seen = [[(r.move, {k: v for k, v in r.details.items() if k != "seconds"})
                 for r in run.records] for run in runs]
        plies += len(seen[0])
        bad += seen[0] != seen[1]
    print(f"{games} whole games against rule ({plies} plies): {bad} differ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
