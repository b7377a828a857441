"""Tidy by default: what `duel serve`, `duel view` and `duel play` write unasked goes to a data
folder (--data-dir, else $DUEL_DATA_DIR, else the platform's user data folder), never the
working tree; `duel tournament` says where its games are, or that they are not kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from duel.cli import build_parser, main
from duel.util.datadir import ENV, data_dir


def test_the_folder_named_the_environment_s_or_the_user_s(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_dir() == tmp_path / "xdg" / "duel"  # platformdirs' Linux folder
    monkeypatch.setenv(ENV, str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(str(tmp_path / "named")) == tmp_path / "named"
    assert all((tmp_path / d).is_dir() for d in ("xdg/duel", "env", "named"))


def test_view_writes_its_page_in_the_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv(ENV, str(tmp_path / "data"))
    game = work / "game.jsonl"
    assert main(["match", "--p1", "rule", "--p2", "random", "--seed", "3", "--transcript",
                 str(game)]) == 0
    before = set(os.listdir(work))
    assert main(["view", str(game), "--no-serve"]) == 0
    assert (tmp_path / "data" / "pages" / "game.html").exists()
    assert set(os.listdir(work)) == before  # nothing new in the working tree
    assert main(["view", str(game), "--no-serve", "--data-dir", str(tmp_path / "d2")]) == 0
    assert (tmp_path / "d2" / "pages" / "game.html").exists()
    assert "data" in capsys.readouterr().out


def test_serve_and_play_default_to_the_data_folder() -> None:
    p = build_parser()
    assert p.parse_args(["serve"]).db is None  # resolved in the data folder at start
    args = p.parse_args(["play", "--vs", "rule", "--data-dir", "/x"])
    assert args.db is None and args.data_dir == "/x"


def test_tournament_says_where_its_games_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--p1", "rule", "--p2", "random", "--games", "2",
                 "--no-progress"]) == 0
    assert "Games not kept: --out DIR keeps them" in capsys.readouterr().out
    out = tmp_path / "run"
    assert main(["tournament", "--p1", "rule", "--p2", "random", "--games", "2",
                 "--no-progress", "--out", str(out)]) == 0
    assert f"Games kept in {out / 'games.jsonl'}" in capsys.readouterr().out
