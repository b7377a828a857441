"""The sidecar: valid against its published schema, read back to the same analysis, reused only
when fresh and made with the same settings, and a stale one detected."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers.recorded_games import record_game

from duel.analysis import Analysis, Settings, analyse_file, load_analysis
from duel.analysis.sidecar import load, read, sidecar_path
from duel.errors import TranscriptError
from duel.schemas import schema

FAST = Settings(iterations=30)


@pytest.fixture()
def game(tmp_path: Path) -> Path:
    return record_game(tmp_path / "game.jsonl", "random", "rule", seed=4)


def test_the_sidecar_validates_and_round_trips(game: Path) -> None:
    before = game.read_bytes()
    analysis, path = analyse_file(game, (1, 2), FAST, jobs=1)
    assert path == game.with_name("game.analysis.json") == sidecar_path(game)
    assert game.read_bytes() == before  # the transcript is never touched
    obj = json.loads(path.read_text())
    jsonschema.Draft202012Validator(schema("analysis")).validate(obj)
    assert obj == analysis.to_json()
    back = Analysis.from_json(read(path))
    assert back.to_json() == obj
    loaded = load_analysis(game)
    assert loaded is not None and loaded.to_json() == obj


def test_a_fresh_sidecar_with_the_same_settings_is_reused(game: Path) -> None:
    first, path = analyse_file(game, (1, 2), FAST, jobs=1)
    again, _ = analyse_file(game, (1, 2), FAST, jobs=1)
    assert again.reused and not first.reused and again.to_json() == first.to_json()
    other, _ = analyse_file(game, (1,), FAST, jobs=1)  # other seats: analysed again
    assert not other.reused and json.loads(path.read_text())["analysed_seats"] == [1]
    forced, _ = analyse_file(game, (1,), FAST, jobs=1, reuse=False)
    assert not forced.reused


def test_a_stale_sidecar_is_detected(game: Path) -> None:
    analyse_file(game, (1, 2), FAST, jobs=1)
    assert load(game) is not None
    game.write_text(game.read_text() + "\n")  # the same game, but not the same bytes
    with pytest.raises(TranscriptError, match="stale: the transcript changed"):
        load(game)
    with pytest.raises(TranscriptError, match="stale"):
        load_analysis(game)
    again, _ = analyse_file(game, (1, 2), FAST, jobs=1)  # re-analysed, not reused
    assert not again.reused and load(game) is not None


def test_no_sidecar_is_none_and_a_broken_one_is_named(game: Path) -> None:
    assert load(game) is None
    sidecar_path(game).write_text('{"type": "analysis"}')
    with pytest.raises(TranscriptError, match="is not an analysis sidecar: analysis schema"):
        load(game)
    sidecar_path(game).write_text("{not json")
    with pytest.raises(TranscriptError, match="is not JSON"):
        load(game)
