"""The public API at `import duel`: a game, a recorded match, its replay and its analysis in a
few lines, every name loaded when first used, and one root for every error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import duel


def test_a_recorded_match_replays_and_is_analysed(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    result = duel.play_match(duel.make_agent("rule"), "mcts:iterations=30", seed=3,
                             transcript=path)
    assert result.transcript == path and result.result.victory in (
        "military", "science", "civilian")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "result"
    assert len(lines) == len(result.records) + 2
    final = duel.replay(path)
    assert isinstance(final, duel.GameState) and final.is_terminal()
    assert final.result() == result.result
    analysis = duel.analyse(path, seats=(1,), iterations=30, jobs=1)
    assert analysis.decisions and {d.player for d in analysis.decisions} == {1}
    assert (tmp_path / "game.analysis.json").exists()


def test_the_engine_s_names() -> None:
    state = duel.new_game(seed=7)
    move = state.legal_moves()[0]
    assert isinstance(move, duel.Move) and duel.Move.from_json(move.to_json()) == move
    assert duel.Seat.of_player(1) is duel.Seat.P1
    with pytest.raises(duel.IllegalMoveError):
        state.apply(duel.Move.from_json({"move": "DISCARD", "moveData": {"cardIndex": 0}}))


def test_every_error_is_a_duel_error(tmp_path: Path) -> None:
    with pytest.raises(duel.DuelError):
        duel.make_agent("nosuch")
    with pytest.raises(duel.DuelError):
        duel.replay(tmp_path / "missing.jsonl")
    (tmp_path / "tampered.jsonl").write_text("not json\n")
    with pytest.raises(duel.TranscriptError):
        duel.replay(tmp_path / "tampered.jsonl")
    assert issubclass(duel.SpecError, ValueError)  # kept as a second base


def test_unknown_names_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        duel.nosuch  # noqa: B018
    assert set(dir(duel)) == set(duel.__all__)
