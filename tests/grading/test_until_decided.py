"""`duel grade --until-decided` end to end, with a fake LLM (the real OpenAI SDK against a
loopback server): the run stops when the test decides, or at --deals, and report.md says where
and why; a resumed run keeps the design."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply

from duel.agents import make_agent
from duel.cli import main
from duel.engine import InfoSet

LISTED = "Your legal moves are:"  # only the legal-moves variant's turn message has it


def strong_or_weak(body: dict[str, Any]) -> Scripted:
    """A fake model that plays the rule agent's move under the legal-moves variant and, under
    every other, discards whenever it can (a player that builds nothing loses nearly always)."""
    text = body["messages"][1]["content"]
    view, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    legal = InfoSet.from_view(view).sample(random.Random(0)).legal_moves()
    if LISTED in text:
        move = make_agent("rule").choose(view, legal, random.Random(0)).move
    else:
        move = next((m for m in legal if m.to_json()["move"] == "DISCARD"), legal[0])
    return openai_reply(json.dumps(move.to_json()))


def games(out: Path) -> list[Path]:
    return sorted(out.glob("games/*/*.jsonl"))


@pytest.mark.slow
def test_a_clearly_better_variant_stops_the_run_at_the_first_look(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    with FakeLLMServer(responder=strong_or_weak) as srv:
        args = ["grade", "--variants", "legal-moves", "--model",
                f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                "--deals", "20", "--look-every", "10", "--until-decided", "--out", str(out),
                "--jobs", "2", "--no-progress"]
        assert main(args) == 0
        md = capsys.readouterr().out
        played = games(out)
        # the first look needs 10 deals of the variant and the baseline, both seats; the null
        # variant plays alongside but does not hold the run; at most the two games in flight
        # when the look decided are more; never the 120 games of 20 deals
        for variant in ("baseline", "legal-moves"):
            assert all((out / "games" / variant / f"deal{d}-seat{s}.jsonl").exists()
                       for d in range(10) for s in (1, 2))
        assert len(played) <= 62, md
        assert "## Stopping rule (--until-decided)" in md
        assert "The run stopped at look 1 (10 deals)" in md
        row = next(line for line in md.splitlines() if line.startswith("| legal-moves | diff"))
        assert "different (better) | look 1, 10 deals |" in row and "| 2.963 |" in row
        assert (out / "report.md").read_text() in md
        # resumed: decided already, nothing is played
        calls = len(srv.requests)
        assert main(args) == 0
        assert len(srv.requests) == calls and len(games(out)) == len(played)


def test_the_run_goes_to_the_maximum_without_a_difference_and_keeps_its_design(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    with FakeLLMServer(responder=strong_or_weak) as srv:
        args = ["grade", "--variants", "baseline", "--model",
                f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                "--deals", "2", "--look-every", "2", "--until-decided", "--out", str(out),
                "--jobs", "2", "--no-progress"]
        assert main(args) == 0
        md = capsys.readouterr().out
        assert len(games(out)) == 8  # baseline and null, 2 deals, 2 seats
        # the null variant plays as the baseline does: z = 0 at the one look, the maximum
        assert "| null | no difference shown | look 1, 2 deals | +0.000 | 1.960 |" in md
        assert "The run stopped at look 1 (2 deals)" in md
        assert "1 looks (after 2 deals)" in md and "alpha 0.05 over 1 variant(s)" in md
        design = json.loads((out / "sequential.json").read_text())
        assert design == {"max_deals": 2, "look_every": 2, "alpha": 0.05, "comparisons": 1,
                          "seed": 0, "variants": ["baseline", "null"]}
        # another design on the same folder would spend alpha twice: refused before any game
        calls = len(srv.requests)
        assert main([*args[:8], "3", *args[9:]]) == 2
        err = capsys.readouterr().err
        assert "sequential.json records another --until-decided design" in err
        assert len(srv.requests) == calls
        assert main([*args[:11], *args[12:]]) == 2  # --look-every without --until-decided
        assert "--look-every applies only with --until-decided" in capsys.readouterr().err
