"""`duel moves` and `duel apply` read states through the one loader: the rules prompt's example
and a Great Library choice written by the format's origin server (its drawn tokens repeated in
tokensUnavailable, and left in tokensFromUnavailable after the choice) list their moves and play
them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.reference_states import (
    after_great_library_choice,
    great_library_choice,
    prompt_example,
)

from duel.cli import main
from duel.engine import InfoSet, Move, seat_view


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    return json.loads(out)


def write(tmp_path: Path, name: str, obj: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return str(path)


def test_the_prompt_s_example_lists_and_plays(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    example = prompt_example()
    state_file = write(tmp_path, "example.json", example)
    expected = InfoSet.from_view(example).sample(random.Random(3))
    listed = run(capsys, "moves", state_file, "--seed", "3")
    assert listed == [{**m.to_json(), "price": p} for m, p in expected.priced_moves()]
    move = Move("CONSTRUCT_BUILDING", card_index=0)  # ARCHERY_RANGE, for player2
    after = run(capsys, "apply", state_file, write(tmp_path, "m.json", move.to_json()),
                "--seed", "3")
    assert after == seat_view(expected.apply(move))
    assert "ARCHERY_RANGE" in after["player2"]["sortedHand"]["MILITARY_BUILDING"]
    assert "AGRICULTURE" not in after["tokensUnavailable"]


def test_a_great_library_choice_lists_and_plays(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    true, reference = great_library_choice()
    state_file = write(tmp_path, "library.json", reference)
    listed = run(capsys, "moves", state_file)
    assert listed == [{**m.to_json(), "price": 0} for m in true.legal_moves()]
    assert {e["moveData"]["progressToken"] for e in listed} == \
        set(reference["tokensFromUnavailable"])
    for move in true.legal_moves():
        after = run(capsys, "apply", state_file, write(tmp_path, "m.json", move.to_json()))
        assert after == seat_view(true.apply(move))
        assert move.token in after["player1"]["tokens"]
        assert after["tokensFromUnavailable"] == [] and len(after["tokensUnavailable"]) == 4


def test_a_great_library_list_left_filled_after_its_choice_lists_and_plays(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    true, stale = after_great_library_choice(1)
    state_file = write(tmp_path, "stale.json", stale)
    listed = run(capsys, "moves", state_file, "--seed", "3")
    assert listed == [{**m.to_json(), "price": p} for m, p in true.priced_moves()]
    expected = InfoSet.from_view(stale).sample(random.Random(3))
    move = true.legal_moves()[0]
    after = run(capsys, "apply", state_file, write(tmp_path, "m.json", move.to_json()),
                "--seed", "3")
    assert after == seat_view(expected.apply(move))
    assert after["tokensFromUnavailable"] == [] and len(after["tokensUnavailable"]) == 4
