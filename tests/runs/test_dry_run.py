"""`duel tournament --dry-run` and `duel grade --dry-run`: the games, LLM calls and projected
cost of the run, with nothing played, nothing written and no model call that costs money (the
provider's free token counting only); the projection holds against the run it projects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.fake_caching_servers import AnthropicCache
from helpers.fake_llm_server import FakeLLMServer
from helpers.suites import make_suite

from duel.accounting.projection import DECISIONS_PER_SEAT
from duel.cli import main
from duel.grading.play import dry_run as grade_dry_run
from duel.grading.positions.grade import dry_run as positions_dry_run
from duel.records import read_games
from duel.runs.tournament import dry_run, run


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def paths(srv: FakeLLMServer) -> set[str]:
    return {r["path"] for r in srv.requests}


def test_a_tournament_s_projection_holds_against_the_run_it_projects(tmp_path: Path) -> None:
    """Against the Anthropic caching fake (deterministic: its moves and the random opponent's
    are seeded), 4 games: the projection within 25% of what the run spends and the spend inside
    the projected range; the dry run itself only counted tokens and wrote nothing."""
    out = tmp_path / "t"
    with FakeLLMServer(AnthropicCache()) as srv:
        spec = f"llm:anthropic:claude-sonnet-4-6,base_url={srv.url}"
        projected = dry_run(spec, "random", 4, seed=0, jobs=1, out=str(out))
        assert paths(srv) == {"/v1/messages/count_tokens"} and not out.exists()
        # counted as a call sends it: the rules text marked for caching, the move tool
        body = srv.requests[0]["body"]
        assert body["model"] == "claude-sonnet-4-6" and body["tools"][0]["name"] == "play_move"
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert "max_tokens" not in body
        run(spec, "random", 4, seed=0, jobs=1, out=str(out), progress=False)
        again = dry_run(spec, "random", 4, out=str(out))  # nothing left to play
    spent = sum(t["cost_usd"] for g in read_games(out / "games.jsonl")
                for t in (g.totals or {}).values() if t)
    total = projected.total
    assert total is not None and projected.games == 4
    assert total.low_usd <= spent <= total.high_usd
    assert abs(total.usd / spent - 1) < 0.25
    llm = projected.players[0]
    assert llm.counted_by.startswith("Anthropic's count_tokens")
    assert (llm.seat_games, llm.cold_calls) == (4, 1)
    # the cache as the fake keeps it: every call after the run's first reads the rules text
    assert llm.cached_share > 0.9
    assert again.games == 0 and again.total is not None and again.total.usd == 0.0
    assert "4 found done" in again.schedule


def test_the_cli_prints_players_calls_range_and_cached_share(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLMServer(AnthropicCache()) as srv:
        spec = f"llm:anthropic:claude-sonnet-4-6,base_url={srv.url}"
        assert main(["tournament", "--p1", spec, "--p2", spec, "--games", "2",
                     "--dry-run"]) == 0
        text = capsys.readouterr().out
        assert main(["tournament", "--p1", spec, "--p2", "rule", "--games", "2", "--dry-run",
                     "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
    assert "nothing played, no model called that costs money" in text
    # self-play: the one spec plays both seats of both games
    assert f"4 games, {DECISIONS_PER_SEAT} calls each (28 to 40" in text
    assert "% of the input assumed cached" in text and "total:  $" in text
    assert found["games"] == 2 and found["llm_calls"] == 2 * DECISIONS_PER_SEAT
    assert found["llm_calls_range"] == [56, 80]
    llm, rule = found["players"]
    assert llm["model"] == "claude-sonnet-4-6" and rule == {"spec": "rule", "games": 2,
                                                            "llm": False}
    assert llm["low_usd"] <= llm["cost_usd"] <= llm["high_usd"] == found["high_usd"]
    assert llm["reasoning"] == "thinking=off (provider default)"


def test_without_free_counting_it_estimates_and_says_so_and_an_unpriced_model_is_unknown(
        capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLMServer() as srv:  # no count_tokens here: a 404
        p = dry_run(f"llm:anthropic:claude-sonnet-4-6,base_url={srv.url}", "random", 2)
        assert paths(srv) == {"/v1/messages/count_tokens"}
        assert p.players[0].counted_by.startswith("local estimate (4 characters per token): "
                                                  "Anthropic's count_tokens failed")
        assert main(["tournament", "--p1", f"llm:compat:mystery@{srv.url}/v1", "--p2",
                     "random", "--games", "2", "--dry-run"]) == 0
        assert len(srv.requests) == 1  # the compatible server was never called
    text = capsys.readouterr().out
    assert "counted by local estimate (4 characters per token)" in text
    assert "cost:       unknown: mystery has no price; give its price per million tokens " \
           'with DUEL_PRICES=prices.json holding {"mystery": {"input": USD, "output": USD}}' in text
    assert "total:  unknown (a player's model has no price)" in text


def test_grading_counts_variants_deals_and_seats_and_says_the_sequential_maximum(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g"
    p = grade_dry_run(["errata"], "llm:openai:gpt-5-mini", "random", 3, str(out), seed=5,
                      until_decided=True)
    assert not out.exists()  # nothing written, not even the sequential design
    assert p.games == 3 * 3 * 2  # baseline, errata, null x 3 deals x 2 seats
    assert [(x.spec, x.seat_games) for x in p.players] == [
        ("llm:openai:gpt-5-mini,prompt=baseline", 6), ("llm:openai:gpt-5-mini,prompt=errata", 6),
        ("llm:openai:gpt-5-mini,prompt=null", 6), ("random", 18)]
    assert "seeds 5 to 7" in p.schedule
    assert any("--until-decided: these are the maximum (3 deals)" in n for n in p.notes)
    # baseline and null send the same rules text: one cache, written once per game at once
    assert [x.cold_calls for x in p.players[:3]] == [4, 4, 0]
    assert all("reasoning model" in " ".join(x.notes) for x in p.players[:3])
    assert main(["grade", "--model", "llm:openai:gpt-5-mini", "--deals", "2", "--variants",
                 "errata", "--dry-run", "--out", str(out)]) == 0
    assert "12 to play: 3 variants (baseline, errata, null) x 2 deals" in capsys.readouterr().out


def test_position_grading_counts_each_answer_once(tmp_path: Path) -> None:
    path, suite = make_suite(tmp_path / "suite", per_kind=2)
    p = positions_dry_run(path, ["errata"], "llm:openai:gpt-5-mini", tmp_path / "pg")
    n = len(suite.positions)
    assert p.games == 3 * n and p.unit == "answer" and p.calls() == (3 * n,) * 3
    assert not (tmp_path / "pg").exists()
    assert f"answers: {3 * n} to ask" in p.text() and f"{n} answers, one call each" in p.text()


def test_a_budget_says_where_the_run_would_stop(capsys: pytest.CaptureFixture[str]) -> None:
    p = dry_run("llm:openai:gpt-5-mini", "random", 8)
    assert p.total is not None
    each = p.total.usd / 8
    budget = 2.5 * each
    assert main(["tournament", "--p1", "llm:openai:gpt-5-mini", "--p2", "random", "--games",
                 "8", "--dry-run", "--budget-usd", str(budget)]) == 0
    assert f"--budget-usd {budget:.2f}: the run would stop after about 2 of the 8 games" \
        in capsys.readouterr().out
    assert main(["tournament", "--p1", "llm:openai:gpt-5-mini", "--p2", "random", "--games",
                 "8", "--dry-run", "--budget-usd", "1000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == [
        f"--budget-usd 1000.00: the projected ${p.total.usd:.4f} is within it"]


def test_claude_s_thinking_and_effort_are_counted_as_sent_and_its_reasoning_not_projected(
        ) -> None:
    with FakeLLMServer(AnthropicCache()) as srv:
        p = dry_run(f"llm:anthropic:claude-sonnet-5-5,base_url={srv.url},reasoning_effort=low",
                    "random", 2)
        body = srv.requests[0]["body"]
    assert body["output_config"] == {"effort": "low"} and body["thinking"]["type"] == "adaptive"
    llm = p.players[0]
    assert llm.reasoning == "reasoning_effort=low"
    assert any("this figure is a floor, its reasoning tokens are not in it" in n
               for n in llm.notes) and llm.floor and llm.ceiling_usd is not None


def test_a_setting_whose_cost_is_not_projected_says_so(tmp_path: Path) -> None:
    # think=text's reasoning in words is output the projection cannot know before a call
    path, _ = make_suite(tmp_path / "suite", per_kind=1)
    p = positions_dry_run(path, ["think=text", "history=all"], "llm:openai:gpt-4.1-mini",
                          tmp_path / "pg")
    notes = {x.spec: " ".join(x.notes) for x in p.players}
    think = next(s for s in notes if s.endswith("think=text"))
    assert "think=text: the reasoning in words" in notes[think]
    assert all("think=text" not in n for s, n in notes.items() if s != think)


@pytest.mark.parametrize("effort", ["low", "high"])
def test_a_probed_dry_run_counts_reasoning_and_the_run_spends_within_it(
        effort: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: against a reasoning model's fake, `--probe N` measures N paid decisions and
    the projection counts their reasoning: the run then spends within the projected range,
    its central figure within 25%; without the probe the figure says it is a floor."""
    import json as _json

    from helpers.fake_llm_server import FakeLLMServer
    from helpers.fake_reasoning_servers import EFFORT_SCALE, OpenAIReasoningModel

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    model = OpenAIReasoningModel(reasoning=2_000, effort_scale=EFFORT_SCALE, spread=0.5,
                                 max_output=128_000)
    with FakeLLMServer(model) as server:
        spec = f"llm:openai:gpt-5.4,base_url={server.url}/v1,api=chat,reasoning_effort={effort}"
        base = ["tournament", "--p1", spec, "--p2", "random", "--games", "2", "--no-progress"]
        assert main([*base, "--dry-run", "--json"]) == 0
        floor = _json.loads(capsys.readouterr().out)["players"][0]
        assert floor["reasoning_counted"] == "no (a floor)" and floor["ceiling_usd"] > 0
        assert main([*base, "--dry-run", "--json", "--probe", "6"]) == 0
        projected = _json.loads(capsys.readouterr().out)
        player = projected["players"][0]
        assert player["reasoning_counted"] == "probe" and player["probe"]["decisions"] == 6
        assert player["probe"]["reasoning_tokens"] > 0
        out = tmp_path / "t"
        assert main([*base, "--out", str(out)]) == 0
        capsys.readouterr()
    spent = sum(g["totals"][s]["cost_usd"]
                for g in map(_json.loads, (out / "games.jsonl").read_text().splitlines())
                for s in ("1", "2") if g.get("totals", {}).get(s))
    assert projected["low_usd"] <= spent <= projected["high_usd"], (projected, spent)
    assert abs(spent - projected["cost_usd"]) <= 0.25 * spent, (projected["cost_usd"], spent)
    # a longer run in the same folder is projected from what these games recorded (the same
    # spec: the same model and effort), nothing called
    assert main(["tournament", "--p1", spec, "--p2", "random", "--games", "4", "--out",
                 str(out), "--dry-run", "--json"]) == 0
    longer = _json.loads(capsys.readouterr().out)["players"][0]
    assert longer["reasoning_counted"] == "earlier games" and longer["games"] == 2
    assert longer["cost_usd"] == pytest.approx(spent, rel=0.25)
