"""Grading a setting of the LLM spec as a variant (`--variants baseline,tools=on`): the same
deals, the setting's games in their own folder, recorded with the spec that played them."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply
from helpers.fake_reasoning_servers import pick
from helpers.fake_tool_models import OpenAIToolModel
from helpers.suites import make_suite

from duel.cli import main
from duel.errors import SpecError
from duel.grading.plan import variant_spec
from duel.grading.variants import GradeVariant
from duel.transcripts import read


def either(body: dict[str, Any]) -> Scripted:
    """A compatible server's model: through the tool set when it is offered, else with the
    forced move tool."""
    names = [t["function"]["name"] for t in body.get("tools") or []]
    if "make_move" in names:
        return OpenAIToolModel("careful")(body)
    return openai_reply(tool_args=json.dumps(pick(body["messages"])), finish="tool_calls")


def test_a_setting_is_graded_against_the_baseline_on_the_same_deals(tmp_path: Path) -> None:
    out = tmp_path / "grade"
    with FakeLLMServer(responder=either) as srv:
        model = f"llm:compat:fake@{srv.url}/v1"
        assert main(["grade", "--variants", "baseline,tools=on", "--model", model,
                     "--opponent", "random", "--deals", "1", "--seed", "3", "--out", str(out),
                     "--jobs", "1", "--no-progress"]) == 0
    assert sorted(p.name for p in (out / "games").iterdir()) == ["baseline", "null", "tools=on"]
    rows = {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}
    assert set(rows) == {"baseline", "null", "tools=on"}
    assert int(rows["tools=on"]["paired_deals"]) == 1 and int(rows["tools=on"]["games"]) == 2
    # the careful model: get_state, legal_moves, simulate, explain, then make_move
    assert float(rows["tools=on"]["tool_calls_per_move"]) == 5.0
    assert float(rows["baseline"]["tool_calls_per_move"]) == 0.0
    tools = rows["tools=on"]
    assert int(tools["llm_moves"]) > 0 and float(tools["seconds_per_move"]) > 0
    assert "tool calls/move" in (out / "report.md").read_text()
    for path in (out / "games" / "tools=on").glob("*.jsonl"):
        t = read(path)
        seat = path.stem.split("seat")[1]
        player = t.header["players"][seat]
        assert player["spec"] == f"{model},prompt=baseline,tools=on"
        assert player["prompt"]["name"] == "baseline" and player["prompt"]["tools"]["steps"] == 8
        mine = [m for m in t.moves if str(m["player"]) == seat]
        assert all(c["tool_calls"] is not None for m in mine for c in m["details"]["llm"]["calls"])
        assert t.footer is not None and t.footer["totals"][seat]["calls"] == 3 * len(mine)


def test_a_setting_is_graded_on_a_position_suite_with_its_tool_calls(tmp_path: Path) -> None:
    path, suite = make_suite(tmp_path / "suite", per_kind=2)
    out = tmp_path / "grade"
    with FakeLLMServer(responder=either) as srv:
        assert main(["grade", "--positions", str(path), "--variants", "tools=on", "--model",
                     f"llm:compat:fake@{srv.url}/v1", "--out", str(out), "--jobs", "1",
                     "--no-progress"]) == 0
    rows = {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}
    assert int(rows["tools=on"]["paired_positions"]) == len(suite.positions)
    # the careful model: get_state, legal_moves, simulate, explain, then make_move
    assert float(rows["tools=on"]["tool_calls_per_answer"]) == 5.0
    assert float(rows["baseline"]["tool_calls_per_answer"]) == 0.0
    assert all(float(r["seconds_per_answer"]) > 0 for r in rows.values())
    assert "tool calls/answer" in (out / "report.md").read_text()


def test_a_variant_names_a_prompt_tool_options_or_both() -> None:
    parsed = GradeVariant.parse("local+tools=on+tool_steps=4")
    assert (parsed.prompt, parsed.tools) == ("local", (("tools", "on"), ("tool_steps", "4")))
    assert GradeVariant.parse("errata").tools == ()
    assert variant_spec("llm:local", "tools=on") == "llm:local,prompt=baseline,tools=on"
    assert variant_spec("llm:local", "tools=on+history=all") == \
        "llm:local,prompt=baseline,history=all,tools=on"
    for bad, why in (("errata+local", "two prompt variants"), ("baseline+", "an empty part"),
                     ("tools=on+tools=off", "sets tools twice")):
        with pytest.raises(SpecError, match=why):
            GradeVariant.parse(bad)
    with pytest.raises(SpecError, match="sets tools, which variant"):
        variant_spec("llm:local,tools=on", "tools=on")
