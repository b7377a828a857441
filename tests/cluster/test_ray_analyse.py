"""`duel analyse` of many transcripts on Ray: each analysed as a task of a local Ray instance,
its sidecar written beside it and identical to the one a local analysis writes (a seeded,
iteration-based analyser); a second run finds them fresh and analyses nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.recorded_games import record_game

from duel.analysis.sidecar import sidecar_path
from duel.cli import main


def test_many_transcripts_are_analysed_on_ray_as_they_are_here(
        local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = [record_game(tmp_path / f"game{i}.jsonl", "rule", "random", seed=70 + i)
             for i in range(3)]
    args = ["--iterations", "8", "--seat", "1"]
    assert main(["analyse", *map(str, games), *args, "--ray", "local"]) == 0
    out = capsys.readouterr().out
    assert out.count("Analysis written to") == 3
    on_ray = {g.name: json.loads(sidecar_path(g).read_text()) for g in games}
    # Fresh now: nothing analysed again.
    assert main(["analyse", *map(str, games), *args, "--ray", "local"]) == 0
    assert capsys.readouterr().out.count("a fresh analysis is there already") == 3
    # The same analyses as this machine makes of them.
    assert main(["analyse", *map(str, games), *args, "--force", "--jobs", "1"]) == 0
    here = {g.name: json.loads(sidecar_path(g).read_text()) for g in games}

    for name in here:
        assert strip(on_ray[name]) == strip(here[name]), name


def strip(obj: object) -> object:
    """A sidecar without what depends on the clock (seconds spent, when written)."""
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items()
                if k not in ("seconds", "written", "created", "elapsed")}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj
