"""The analyser's search on the native core (duel/native/search.cpp, Sweeper): from the same
view, moves, seed and iteration budget, every move's value, standard error, visits and rounds
are those of the Python search, bit for bit, and the generator is left in the same place; a
whole transcript's analysis is the same; hidden cards change nothing on the native path either
(twin games), with a guide too. With a guide (--guide), the guided subtrees in C++ (guided.h's
GuidedSearch) give duel.analysis.guided's figures too. Skipped where the native core is not
built."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from helpers.recorded_games import one_card_twin, record_game

from duel.analysis import Settings, analyse_transcript
from duel.analysis.search import evaluate
from duel.engine import GameState, Move, Perspective, new_game
from duel.native import available
from duel.native.differential import sample_position

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")




def _evaluate(state: GameState, settings: Settings, seed: int, keep: int = -1
              ) -> tuple[Any, ...]:
    seen = Perspective.to_move(state)
    view, legal = seen.view(state), seen.moves_out(state.legal_moves())
    rng = random.Random(seed)
    values, done = evaluate(view, legal, legal[keep], settings, rng)
    return values, done, rng.random()


@pytest.fixture
def native_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the native sweeps, so that a test knows which search ran."""
    import duel.native

    calls: list[int] = []
    real = duel.native.Sweeper.sweep

    def sweep(self: Any, alive: list[Move], count: int, seconds: float) -> int:
        calls.append(len(alive))
        return real(self, alive, count, seconds)

    monkeypatch.setattr(duel.native.Sweeper, "sweep", sweep)
    return calls


@pytest.fixture
def guided_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the native guided sweeps (--guide), so that a test knows which search ran."""
    import duel.native

    calls: list[int] = []
    real = duel.native.GuidedSearch.sweep

    def sweep(self: Any, alive: list[int], count: int, seconds: float, timed: bool) -> int:
        calls.append(len(alive))
        return real(self, alive, count, seconds, timed)

    monkeypatch.setattr(duel.native.GuidedSearch, "sweep", sweep)
    return calls


@pytest.mark.parametrize("budget", [{"iterations": 120}, {"iterations": 400}])
def test_the_guided_analysis_agrees(budget: dict[str, Any], guided_calls: list[int]) -> None:
    """--guide natively: every move's value, standard error, visits and rounds, and the
    generator after, are the Python guided sweeps', bit for bit."""
    calls = guided_calls
    for seed in range(8):
        state = sample_position(seed + 40)
        native = _evaluate(state, Settings(**budget, guide="default"), seed, keep=seed % 3 - 1)
        assert calls, "the native guided sweeps did not run"
        calls.clear()
        python = _evaluate(state, Settings(**budget, guide="default", native=False), seed,
                           keep=seed % 3 - 1)
        assert not calls
        assert native == python, seed


def test_a_guided_time_budget_runs_natively() -> None:
    state = sample_position(3)
    values, done, _ = _evaluate(state, Settings(time=0.2, guide="default"), 0)
    assert done > 0 and len(values) == len(state.legal_moves())
    assert sum(v.visits for v in values) == done


@pytest.mark.parametrize("rollout", ["mast", "uniform", "heuristic"])
def test_seeded_evaluations_agree(rollout: str, native_calls: list[int]) -> None:
    for seed in range(10):
        state = sample_position(seed)
        settings = Settings(iterations=300, rollout=rollout)
        native = _evaluate(state, settings, seed)
        assert native_calls, "the native search did not run"
        native_calls.clear()
        python = _evaluate(state, Settings(iterations=300, rollout=rollout, native=False), seed)
        assert not native_calls
        assert native == python, seed


def test_the_figures_agree_whichever_move_was_played_and_with_other_constants() -> None:
    state = sample_position(4)
    for keep, c, bias, epsilon in ((0, 0.7, 0.75, 0.3), (1, 1.2, 0.5, 0.1), (-1, 0.3, 0.9, 0.6)):
        settings = {"iterations": 250, "c": c, "build_bias": bias, "epsilon": epsilon}
        assert _evaluate(state, Settings(**settings), 7, keep) == \
            _evaluate(state, Settings(**settings, native=False), 7, keep)


def test_a_time_budget_runs_natively_within_its_time(native_calls: list[int]) -> None:
    import time

    state = new_game(4)
    start = time.perf_counter()
    values, done, _ = _evaluate(state, Settings(time=0.3), 0)
    elapsed = time.perf_counter() - start
    rounds = max(v.rounds for v in values)
    assert len(native_calls) == rounds  # one native call a round: the deadline is kept there
    assert done == sum(v.visits for v in values) and done > 10 * len(values)
    assert 0.25 < elapsed < 1.0


def test_pure_runs_the_python_search(monkeypatch: pytest.MonkeyPatch,
                                     native_calls: list[int]) -> None:
    import duel.analysis.search

    monkeypatch.setattr(duel.analysis.search, "_native_available", lambda: False)
    _evaluate(new_game(2), Settings(iterations=40), 0)
    assert not native_calls


def test_a_transcript_is_analysed_the_same_by_both(tmp_path: Path) -> None:
    game = record_game(tmp_path / "game.jsonl", "rule", "random", seed=3)
    one = analyse_transcript(game, (1, 2), Settings(iterations=40), jobs=1).to_json()
    two = analyse_transcript(game, (1, 2), Settings(iterations=40, native=False),
                             jobs=1).to_json()
    for a in (one, two):
        del a["seconds"]
    assert one == two


@pytest.mark.parametrize("guide", ["", "default"], ids=["rollouts", "guide"])
def test_hidden_cards_do_not_change_the_native_analysis(tmp_path: Path, guide: str,
                                                        native_calls: list[int],
                                                        guided_calls: list[int]) -> None:
    """Twin games (as tests/analysis/test_analysis_game.py's): the deals differ only in a card
    of Age III's deck; every decision before it shows is analysed identically by the native
    search (its rollouts, or with --guide its guided subtrees in C++), though the true states
    differ."""
    deal = new_game(8).deal
    a_path = record_game(tmp_path / "a.jsonl", "rule", "mcts:iterations=30", seed=8, deal=deal,
                         code="TWIN")
    b_path = record_game(tmp_path / "b.jsonl", "rule", "mcts:iterations=30", seed=8,
                         deal=one_card_twin(deal), code="TWIN")
    from duel.transcripts import read

    a_moves, b_moves = read(a_path).moves, read(b_path).moves
    same = 0
    while a_moves[same]["view_hash"] == b_moves[same]["view_hash"]:
        same += 1
    first_differing_ply = same + 1
    assert first_differing_ply > 40
    native_calls.clear()
    settings = Settings(iterations=60, guide=guide)
    a = analyse_transcript(a_path, (1, 2), settings, jobs=1)
    b = analyse_transcript(b_path, (1, 2), settings, jobs=1)
    ran, other = (guided_calls, native_calls) if guide else (native_calls, guided_calls)
    assert ran and not other, "the native search asked for did not run"
    before = [d.to_json() for d in a.decisions if d.ply < first_differing_ply]
    assert len(before) > 30
    assert before == [d.to_json() for d in b.decisions if d.ply < first_differing_ply]
    # And differ after it: the analysis does see what the seat sees.
    after = [d.to_json()["moves"] for d in a.decisions if d.ply >= first_differing_ply]
    assert after != [d.to_json()["moves"] for d in b.decisions
                     if d.ply >= first_differing_ply]


def test_the_cpu_comparison_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from duel.bench.native import main

    assert main(["--rounds", "1", "--decisions", "2", "--iterations", "30"]) == 0
    out = capsys.readouterr().out
    assert "analyser CPU per decision: native" in out and "2 decisions at 30" in out
