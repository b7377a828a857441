"""Decision positions as a dataset and a reward (issue 40, item 3): the export's rows are the LLM
seat's prompts with the analyser's values, loadable as JSON lines; the reward scores a
completion by the value of the move it names, with the seat's own reading of a reply, and
needs no search."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers.suites import make_suite

from duel.cli import main
from duel.envs.positions import REFUSED, export, position_reward, rows
from duel.envs.seat import Decider, framework_seat
from duel.errors import SpecError
from duel.grading.positions.suite import Suite


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Suite]:
    return make_suite(tmp_path_factory.mktemp("suite"), per_kind=4)


def test_the_export_is_the_seat_s_prompts_with_every_move_s_value(
        suite: tuple[Path, Suite], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, s = suite
    assert main(["positions", "export", str(path), "--out", str(tmp_path / "ds")]) == 0
    assert "positions in" in capsys.readouterr().out
    lines = [json.loads(x) for x in (tmp_path / "ds" / "positions.jsonl").read_text()
             .splitlines()]
    assert len(lines) == len(s.positions) > 3
    import random

    seat = framework_seat()
    for row, p in zip(lines, s.positions, strict=True):
        assert row["id"] == p.id and row["legal"] == [m.to_json() for m in p.legal]
        assert [v["value"] for v in row["values"]] == [v.value for v in p.values]
        assert row["best"] == p.best.move.to_json() and row["ply"] == p.source["ply"]
        # the prompt is the LLM seat's own for that view
        assert row["prompt"] == Decider(seat, p.view, list(p.legal), random.Random(0)) \
            .prompt.chat()
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "data_files: positions.jsonl" in card
    datasets = pytest.importorskip("datasets")
    loaded = datasets.load_dataset("json", data_files=str(tmp_path / "ds" / "positions.jsonl"))
    assert loaded["train"].num_rows == len(lines)


def test_the_reward_is_minus_the_named_move_s_loss_and_needs_no_search(
        suite: tuple[Path, Suite]) -> None:
    path, s = suite
    table = rows(path)
    best = [json.dumps(r["best"]) for r in table]
    worst = [json.dumps(min(r["values"], key=lambda v: v["value"])["move"]) for r in table]
    columns = {k: [r[k] for r in table] for k in ("legal", "values", "prompt_variant",
                                                  "harness")}
    start = time.perf_counter()
    assert position_reward(best, **columns) == [0.0] * len(table)
    per = (time.perf_counter() - start) / len(table)
    assert per < 0.05  # a look-up, not a search (measured ~0.1 ms)
    got = position_reward([[{"role": "assistant", "content": f"I pick {w}"}] for w in worst],
                          **columns)
    want = [-round(r["best_value"] - min(v["value"] for v in r["values"]), 4) for r in table]
    assert got == want and min(got) < 0
    assert position_reward(["no move here"] * len(table), **columns) == [-REFUSED] * len(table)
    malformed = json.dumps({"move": "DESTROY_CARD", "moveData": {"cardName": "NO_SUCH_CARD"}})
    assert position_reward([malformed] * len(table), **columns) == [-REFUSED] * len(table)
    playing = [i for i, r in enumerate(table) if r["step"] != "WONDER_SELECTION"]
    illegal = json.dumps({"move": "SELECT_WONDER", "moveData": {"wonder": "THE_PYRAMIDS"}})
    scored = position_reward([illegal] * len(table), **columns)
    assert playing and all(scored[i] == -REFUSED for i in playing)


def test_a_renamed_export_is_scored_in_its_names(suite: tuple[Path, Suite]) -> None:
    """names=renamed: the prompt holds invented names only, and a completion naming the best
    move in those names scores as the best move."""
    path, _ = suite
    table = rows(path, harness={"names": "renamed"})
    seat = framework_seat(harness={"names": "renamed"})
    assert seat.renaming is not None
    for r in table[:3]:
        answer = json.dumps(seat.renaming.json(r["best"]))
        assert position_reward([answer], legal=[r["legal"]], values=[r["values"]],
                               prompt_variant=[r["prompt_variant"]],
                               harness=[r["harness"]]) == [0.0]
    assert all(json.dumps(seat.renaming.json(t["best"])) != json.dumps(t["best"])
               for t in table if t["step"] == "WONDER_SELECTION")


def test_settings_that_need_the_game_are_refused(suite: tuple[Path, Suite]) -> None:
    with pytest.raises(SpecError, match="history= needs the game's moves"):
        export(suite[0], "/tmp/never", harness={"history": "all"})


def test_the_loss_is_from_the_analyser_s_best_not_the_highest_mean(
        suite: tuple[Path, Suite]) -> None:
    """Sequential halving lists its survivor first; a move dropped early on few iterations may
    show a higher mean. The analyser's loss counts from its best, and so does the reward: the
    best move scores 0, every other move its loss from the best (never above 0)."""
    path, _ = suite
    row = next(r for r in rows(path) if len(r["values"]) >= 3)
    values = [dict(v) for v in row["values"]]
    values[-1]["value"] = round(values[0]["value"] + 0.2, 4)  # a lucky early drop
    columns = {"legal": [row["legal"]], "values": [values]}
    assert position_reward([json.dumps(values[0]["move"])], **columns) == [0.0]
    assert position_reward([json.dumps(values[-1]["move"])], **columns) == [0.0]
    second = values[1]
    assert position_reward([json.dumps(second["move"])], **columns) == \
        [-round(max(0.0, values[0]["value"] - second["value"]), 4)]
