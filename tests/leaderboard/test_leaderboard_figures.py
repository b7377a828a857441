"""The leaderboard's figures on hand-made games: settings and prompt texts make players, a cost is
known only where it was recorded, few games are provisional, groups that never met are named,
and reading folders refuses what is not one and counts a copied game once."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from duel.cli import main
from duel.errors import UsageError
from duel.leaderboard import build, load
from duel.leaderboard.figures import build as figures
from duel.leaderboard.figures import players_of
from duel.leaderboard.games import Game

LLM = "llm:openai:gpt-4o-mini"


def totals(cost: float | None, moves: int = 30) -> dict[str, Any]:
    return {"moves": moves, "calls": moves + 3, "input_tokens": 1000 * moves, "cached_tokens": 0,
            "output_tokens": 50 * moves, "reasoning_tokens": 10 * moves, "cost_usd": cost,
            "latency_s": 1.0, "first_try_legal": 0.9, "legal_after_retries": 1.0,
            "mean_attempts": 1.1, "fallbacks": 1, "categories": {}, "reasoning": "default"}


def game(i: int, p1: str, p2: str, winner: int | None, **extra: Any) -> Game:
    return Game(f"g{i:04d}", (p1, p2), winner, "civilian", (60, 50) if winner == 1 else (50, 60),
                70, i, **extra)


def test_prompt_texts_and_settings_make_players() -> None:
    games = [game(1, LLM, "rule", 1, prompts=("aaaaaaaa11", None)),
             game(2, "rule", LLM, 1, prompts=(None, "bbbbbbbb22")),
             game(3, f"{LLM},reasoning_effort=high", "rule", 2),
             game(4, "rule", LLM, 2)]  # no hash recorded
    seats = players_of(games)
    assert seats["g0001"] == (f"{LLM} [prompt aaaaaaaa]", "rule")
    assert seats["g0002"] == ("rule", f"{LLM} [prompt bbbbbbbb]")
    assert seats["g0003"] == (f"{LLM},reasoning_effort=high", "rule")
    assert seats["g0004"] == ("rule", f"{LLM} [prompt unknown]")
    # one hash seen: the games without one go with it
    assert players_of([game(1, LLM, "rule", 1, prompts=("c" * 16, None)),
                       game(2, LLM, "rule", 1)])["g0002"] == (LLM, "rule")


def test_cost_is_over_the_priced_games_and_few_games_are_provisional() -> None:
    games = [game(i, LLM, "random", 1 if i % 3 else 2,
                  totals=(totals(None if i == 0 else 0.01), None)) for i in range(12)]
    games.append(game(99, LLM, "random", 1))  # recorded without totals (an older duel)
    games.append(game(100, "rule", "random", 1))
    board = figures(games, resamples=200)
    llm, rule = board.player(LLM), board.player("rule")
    assert (llm["games"], llm["cost_games"]) == (13, 11)  # unknown: no price, no totals
    assert llm["cost_usd"] == pytest.approx(0.11)
    assert llm["cost_per_game_usd"] == pytest.approx(0.01)
    wins_priced = sum(1 for i in range(1, 12) if i % 3)
    assert llm["cost_per_game_won_usd"] == pytest.approx(0.11 / wins_priced)
    assert llm["tokens_per_move"] == {"input": 1000.0, "cached": 0.0, "output": 50.0,
                                      "reasoning": 10.0}
    assert llm["fallbacks"] == 12 and llm["llm_moves"] == 360
    assert not llm["provisional"] and rule["provisional"]  # 1 game
    assert rule["cost_per_game_usd"] == 0.0 and rule["first_try_legal"] is None
    low, high = rule["rank_interval"]
    assert high - low >= 1  # one game: never a certain rank


def test_groups_that_never_met_are_named() -> None:
    games = [game(i, "a", "b", 1 + i % 2) for i in range(6)] + \
        [game(10 + i, "c", "d", 1 + i % 2) for i in range(6)]
    notes = figures(games, resamples=100).notes
    assert notes == ["2 groups of players never met each other (a, b; c, d): ratings and ranks "
                     "between groups rest on the prior, not on games"]


def test_folders_that_are_not_there_or_hold_no_game(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is not a folder"):
        load([str(tmp_path / "nowhere")])
    with pytest.raises(UsageError, match="no finished games"):
        build([str(tmp_path)])
    assert main(["leaderboard", str(tmp_path), "--out", str(tmp_path / "site")]) == 2


def test_a_copied_transcript_counts_once(tmp_path: Path) -> None:
    assert main(["match", "--p1", "rule", "--p2", "random", "--seed", "3", "--transcript",
                 str(tmp_path / "a" / "g.jsonl")]) == 0
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    loaded = load([str(tmp_path / "a"), str(tmp_path / "b")])
    assert len(loaded.games) == 1 and "counted once" in loaded.notes[0]
    assert loaded.games[0].started_at is not None


def test_a_line_naming_a_file_outside_its_folder_names_no_transcript(tmp_path: Path) -> None:
    """A games.jsonl that names ../elsewhere/g.jsonl (a hostile folder) does not bring that
    file into a site; the line still counts."""
    from duel.runs.ratings import found_games

    assert main(["match", "--p1", "rule", "--p2", "random", "--seed", "4", "--transcript",
                 str(tmp_path / "elsewhere" / "g.jsonl")]) == 0
    assert main(["tournament", "--p1", "rule", "--p2", "random", "--games", "1", "--seed",
                 "4", "--out", str(tmp_path / "t"), "--no-progress"]) == 0
    games = tmp_path / "t" / "games.jsonl"
    line = games.read_text().replace('"transcripts/game00001-deal4.jsonl"',
                                     '"../elsewhere/g.jsonl"')
    games.write_text(line)
    (tmp_path / "t" / "transcripts" / "game00001-deal4.jsonl").unlink()
    [found] = found_games([str(tmp_path / "t")])
    assert found.line == 1 and found.transcript is None
