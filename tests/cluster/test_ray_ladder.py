"""`duel ladder --ray`: every pairing's games played as tasks of a local Ray instance, the
same games (seed for seed, seat for seat) as a local run of the same ladder, and the same
place for the player."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.game_lines import without_clocks

from duel.cli import main

pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")

LADDER = ["--player", "random", "--rungs", "5,10", "--games", "2", "--no-progress",
          "--resamples", "20"]
PAIRINGS = ("player-5", "player-10", "5-10")


def without_time(folder: Path) -> list[str]:
    return sorted(json.dumps(without_clocks(json.loads(line)), sort_keys=True)
                  for line in (folder / "games.jsonl").read_text().splitlines())


def test_a_ladder_on_ray_plays_the_local_ladder_s_games(
        local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", *LADDER, "--out", str(tmp_path / "here"), "--jobs", "2"]) == 0
    here = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert main(["ladder", *LADDER, "--out", str(tmp_path / "ray"), "--ray", "local"]) == 0
    on_ray = capsys.readouterr().out.rstrip().splitlines()[-1]
    for pairing in PAIRINGS:
        assert len(without_time(tmp_path / "ray" / pairing)) == 2
        assert without_time(tmp_path / "ray" / pairing) == \
            without_time(tmp_path / "here" / pairing), pairing
    assert on_ray == here and on_ray.startswith("random: ")
