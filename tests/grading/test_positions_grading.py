"""`duel grade --positions`: prompt variants answer a suite's positions through the LLM player
(the real OpenAI SDK against a loopback fake), scored by the suite's losses, compared pairwise
with the baseline; resumable from the folder, and stopped by --budget-usd."""

from __future__ import annotations

import csv
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply
from helpers.suites import make_suite

from duel.cli import main
from duel.grading.positions.grade import answer_path, read_answer
from duel.grading.positions.suite import Position, Suite
from duel.prompts import get_variant
from duel.records import view_hash

PRICES = {"fake": {"input": 1.0, "output": 1.0}}  # $0.00122 a call of the fake


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Suite]:
    return make_suite(tmp_path_factory.mktemp("suite"), per_kind=6)


def view_of(body: dict[str, Any]) -> dict[str, Any]:
    text = body["messages"][1]["content"]
    obj, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    return obj


def worst(pos: Position) -> Any:
    return min(pos.values, key=lambda v: v.value).move


def best_or_worst(s: Suite) -> Callable[[dict[str, Any]], Scripted]:
    """A fake model: errata answers the analyser's best move, every other variant its worst."""
    by_id = s.by_id()

    def reply(body: dict[str, Any]) -> Scripted:
        pos = by_id[view_hash(view_of(body))]
        errata = body["messages"][0]["content"] == get_variant("errata").system
        move = pos.best.move if errata else worst(pos)
        return openai_reply(json.dumps(move.to_json()))
    return reply


def grade(srv: FakeLLMServer, suite_path: Path, out: Path, *extra: str) -> list[str]:
    return ["grade", "--positions", str(suite_path), "--variants", "errata", "--model",
            f"llm:compat:fake@{srv.url}/v1,mode=text", "--out", str(out), "--jobs", "2",
            "--no-progress", *extra]


def rows(out: Path) -> dict[str, dict[str, str]]:
    return {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}


