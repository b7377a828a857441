"""Position suites: extraction keeps only decisions over the gap and respects the caps, each
position is the seat's own view with the analyser's value of every legal move, the file
round-trips and validates against its schema, and a malformed or tampered suite is refused
naming the position."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers.suites import FAST, games

from duel.analysis import analyse_file, load_analysis
from duel.cli import main
from duel.engine import Move
from duel.errors import UsageError
from duel.grading.positions.extract import extract, select
from duel.grading.positions.suite import check, engine_legal, load, write
from duel.schemas import schema
from duel.transcripts import read


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two games, both analysed at FAST (their sidecars are then read by extraction)."""
    paths = games(tmp_path_factory.mktemp("suite"))
    for path in paths:
        analyse_file(path, (1, 2), FAST, jobs=1)
    return paths


def decisions_over(paths: list[Path], gap: float) -> dict[str, dict[str, Any]]:
    """The sidecars' decisions whose best move beats the second-best by `gap`, by view hash
    (the first met of a position seen twice)."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        analysis = load_analysis(path)
        assert analysis is not None
        for d in analysis.decisions:
            if round(d.moves[0].value - d.moves[1].value, 4) >= gap:
                out.setdefault(d.view_hash, {"age": d.age, "kind": d.kind, "ply": d.ply,
                                             "path": str(path)})
    return out


def test_extraction_keeps_the_decisions_over_the_gap_within_the_caps(played: list[Path]
                                                                     ) -> None:
    files = [str(p) for p in played]
    before = [p.with_suffix(".analysis.json").stat().st_mtime_ns for p in played]
    every = extract(files, min_gap=0.05, per_kind=1000)
    # fresh sidecars were read, not searched again (their budget is the positions' budget)
    assert [p.with_suffix(".analysis.json").stat().st_mtime_ns for p in played] == before
    assert {p.analysis["iterations"] for p in every.positions} == {FAST.iterations}
    expected = decisions_over(played, 0.05)
    assert {p.id for p in every.positions} == set(expected)
    assert all(p.gap >= 0.05 for p in every.positions)
    assert 0 < len(expected) < every.selection["decisions"]  # some decisions left out
    for p in every.positions:
        e = expected[p.id]
        assert (p.age, p.kind, p.source["ply"], p.source["transcript"]) == \
            (e["age"], e["kind"], e["ply"], e["path"])
    cells = Counter((e["age"], e["kind"]) for e in expected.values())
    assert max(cells.values()) > 2  # the cap below bites
    capped = extract(files, min_gap=0.05, per_kind=2, seed=4)
    kept = Counter((p.age, p.kind) for p in capped.positions)
    assert kept == Counter({cell: min(n, 2) for cell, n in cells.items()})
    assert {p.id for p in capped.positions} <= set(expected)
    assert capped.selection["over_gap"] == len(expected)
    # the draw within a group is seeded: the same seed, the same suite
    assert extract(files, min_gap=0.05, per_kind=2, seed=4).to_json() == capped.to_json()
    # a larger gap keeps a subset
    wide = {p.id for p in extract(files, min_gap=0.2, per_kind=1000).positions}
    assert wide == set(decisions_over(played, 0.2)) and wide < set(expected)


def test_a_position_is_the_seat_s_view_with_a_value_for_every_legal_move(played: list[Path]
                                                                         ) -> None:
    suite = extract([str(p) for p in played], min_gap=0.0, per_kind=1000)
    moves = {str(p): read(p).moves for p in played}
    for pos in suite.positions:
        record = moves[pos.source["transcript"]][pos.source["ply"] - 1]
        # the very view the transcript says that player decided from, in which it is player2
        assert pos.id == record["view_hash"] and pos.source["player"] == record["player"]
        assert pos.view["currentPlayerNumber"] == 2
        assert list(pos.legal) == engine_legal(pos.view)
        assert sorted(map(str, (v.move for v in pos.values))) == sorted(map(str, pos.legal))
        assert pos.loss(pos.best.move) == 0.0 and pos.best == pos.values[0]
        assert Move.from_json(record["move"]) in pos.legal  # only CHOOSE_STARTING_PLAYER
        # names a seat, and both of its moves are always legal
    # a position met twice is kept once
    assert len({p.id for p in suite.positions}) == len(suite.positions)


def test_the_suite_round_trips_and_validates_against_its_schema(played: list[Path],
                                                                tmp_path: Path) -> None:
    suite = extract([str(p) for p in played], per_kind=5)
    path = write(suite, tmp_path / "s.json")
    obj = json.loads(path.read_text())
    jsonschema.Draft202012Validator(schema("suite")).validate(obj)
    assert obj == suite.to_json()
    back = load(path)
    assert back.to_json() == obj and back == suite


def test_a_tampered_suite_is_refused_naming_the_position(played: list[Path],
                                                         tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    obj = extract([str(p) for p in played], min_gap=0.0, per_kind=1000).to_json()
    # a view whose player has no coins: a card it could buy is not legal any more
    def broke(view: dict[str, Any]) -> dict[str, Any]:
        poor = copy.deepcopy(view)
        poor["player2"]["money"] = 0
        return poor

    i = next(i for i, p in enumerate(obj["positions"])
             if engine_legal(broke(p["view"])) != engine_legal(p["view"]))
    pos = obj["positions"][i]
    bad = copy.deepcopy(obj)
    bad["positions"][i]["view"] = broke(pos["view"])
    with pytest.raises(UsageError, match=f"position {pos['id']} .*legal moves are not the "
                                         "engine's for its view"):
        check(bad, "suite.json")
    # the file on disk, through the command: exit 2 and the position named
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main(["positions", "check", str(path)]) == 2
    assert pos["id"] in capsys.readouterr().err
    # a legal move left out of the list (and its value) is refused too
    short = copy.deepcopy(obj)
    short["positions"][0]["legal"].pop()
    short["positions"][0]["values"] = [v for v in short["positions"][0]["values"]
                                       if v["move"] in short["positions"][0]["legal"]]
    short["positions"][0]["best"] = short["positions"][0]["values"][0]["move"]
    with pytest.raises(UsageError, match="missing: "):
        check(short, "suite.json")
    # a value dropped: the schema passes, the engine check does not
    unvalued = copy.deepcopy(obj)
    unvalued["positions"][1]["values"].pop()
    with pytest.raises(UsageError, match="value each legal move exactly once"):
        check(unvalued, "suite.json")


def test_a_malformed_suite_is_refused_with_a_clear_error(tmp_path: Path,
                                                         played: list[Path]) -> None:
    obj = extract([str(p) for p in played], per_kind=3).to_json()
    broken = copy.deepcopy(obj)
    del broken["positions"][1]["values"]
    with pytest.raises(UsageError, match=f"position {obj['positions'][1]['id']} \\(number 2\\)"
                                         ".*'values' is a required property"):
        check(broken, "s.json")
    twice = copy.deepcopy(obj)
    twice["positions"].append(twice["positions"][0])
    with pytest.raises(UsageError, match="appears twice"):
        check(twice, "s.json")
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(UsageError, match="is not JSON"):
        load(path)
    with pytest.raises(UsageError, match="is not a position suite"):
        check({"type": "analysis"}, "s.json")


def test_selection_draws_the_same_positions_whatever_the_input_order(played: list[Path]
                                                                     ) -> None:
    from duel.grading.positions.extract import candidates

    found = []
    for number, path in enumerate(played):
        analysis = load_analysis(path)
        assert analysis is not None
        found += candidates(path, number, analysis)
    one = [c.position.id for c in select(found, 0.05, 2, seed=1)]
    two = [c.position.id for c in select(list(reversed(found)), 0.05, 2, seed=1)]
    assert sorted(one) == sorted(two)


def test_extract_from_the_command_line_analyses_what_has_no_sidecar(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[
                                                                       str]) -> None:
    paths = games(tmp_path)
    out = tmp_path / "suite.json"
    assert main(["positions", "extract", str(tmp_path), "--out", str(out), "--iterations", "20",
                 "--per-kind", "3", "--jobs", "1"]) == 0
    text = capsys.readouterr().out
    suite = load(out)
    assert f"{len(suite.positions)} positions from 2 transcript(s)" in text
    assert all(p.with_suffix(".analysis.json").exists() for p in paths)
    assert {p.analysis["iterations"] for p in suite.positions} == {20}
    assert main(["positions", "extract", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    assert "no such transcript" in capsys.readouterr().err
    assert main(["positions", "extract", *map(str, paths), "--out", str(out),
                 "--min-gap", "2"]) == 2
    assert "--min-gap must be between 0 and 1" in capsys.readouterr().err


def test_a_stopped_extraction_resumes_with_the_sidecars_it_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The analyses go through the campaign runner: the first transcript's sidecar is written
    when it comes back, so after a failure on the second a rerun analyses only the second."""
    import duel.analysis.many as many

    paths = games(tmp_path)
    real = many.analyse_elsewhere
    asked: list[str] = []

    def failing(name: str, *args: Any) -> Any:
        asked.append(name)
        if name == paths[1].name:
            raise RuntimeError("worker lost")
        return real(name, *args)

    monkeypatch.setattr(many, "analyse_elsewhere", failing)
    with pytest.raises(RuntimeError, match="worker lost"):
        extract([str(p) for p in paths], settings=FAST, jobs=1)
    assert load_analysis(paths[0]) is not None and load_analysis(paths[1]) is None
    monkeypatch.setattr(many, "analyse_elsewhere", real)
    asked.clear()
    monkeypatch.setattr(many, "analyse_elsewhere", lambda name, *a: asked.append(name)
                        or real(name, *a))
    suite = extract([str(p) for p in paths], settings=FAST, jobs=1)
    assert asked == [paths[1].name]
    assert {p.source["transcript"] for p in suite.positions} == {str(p) for p in paths}
