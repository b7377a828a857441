"""--budget-usd on grading and tournaments: a fake priced LLM (the real OpenAI SDK against a
loopback server) stops being started at the budget, the run says so, and a later run with a
larger budget resumes without replaying or double counting; an unpriced model is refused."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply

from duel.cli import main
from duel.engine import InfoSet
from duel.errors import UsageError
from duel.grading.plan import game_path
from duel.runs.budget import Budget, GameCost
from duel.runs.schedule import Gate
from duel.transcripts import read

# Every call of the fake reports 1,200 input and 20 output tokens: $0.00122 at $1 per million.
PRICES = {"fake": {"input": 1.0, "output": 1.0}}


def first_legal(body: dict[str, Any]) -> Scripted:
    text = body["messages"][1]["content"]
    view, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    legal = InfoSet.from_view(view).sample(random.Random(0)).legal_moves()
    return openai_reply(json.dumps(legal[0].to_json()))


@pytest.fixture
def priced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    monkeypatch.setenv("DUEL_PRICES", str(prices))


def game_cost(path: Path) -> tuple[float, int]:
    """The money and the number of LLM calls a transcript records."""
    t = read(path)
    usd = GameCost.of_moves(m["details"] for m in t.moves).usd
    assert usd is not None and t.footer is not None
    return usd, sum(tot["calls"] for tot in t.footer["totals"].values() if tot)


def admitted(costs: list[float], groups: list[str], limit: float) -> int:
    """How many of the games, in this order, one job at a time, the budget rule starts: each
    starts while the money spent plus its expected cost (its group's mean so far, or the
    costliest group's mean, or unknown before any) stays within the limit."""
    spent: dict[str, list[float]] = {}
    for i, (cost, group) in enumerate(zip(costs, groups, strict=False)):
        means = {g: sum(c) / len(c) for g, c in spent.items()}
        expected = means.get(group, max(means.values(), default=None))
        total = sum(costs[:i])
        if (total >= limit) if expected is None else (total + expected > limit):
            return i
        spent.setdefault(group, []).append(cost)
    return len(groups)


def line_cost(line: str) -> float | None:
    """The money of a tournament line: its LLM seat's recorded totals (random is the other)."""
    totals = [t for t in json.loads(line)["totals"].values() if t]
    assert len(totals) == 1
    return totals[0]["cost_usd"]


def spent_figure(out: str) -> float:
    found = re.search(r"spent \$(\d+\.\d+) of the \$", out)
    assert found, out
    return float(found.group(1))


def test_grading_stops_at_the_budget_and_resumes_with_a_larger_one(
        tmp_path: Path, priced: None, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grade"
    # the order of the games with one job: deal by deal, baseline then null, seat 1 then 2
    order = [(v, d, s) for d in (0, 1) for v in ("baseline", "null") for s in (1, 2)]
    with FakeLLMServer(responder=first_legal) as srv:
        args = ["grade", "--variants", "baseline", "--model",
                f"llm:compat:fake@{srv.url}/v1,mode=text", "--opponent", "random",
                "--deals", "2", "--out", str(out), "--jobs", "1", "--no-progress",
                "--budget-usd"]
        assert main([*args, "0.1"]) == 0
        first = capsys.readouterr().out
        played = [t for t in order if game_path(out, *t).exists()]
        costs = [game_cost(game_path(out, *t))[0] for t in played]
        assert 0 < len(played) < len(order) and played == order[:len(played)]
        assert admitted(costs + [1.0] * 8, [v for v, _, _ in order], 0.1) == len(played)
        assert "Stopped for the budget" in first and f"{len(played)} of 8 games done" in first
        assert spent_figure(first) == pytest.approx(sum(costs), abs=1e-4) and sum(costs) <= 0.1
        assert "run again with the same --out and a larger --budget-usd" in first.lower()
        calls_before = len(srv.requests)

        # a larger budget resumes: the games played are kept and their money counts, once
        assert main([*args, "0.25"]) == 0
        second = capsys.readouterr().out
        now = [t for t in order if game_path(out, *t).exists()]
        assert now[:len(played)] == played and len(now) > len(played)
        new = [game_cost(game_path(out, *t)) for t in now[len(played):]]
        assert len(srv.requests) - calls_before == sum(calls for _, calls in new)  # no replay
        all_costs = costs + [usd for usd, _ in new]
        assert admitted(all_costs + [1.0] * 8, [v for v, _, _ in order], 0.25) == len(now)
        assert f"${sum(costs):.4f} by {len(played)} games of earlier runs in {out}" in second
        assert spent_figure(second) == pytest.approx(sum(all_costs), abs=1e-4)

        # enough money: every game, and a run that ends by itself says what it spent
        assert main([*args, "10"]) == 0
        third = capsys.readouterr().out
    assert all(game_path(out, *t).exists() for t in order)
    assert "Stopped for the budget" not in third and "8 of 8 games done" in third
    assert "Budget: spent $" in (out / "report.md").read_text()


def test_a_budget_over_an_unpriced_model_is_refused_before_any_call(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLMServer(responder=first_legal) as srv:
        model = f"llm:compat:fake@{srv.url}/v1,mode=text"
        assert main(["grade", "--variants", "baseline", "--model", model, "--opponent", "random",
                     "--deals", "1", "--out", str(tmp_path / "g"), "--no-progress",
                     "--budget-usd", "1"]) == 2
        err = capsys.readouterr().err
        assert "model fake has no price" in err and "DUEL_PRICES" in err
        assert main(["tournament", "--p1", "random", "--p2", model, "--games", "2",
                     "--no-progress", "--budget-usd", "1"]) == 2
        assert "model fake has no price" in capsys.readouterr().err
        assert srv.requests == []
        # without a budget an unpriced model plays, its cost shown as unknown
        assert main(["tournament", "--p1", "random", "--p2", model, "--games", "1",
                     "--no-progress"]) == 0
        assert len(srv.requests) > 0


def test_earlier_games_of_unknown_cost_refuse_a_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    with FakeLLMServer(responder=first_legal) as srv:
        args = ["tournament", "--p1", f"llm:compat:fake@{srv.url}/v1,mode=text", "--p2",
                "random", "--games", "2", "--out", str(out), "--no-progress"]
        assert main(args) == 0  # unpriced: played, with an unknown cost
        assert all(line_cost(line) is None
                   for line in (out / "games.jsonl").read_text().splitlines())
        prices = tmp_path / "prices.json"
        prices.write_text(json.dumps(PRICES))
        monkeypatch.setenv("DUEL_PRICES", str(prices))
        before = len(srv.requests)
        capsys.readouterr()
        assert main([*args[:6], "4", *args[7:], "--budget-usd", "5"]) == 2
        err = capsys.readouterr().err
        assert "has no price (games of earlier runs in" in err and "fake" in err
        assert len(srv.requests) == before


def test_tournament_stops_at_the_budget_and_resumes(
        tmp_path: Path, priced: None, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    with FakeLLMServer(responder=first_legal) as srv:
        args = ["tournament", "--p1", f"llm:compat:fake@{srv.url}/v1,mode=text", "--p2",
                "random", "--games", "6", "--seed", "3", "--out", str(out), "--no-progress",
                "--budget-usd"]
        assert main([*args, "0.1"]) == 0
        first = capsys.readouterr().out
        lines = (out / "games.jsonl").read_text().splitlines()
        costs = [line_cost(line) for line in lines]
        assert 0 < len(lines) < 6 and all(c is not None and c > 0 for c in costs)
        assert admitted([c or 0.0 for c in costs] + [1.0] * 6, ["pairing"] * 6, 0.1) \
            == len(lines)
        assert "Stopped for the budget" in first and f"{len(lines)} of 6 games done" in first
        assert f": {len(lines)} games (seat-swapped pairs)" in first
        assert main([*args, "5"]) == 0
        second = capsys.readouterr().out
    again = (out / "games.jsonl").read_text().splitlines()
    assert again[:len(lines)] == lines and len(again) == 6
    assert ": 6 games (seat-swapped pairs)" in second
    assert f"${sum(c or 0.0 for c in costs):.4f} by {len(lines)} games of earlier runs in " \
        f"{out}" in second
    total = sum(line_cost(line) or 0.0 for line in again)
    assert spent_figure(second) == pytest.approx(total, abs=1e-4)


def test_the_budget_rule() -> None:
    b = Budget(1.0, "out")
    assert b.gate("a") is Gate.START  # nothing known: one game per group
    b.started("a")
    assert b.gate("a") is Gate.LATER and b.gate("b") is Gate.START
    b.started("b")
    b.finished("a", GameCost(0.4))
    # b's first game is expected to cost what a's cost: 0.4 spent + 0.4 in flight + 0.4 next
    assert b.expected("b") == 0.4
    assert b.gate("b") is Gate.LATER  # b's own first game still runs
    assert b.gate("a") is Gate.HOLD  # 1.2 > 1: wait for b's game, it may cost less
    b.finished("b", GameCost(0.1))
    assert b.expected("b") == 0.1
    assert b.gate("b") is Gate.START and b.gate("a") is Gate.START  # 0.5 + 0.4 <= 1
    b.started("a")
    assert b.gate("a") is Gate.HOLD  # 0.5 + 0.4 in flight + 0.4
    b.finished("a", GameCost(0.45))
    assert b.gate("a") is Gate.STOP and b.stopped  # 0.95 + 0.425 > 1, nothing in flight
    summary = b.summary(3, 10)
    assert summary is not None and "Stopped for the budget: spent $0.9500 of the $1.00" in summary
    assert "3 of 10 games done" in summary and "$0.4250" in summary
    with pytest.raises(UsageError, match="model m1 has no price"):
        b.finished("a", GameCost(None, ("m1",)))
    free = Budget(None)
    free.finished("a", GameCost(None, ("m1",)))  # without a budget: counted as unknown
    assert free.money() == "$0.0000+? spent" and free.summary(1, 1) is None
    assert Budget(0.0).gate("a") is Gate.STOP
    with pytest.raises(UsageError, match="--budget-usd"):
        Budget(-1.0)
