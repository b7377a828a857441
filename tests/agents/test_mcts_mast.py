"""MAST rollouts (the search's default): what the table averages over, how it learns and picks,
and that a seeded search with it stays reproducible."""

from __future__ import annotations

import random

from duel.agents.mcts import MAST_BLOCK, MAST_KEYS, Mast, MCTSAgent, Node, iterate, mast_key
from duel.engine import InfoSet, new_game, seat_view
from duel.engine.moves import MoveKind
from duel.engine.state import GameState
from duel.engine.steps import PLAY_CARD


def _play_card_state(seed: int = 4) -> GameState:
    """A state at Age I's first PLAY_CARD step (the wonder draft played randomly)."""
    state = new_game(seed)
    rng = random.Random(seed)
    while state.step != PLAY_CARD:
        moves = state.legal_moves()
        state.play(moves[int(rng.random() * len(moves))])
    return state


def test_a_key_names_the_card_or_the_wonder_not_the_pyramid_slot() -> None:
    state = _play_card_state()
    moves = state.legal_moves()
    for m in moves:
        k = mast_key(state, m)
        assert 0 <= k < MAST_KEYS
        block = MAST_BLOCK[m.kind]
        assert block <= k < block + 100
        if m.kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD):
            assert k == block + state.pyramid[m.card_index]
    builds = [mast_key(state, m) for m in moves if m.kind == MoveKind.CONSTRUCT_BUILDING]
    discards = [mast_key(state, m) for m in moves if m.kind == MoveKind.DISCARD]
    assert len(set(builds)) == len(builds) and len(set(discards)) == len(discards)
    # The same wonder through different cards is one kind of move.
    wonders = {m.wonder: mast_key(state, m) for m in moves if m.kind == MoveKind.CONSTRUCT_WONDER}
    for m in moves:
        if m.kind == MoveKind.CONSTRUCT_WONDER:
            assert mast_key(state, m) == wonders[m.wonder]


def test_the_table_learns_from_each_movers_side_and_picks_the_best_mean() -> None:
    state = _play_card_state()
    seat = state.current
    builds = [m for m in state.legal_moves() if m.kind == MoveKind.CONSTRUCT_BUILDING]
    assert len(builds) >= 2
    good, bad = builds[0], builds[1]
    mast = Mast(0.0)
    # Untried kinds count as wins: the first pick is the first move not yet tried.
    assert mast.best(state, builds, seat) is builds[0]
    for reward, move in ((1.0, good), (0.0, bad), (0.0, bad)):
        mast.trail.append(mast_key(state, move) * 2 + seat)
        mast.learn((reward, 1.0 - reward) if seat == 0 else (1.0 - reward, reward))
    assert mast.trail == []
    k_good, k_bad = mast_key(state, good) * 2 + seat, mast_key(state, bad) * 2 + seat
    assert (mast.total[k_good], mast.count[k_good]) == (1.0, 1.0)
    assert (mast.total[k_bad], mast.count[k_bad]) == (0.0, 2.0)
    # The other seat's entries are untouched: a move good for one player is not for the other.
    assert mast.count[k_good ^ 1] == 0.0
    tried = [bad, good]
    assert mast.best(state, tried, seat) is good


def test_an_iteration_learns_every_move_it_played() -> None:
    info = InfoSet.from_view(seat_view(new_game(3)))
    rng = random.Random(0)
    state = info.sample(rng)
    mast = Mast(0.3)
    iterate(Node(None, None, -1), state, rng, 0.7, "mast", 0.75, 0.0, mast)
    assert mast.trail == []
    # Both players' moves of a whole game (from the wonder draft on) were counted.
    per_seat = [sum(mast.count[k] for k in range(s, 2 * MAST_KEYS, 2)) for s in (0, 1)]
    assert min(per_seat) >= 30, per_seat


def test_a_seeded_mast_search_is_reproducible_and_is_the_default() -> None:
    assert MCTSAgent().rollout == "mast"
    view = seat_view(new_game(5))
    legal = InfoSet.from_view(view).sample(random.Random(0)).legal_moves()
    a = MCTSAgent(iterations=300, seed=7).choose(view, legal, random.Random(1))
    b = MCTSAgent(iterations=300, seed=7).choose(view, legal, random.Random(2))
    assert a.move == b.move and a.details["top"] == b.details["top"]


def test_keys_are_the_same_in_every_process() -> None:
    """Keys come from the engine's ids, not from hashes (a string's hash changes with
    PYTHONHASHSEED): a seeded search must choose alike in a subprocess (the differential
    compares the builds that way) and on a Ray worker."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json, random; from duel.engine import new_game; "
            "from duel.agents.mcts import mast_key\n"
            "out = []\n"
            "for seed in range(3):\n"
            "    s = new_game(seed); r = random.Random(seed)\n"
            "    while not s.result():\n"
            "        ms = s.legal_moves(); out += [mast_key(s, m) for m in ms]\n"
            "        s.play(ms[int(r.random() * len(ms))])\n"
            "print(json.dumps(out))")
    keys = [json.loads(subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": seed}).stdout) for seed in ("1", "2")]
    assert keys[0] == keys[1] and len(keys[0]) > 1000
