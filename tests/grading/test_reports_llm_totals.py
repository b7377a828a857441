"""LLM totals beyond one game: a tournament's games.jsonl lines and report, and the grading
report, count reasoning tokens and name the reasoning setting each result was played with."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_agent import registered

from duel.accounting.totals import checked_totals, combine
from duel.errors import InvalidStateError
from duel.grading.report import GameOutcome, markdown, summarise, to_csv
from duel.records import GameSummary, read_games
from duel.runs.tournament import Standings, run


def seat_totals(moves: int, reasoning_tokens: int | None, reasoning: str | None = None,
                cost: float | None = 0.01) -> dict[str, Any]:
    """One seat's totals of one game, as accounting.llm_totals gives them (an older line has
    no reasoning keys)."""
    t: dict[str, Any] = {
        "moves": moves, "calls": moves + 1, "input_tokens": 1000 * moves, "cached_tokens": 0,
        "output_tokens": 500 * moves, "cost_usd": cost, "latency_s": 2.0 * moves,
        "first_try_legal": 0.5, "legal_after_retries": 1.0, "mean_attempts": 1.5,
        "fallbacks": 0, "categories": {"OK": moves}}
    if reasoning_tokens is not None:
        t.update(reasoning_tokens=reasoning_tokens, reasoning=reasoning)
    return t


def test_combine_sums_the_games_and_names_every_setting() -> None:
    t = combine([seat_totals(10, 4000, "reasoning_effort=high"), None,
                 seat_totals(30, 6000, "reasoning_effort=high", cost=0.03),
                 seat_totals(20, None)])  # a game recorded before reasoning was
    assert (t["games"], t["moves"], t["calls"]) == (3, 60, 63)
    assert (t["input_tokens"], t["output_tokens"], t["reasoning_tokens"]) == \
        (60000, 30000, 10000)
    assert t["cost_usd"] == pytest.approx(0.05) and t["latency_s"] == 120.0
    assert t["first_try_legal"] == 0.5 and t["mean_attempts"] == 1.5
    assert t["reasoning"] == "default,reasoning_effort=high"
    assert combine([seat_totals(1, 0, "thinking=2048", cost=None)])["cost_usd"] is None
    assert combine([])["moves"] == 0 and combine([])["first_try_legal"] == 0.0


def test_a_tournament_line_keeps_each_llm_seat_s_totals_and_the_report_shows_them(
        tmp_path: Path) -> None:
    with registered() as built:
        s = run("fakellm", "random", 2, seed=3, out=str(tmp_path), progress=False)
    lines = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    played = [agent.decisions for agent in built if agent.decisions]  # one agent per game
    for line, seat, decisions in zip(lines, "12", played, strict=True):  # A is 1, then 2
        assert line["totals"][str(3 - int(seat))] is None  # random has none
        t = line["totals"][seat]
        assert (t["moves"], t["calls"], t["fallbacks"]) == (decisions, decisions, 0)
        assert t["output_tokens"] == 400 * decisions
    # resumed from the file, the totals are read back
    assert [g.totals for g in read_games(tmp_path / "games.jsonl")] == \
        [line["totals"] for line in lines]
    report = s.report()
    assert "  fakellm as an LLM (reasoning " in report and "random as an LLM" not in report
    moves = sum(line["totals"][seat]["moves"] for line, seat in zip(lines, "12", strict=True))
    assert f": {moves} moves, first-try legal 100%" in report


def test_the_tournament_report_sums_reasoning_tokens_and_names_the_setting() -> None:
    s = Standings("llm:openai:o4-mini,reasoning_effort=high", "rule")
    base = {"seed": 0, "scores": [50, 40], "moves": 60, "seconds": 1.0, "victory": "civilian"}
    s.add(GameSummary.from_json({
        **base, "player1": s.a, "player2": "rule", "winner": 1,
        "totals": {"1": seat_totals(30, 12000, "reasoning_effort=high"), "2": None}}))
    s.add(GameSummary.from_json({
        **base, "player1": "rule", "player2": s.a, "winner": 2,
        "totals": {"1": None, "2": seat_totals(31, 13000, "reasoning_effort=high")}}))
    report = s.report()
    assert ("  llm:openai:o4-mini,reasoning_effort=high as an LLM (reasoning "
            "reasoning_effort=high): 61 moves, first-try legal 50%, legal after retries 100%, "
            "0 fallbacks, tokens 61000 in (0 cached, 0.0%) / 30500 out (25000 reasoning), $0.0200, "
            "122.0 s in "
            "calls") in report
    assert "rule as an LLM" not in report


def test_a_line_with_malformed_totals_is_refused_and_skipped(tmp_path: Path) -> None:
    with pytest.raises(InvalidStateError, match=r"totals\.1\.moves must be a number"):
        checked_totals({"1": {**seat_totals(3, 0), "moves": "three"}, "2": None})
    with pytest.raises(InvalidStateError, match=r"totals\.2 must be an object or null"):
        checked_totals({"1": None, "2": 7})
    with pytest.raises(InvalidStateError, match="must map"):
        checked_totals({"3": None})
    line = {"seed": 0, "player1": "a", "player2": "b", "winner": 1, "victory": "civilian",
            "scores": [50, 40], "moves": 60, "seconds": 1.0}
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps({**line, "totals": {"1": "lots"}}) + "\n" + json.dumps(line)
                    + "\n")
    games = read_games(path)
    assert len(games) == 1 and games[0].totals is None
    assert "totals" not in games[0].to_json()  # games without an LLM keep the format


def _outcome(variant: str, seed: int, totals: dict[str, Any] | None) -> GameOutcome:
    return GameOutcome(variant, seed, 1, 1.0, 5, totals, "hash")


def test_the_grading_report_has_reasoning_tokens_and_the_setting_in_every_row() -> None:
    rows = [_outcome("baseline", 0, seat_totals(30, 9000, "thinking=2048")),
            _outcome("baseline", 1, seat_totals(32, 11000, "thinking=2048")),
            _outcome("errata", 0, seat_totals(30, 7000, "thinking=2048")),
            _outcome("null", 0, seat_totals(30, None))]  # an older game: no reasoning keys
    table = summarise(rows)
    by = {r["variant"]: r for r in table}
    assert by["baseline"]["reasoning_tokens"] == 20000
    assert by["baseline"]["reasoning"] == "thinking=2048"
    assert (by["null"]["reasoning"], by["null"]["reasoning_tokens"]) == ("default", 0)
    # the other columns are as before: weighted per move, summed, latency per call
    assert by["baseline"]["input_tokens"] == 62000 and by["baseline"]["fallbacks"] == 0
    assert by["baseline"]["latency_per_call_s"] == pytest.approx(124.0 / 64)
    assert by["baseline"]["cost_usd"] == pytest.approx(0.02)
    md = markdown(table)
    assert "| tokens in/out | reasoning (tokens) | cost |" in md
    assert "| 62000/31000 | thinking=2048 (20000) | $0.0200 |" in md
    assert "| 30000/15000 | default (0) |" in md
    header = md.splitlines()[0]
    assert md.splitlines()[1].count("---|") == header.count("|") - 1
    parsed = list(csv.DictReader(io.StringIO(to_csv(table))))
    assert {r["variant"]: (r["reasoning"], r["reasoning_tokens"]) for r in parsed} == {
        "baseline": ("thinking=2048", "20000"), "errata": ("thinking=2048", "7000"),
        "null": ("default", "0")}
