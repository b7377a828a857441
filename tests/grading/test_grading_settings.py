"""Harness settings graded like prompt variants: `duel grade --variants baseline,history=all,
think=text` plays each on the same deals from both seats, pairs it with the baseline and reports
it; a player is its spec, settings included, in ratings; position grading refuses the settings
that need a game's past."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers.fake_harness_model import HarnessModel
from helpers.fake_llm_server import FakeLLMServer

from duel.cli import main
from duel.errors import SpecError, UsageError
from duel.grading.variants import GradeVariant
from duel.runs.ratings import collect
from duel.transcripts import read, verified_result


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> FakeLLMServer:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(HarnessModel()) as srv:
        yield srv  # type: ignore[misc]


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_settings_are_graded_as_variants(server: FakeLLMServer, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    model = f"llm:compat:m@{server.url}/v1,mode=text"
    args = ["grade", "--variants", "baseline,history=all,think=text,compact+notes=on",
            "--model", model, "--opponent", "random", "--deals", "2", "--out", str(out),
            "--jobs", "1", "--no-progress"]
    assert main(args) == 0
    md = capsys.readouterr().out
    asked = len(server.requests)
    assert main(args) == 0  # resumable: nothing is played again
    assert len(server.requests) == asked
    rows = {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}
    assert set(rows) == {"baseline", "null", "history=all", "think=text", "compact+notes=on"}
    for name in ("history=all", "think=text", "compact+notes=on"):
        r = rows[name]
        assert int(r["games"]) == 4 and int(r["paired_deals"]) == 2
        assert float(r["first_try_legal"]) == 1.0 and int(r["fallbacks"]) == 0
        assert r["diff_ci_low"] != "" and r["p_value"] != ""
        assert f"| {name} |" in md
        for path in (out / "games" / name).glob("*.jsonl"):
            t = read(path)
            verified_result(t)
            seat = path.stem.split("seat")[1]
            player = t.header["players"][seat]
            assert player["prompt"]["harness"] == GradeVariant.parse(name).harness.label
            assert player["spec"] == GradeVariant.parse(name).spec(model)
            llm = [m["details"]["llm"] for m in t.moves if str(m["player"]) == seat]
            assert all(c["harness"] == player["prompt"]["harness"]
                       for m in llm for c in m["calls"])
    assert rows["compact+notes=on"]["hash"] != rows["baseline"]["hash"]
    assert rows["think=text"]["hash"] == rows["baseline"]["hash"]  # the same prompt text
    # ratings keep the settings apart: a player is its spec
    players = {p for g in collect([str(out / "games")]) for p in g[:2]}
    assert {GradeVariant.parse(n).spec(model) for n in rows} <= players | {
        GradeVariant.parse("null").spec(model)}
    assert len({p for p in players if p.startswith("llm:")}) == 5


@pytest.mark.parametrize("name, words", [
    ("history=sometimes", "history must be off, all or a number"),
    ("verbose=on", "unknown harness setting 'verbose'; valid settings: history, notes, think"),
    ("compact+errata", "names two prompt variants"),
    ("nonsense", "unknown prompt variant 'nonsense'"),
    ("think=text+think=off", "sets think twice"),
])
def test_a_bad_variant_names_what_is_valid(name: str, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        GradeVariant.parse(name)


def test_the_model_may_not_set_what_a_variant_sets() -> None:
    with pytest.raises(SpecError, match="--model sets think, which variant 'think=text' sets"):
        GradeVariant.parse("think=text").spec("llm:local,think=text")
    assert GradeVariant.parse("history=all").spec("llm:local,think=text") == \
        "llm:local,think=text,prompt=baseline,history=all"


def test_position_grading_refuses_notes_which_need_the_seat_s_own_turns(tmp_path: Path) -> None:
    from duel.grading.positions.grade import run

    # (history is told from the positions' games: tests/grading/test_positions_history.py)
    with pytest.raises(UsageError, match="notes need the seat's own earlier turns"):
        run(tmp_path / "missing.json", ["history=all+notes=on"], "llm:local", tmp_path / "out")