def test_the_best_answering_variant_beats_the_worst_answering_baseline(
        suite: tuple[Path, Suite], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, s = suite
    n = len(s.positions)
    assert n >= 8
    out = tmp_path / "grade"
    with FakeLLMServer(responder=best_or_worst(s)) as srv:
        assert main(grade(srv, path, out)) == 0
        md = capsys.readouterr().out
        assert len(srv.requests) == 3 * n  # baseline, errata and null, each once per position
    r = rows(out)
    assert set(r) == {"baseline", "errata", "null"}
    expected = sum(p.best.value - min(v.value for v in p.values) for p in s.positions) / n
    assert expected >= 0.05  # every position's best move is worth at least the gap more
    assert float(r["baseline"]["mean_loss"]) == pytest.approx(expected, abs=1e-3)
    assert float(r["errata"]["mean_loss"]) == 0.0 and float(r["errata"]["best_rate"]) == 1.0
    e = r["errata"]
    assert int(e["paired_positions"]) == n
    assert float(e["diff_vs_baseline"]) == pytest.approx(-expected, abs=1e-3)
    assert float(e["diff_ci_high"]) < 0 and float(e["p_value"]) < 0.01
    # the null variant is the baseline's prompt: the same answers, no difference
    assert float(r["null"]["diff_vs_baseline"]) == 0.0 and float(r["null"]["p_value"]) == 1.0
    for v in r.values():
        assert float(v["first_try_legal"]) == 1.0 and float(v["legal_after_retries"]) == 1.0
        assert float(v["first_try_ci_low"]) < 1.0 == float(v["first_try_ci_high"])
        assert int(v["fallbacks"]) == 0 and int(v["positions"]) == n
    assert f"Position suite {path}: {n} positions" in md and "| errata | " in md
    for png in ("mean_loss.png", "vs_baseline.png", "legality.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"
    # each answer is a file: the move, the calls, the model and the prompt's hash
    answer = read_answer(answer_path(out, "errata", s.positions[0].id))
    assert answer is not None and answer.move == s.positions[0].best.move
    assert answer.prompt_hash == get_variant("errata").hash
    assert answer.details["llm"]["legal_at_attempt"] == 1


def test_a_null_variant_answering_at_random_like_the_baseline_is_not_significant(
        suite: tuple[Path, Suite], tmp_path: Path) -> None:
    path, s = suite
    rng = random.Random(0)  # one job: the requests come in a fixed order

    def anything(body: dict[str, Any]) -> Scripted:
        pos = s.by_id()[view_hash(view_of(body))]
        return openai_reply(json.dumps(rng.choice(pos.legal).to_json()))

    out = tmp_path / "grade"
    with FakeLLMServer(responder=anything) as srv:
        args = grade(srv, path, out, "--variants", "baseline")
        args[args.index("--jobs") + 1] = "1"
        assert main(args) == 0
    r = rows(out)
    assert set(r) == {"baseline", "null"}
    null = r["null"]
    assert float(null["diff_vs_baseline"]) != 0.0  # the answers differ...
    assert float(null["p_value"]) > 0.05  # ...but not significantly
    assert float(null["diff_ci_low"]) < 0 < float(null["diff_ci_high"])


def test_a_run_resumes_without_asking_again_and_refuses_another_run_s_answers(
        suite: tuple[Path, Suite], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, s = suite
    out = tmp_path / "grade"
    with FakeLLMServer(responder=best_or_worst(s)) as srv:
        args = grade(srv, path, out)
        assert main(args) == 0
        asked = len(srv.requests)
        report = json.dumps(rows(out))
        assert main(args) == 0
        assert len(srv.requests) == asked  # nothing asked again
        assert json.dumps(rows(out)) == report
        # a lost answer and a half-written one are asked again, and only they
        answer_path(out, "null", s.positions[2].id).unlink()
        answer_path(out, "errata", s.positions[3].id).write_text('{"type": "ans')
        assert main(args) == 0
        assert len(srv.requests) == asked + 2
        again = rows(out)
        timed = {"latency_per_call_s": "", "seconds_per_answer": ""}
        for variant, row in json.loads(report).items():  # the same but for the times
            assert {**again[variant], **timed} == {**row, **timed}
        capsys.readouterr()
        # another model's answers in the folder: refused, not mixed
        other = [a.replace("mode=text", "mode=text,temperature=0.5") for a in args]
        assert main(other) == 2
        assert "grade into another --out" in capsys.readouterr().err
        # another suite in the same folder: refused
        trimmed = json.loads(path.read_text())
        trimmed["positions"] = trimmed["positions"][:3]
        smaller = tmp_path / "smaller.json"
        smaller.write_text(json.dumps(trimmed))
        assert main(grade(srv, smaller, out)) == 2
        assert "grades another suite" in capsys.readouterr().err


def test_a_fallback_is_scored_like_any_answer_and_counted(suite: tuple[Path, Suite],
                                                          tmp_path: Path) -> None:
    path, s = suite
    out = tmp_path / "grade"

    def reply(body: dict[str, Any]) -> Scripted:
        if body["messages"][0]["content"] == get_variant("errata").system:
            return openai_reply("I would rather not say")  # never a move: the fallback plays
        return openai_reply(json.dumps(s.by_id()[view_hash(view_of(body))].best.move.to_json()))

    with FakeLLMServer(responder=reply) as srv:
        assert main(grade(srv, path, out)) == 0
    e = rows(out)["errata"]
    n = len(s.positions)
    assert int(e["fallbacks"]) == n and float(e["legal_after_retries"]) == 0.0
    assert float(e["mean_attempts"]) == 3.0
    # whose answers they were: none of the errata's, said under the table (issue 39)
    assert int(e["own_answers"]) == 0 and int(rows(out)["baseline"]["own_answers"]) == n
    report = (out / "report.md").read_text()
    assert f"**errata: {n} of {n} answers were fallbacks (unparsable {n}).**" in report
    losses = []
    for pos in s.positions:
        answer = read_answer(answer_path(out, "errata", pos.id))
        assert answer is not None and answer.fallback and answer.move in pos.legal
        losses.append(pos.loss(answer.move))
    assert float(e["mean_loss"]) == pytest.approx(sum(losses) / n, abs=1e-4)
    # a resignation (the forfeit fallback) is worth nothing: it loses the best move's value
    p = s.positions[0]
    assert p.loss(p.best.move, forfeit=True) == p.best.value


def test_the_budget_stops_asking_and_a_larger_one_resumes(
        suite: tuple[Path, Suite], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    monkeypatch.setenv("DUEL_PRICES", str(prices))
    path, s = suite
    total = 3 * len(s.positions)
    out = tmp_path / "grade"
    with FakeLLMServer(responder=best_or_worst(s)) as srv:
        args = grade(srv, path, out, "--jobs", "1", "--budget-usd")
        assert main([*args, "0.01"]) == 0
        first = capsys.readouterr().out
        answered = len(list(out.glob("answers/*/*.json")))
        assert 0 < answered < total and len(srv.requests) == answered
        assert "Stopped for the budget" in first and f"{answered} of {total} answers done" in first
        spent = float(re.search(r"spent \$(\d+\.\d+) of the \$0\.01", first).group(1))  # type: ignore[union-attr]
        assert spent == pytest.approx(0.00122 * answered, abs=1e-4) and spent <= 0.01
        # asked in the suite's order, every variant at each position
        order = [(v, p.id) for p in s.positions for v in ("baseline", "errata", "null")]
        assert {t for t in order if answer_path(out, *t).exists()} == set(order[:answered])
        assert main([*args, "10"]) == 0
        second = capsys.readouterr().out
    assert len(list(out.glob("answers/*/*.json"))) == total == len(srv.requests)
    assert f"by {answered} answers of earlier runs in {out}" in second
    assert f"{total} of {total} answers done" in second


def test_a_tampered_suite_is_refused_before_any_question(suite: tuple[Path, Suite],
                                                         tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    path, s = suite
    obj = json.loads(path.read_text())
    obj["positions"][1]["legal"].reverse()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(obj))
    with FakeLLMServer(responder=best_or_worst(s)) as srv:
        assert main(grade(srv, bad, tmp_path / "out")) == 2
        assert srv.requests == []
    err = capsys.readouterr().err
    assert f"position {s.positions[1].id}" in err and "order differs" in err
    assert main(["grade", "--positions", str(path), "--model", "llm:compat:x@http://x/v1",
                 "--deals", "3"]) == 2
    assert "--deals grade games, not --positions" in capsys.readouterr().err
