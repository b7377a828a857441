"""`duel/positions` under Inspect: the shipped suite answered and scored by the analyser's
values; parity with `duel grade --positions`: the same scripted model, asked the same seeded
positions both ways, is sent the same prompts and gives the same moves and the same scores."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("inspect_ai")

from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply  # noqa: E402
from helpers.inspect_runs import inspect_eval, legal_reply, text_of, view_of  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

from duel.cli import main  # noqa: E402
from duel.grading.positions.grade import answer_path, read_answer  # noqa: E402
from duel.grading.positions.suite import load  # noqa: E402
from duel.inspect.params import default_suite  # noqa: E402
from duel.prompts import get_variant  # noqa: E402
from duel.records import view_hash  # noqa: E402


def once_refused(body: dict[str, Any]) -> Scripted:
    """Every third position's first answer is refused (no move in it), then a legal one: the
    re-ask is part of what must agree."""
    first = sum(1 for m in body["messages"] if m["role"] == "user") == 1
    if first and int(view_hash(view_of(body)), 16) % 3 == 0:
        return openai_reply("I would rather not say.")
    return legal_reply(body)


def asked(srv: FakeLLMServer, system: str) -> dict[str, list[list[str]]]:
    """The conversations sent with `system`, by position: each request's messages' texts."""
    out: dict[str, list[list[str]]] = {}
    for r in srv.requests:
        msgs = r["body"]["messages"]
        if text_of(msgs[0]["content"]) == system:
            out.setdefault(view_hash(view_of(r["body"])), []).append(
                [text_of(m["content"]) for m in msgs])
    return out


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_positions_agree_with_duel_grade_positions(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    suite_path = default_suite()
    suite = load(suite_path)
    n = len(suite.positions)
    base = get_variant("baseline").system
    with FakeLLMServer(responder=once_refused) as srv:
        for service in ("FAKE", "OPENAI"):
            monkeypatch.setenv(f"{service}_API_KEY", "sk-test")
        monkeypatch.setenv("FAKE_BASE_URL", f"{srv.url}/v1")
        out = tmp_path / "grade"
        assert main(["grade", "--positions", str(suite_path), "--variants", "baseline",
                     "--model", f"llm:compat:fake@{srv.url}/v1,mode=text", "--out", str(out),
                     "--jobs", "1", "--no-progress"]) == 0
        by_grade = asked(srv, base)
        srv.requests.clear()
        log = read_eval_log(inspect_eval(tmp_path, "duel/positions", suite=suite_path))
        by_inspect = asked(srv, base)
    assert log.status == "success", log.error
    # The same prompts and re-asks, position by position (grading asks the null variant too:
    # the baseline under another name, so the same conversation twice).
    assert by_grade == {k: v * 2 for k, v in by_inspect.items()}
    assert log.samples is not None and len(log.samples) == n
    report = {r["variant"]: r for r in csv.DictReader((out / "report.csv").open())}["baseline"]
    losses: list[float] = []
    best: list[float] = []
    for s in log.samples:
        assert s.scores is not None
        score = s.scores["loss"]
        value = cast(dict[str, float], score.value)
        answer = read_answer(answer_path(out, "baseline", str(s.id)))
        assert answer is not None
        assert score.metadata is not None
        assert score.metadata["move"] == answer.move.to_json()  # the same move
        pos = suite.by_id()[str(s.id)]
        assert value["loss"] == pos.loss(answer.move, answer.forfeit)  # the same score
        losses.append(value["loss"])
        best.append(value["best"])
    assert sum(losses) / n == pytest.approx(float(report["mean_loss"]), abs=1e-3)
    assert sum(best) / n == pytest.approx(float(report["best_rate"]), abs=1e-3)
    assert any(len(v) == 2 for v in by_inspect.values())  # re-asks happened, alike
    assert log.results is not None
    metrics = json.dumps(log.results.model_dump()["scores"])
    assert "loss" in metrics and "stderr" in metrics
