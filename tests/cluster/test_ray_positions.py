"""`duel positions extract --ray`: each transcript analysed as a task of a local Ray instance,
through the same campaign runner as a local extraction; the suite is the one this machine
extracts (a seeded, iteration-based analyser)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.suites import games

from duel.cli import main


def test_an_extraction_on_ray_is_the_local_one(local_ray: None, tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    for folder in (here, there):
        games(folder)
    args = ["--iterations", "10", "--per-kind", "3", "--min-gap", "0"]
    assert main(["positions", "extract", str(there), "--out", str(tmp_path / "ray.json"),
                 *args, "--ray", "local"]) == 0
    assert main(["positions", "extract", str(here), "--out", str(tmp_path / "local.json"),
                 *args, "--jobs", "1"]) == 0

    def ids(name: str) -> list[tuple[str, int, list[float]]]:
        suite = json.loads((tmp_path / name).read_text())
        return [(p["id"], p["source"]["ply"], [v["value"] for v in p["values"]])
                for p in suite["positions"]]

    assert ids("ray.json") == ids("local.json") and ids("local.json")
