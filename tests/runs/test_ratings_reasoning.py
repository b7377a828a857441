"""`duel ratings` and `duel ladder` name the reasoning setting each LLM player's games were
played with (the label its results recorded), and a dash for players that are not LLMs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.fake_llm_agent import registered

from duel.cli import main
from duel.runs.ratings import found_games, reasoning_settings, table
from duel.runs.tournament import run


def test_the_ratings_table_names_each_llm_player_s_reasoning_setting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with registered():
        run("fakellm", "mcts:iterations=5", 2, out=str(tmp_path / "t"), progress=False)
    capsys.readouterr()
    assert main(["ratings", str(tmp_path), "--resamples", "10"]) == 0
    printed = capsys.readouterr().out
    header = next(line for line in printed.splitlines() if line.startswith("| player"))
    assert "| reasoning |" in header
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip()
            for line in printed.splitlines() if line.startswith("| ") and "player" not in line}
    assert rows == {"fakellm": "reasoning_effort=high", "mcts:iterations=5": "—"}


def test_players_with_several_settings_name_them_all_and_no_llm_no_column(
        tmp_path: Path) -> None:
    with registered():
        run("fakellm", "random", 2, out=str(tmp_path / "a"), progress=False)
    # The same spec recorded with another setting (a game of an older duel reads "default").
    lines = (tmp_path / "a" / "games.jsonl").read_text().replace(
        '"reasoning": "reasoning_effort=high"', '"reasoning": "default"', 1)
    (tmp_path / "a" / "games.jsonl").write_text(lines)
    found = found_games([str(tmp_path)])
    assert reasoning_settings(found) == {"fakellm": "default,reasoning_effort=high"}
    rows = [{"player": "random", "rating": 0.0, "ci_low": 0.0, "ci_high": 0.0, "games": 2,
             "place": ""}]
    assert "reasoning" not in table(rows, {}) and "reasoning" not in table(rows)
