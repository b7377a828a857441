"""`duel bench yardstick --repo PATH`: duel's native core against the fastest public 7 Wonders
Duel engine (indjev99/7-Wonders-Duel-AI, C++), in the same run on the same machine.

The driver (indjev99.cpp beside this file, duel's only code in the comparison) is compiled with
g++ -O3 against a checkout of that repository (its src/game, src/agents and src/utils, unchanged:
nothing of it is copied into duel), then each figure is taken in alternating rounds so that the
machine's load falls on both alike:

- random games per CPU second on one core: duel's deal-and-play loop (`duel bench native`)
  against theirs (a fresh `GameStateFast`, a uniformly random one of its possible actions for
  every actor, the game's own reveals included);
- search iterations per CPU second choosing the first move of a game: duel's `mcts` against
  their `AgentMctsBlindReveals` (its default configuration), counted by its `totalNumSims`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from duel.errors import BenchError

DRIVER = Path(__file__).with_name("indjev99.cpp")
SOURCES = ("src/game", "src/agents", "src/utils")
EXTRA = ("src/system/agent.cpp", "src/system/listener.cpp")


def check_checkout(repo: str) -> Path:
    """`repo` as a path; BenchError unless it holds the engine's source."""
    root = Path(repo)
    if not (root / "src" / "game" / "game_state.h").is_file():
        raise BenchError(f"{repo} is not a checkout of indjev99/7-Wonders-Duel-AI "
                         "(no src/game/game_state.h)")
    return root


def build_driver(repo: str, folder: str, driver: Path = DRIVER) -> str:
    """Compile `driver` (by default the speed driver) against the checkout at `repo` into
    `folder`; the binary's path."""
    root = check_checkout(repo)
    compiler = shutil.which("g++")
    if compiler is None:
        raise BenchError("the yardstick needs g++ on the PATH")
    sources = [str(p) for d in SOURCES for p in sorted((root / d).glob("*.cpp"))]
    sources += [str(root / p) for p in EXTRA]
    binary = os.path.join(folder, driver.stem + "-driver")
    command = [compiler, "-std=c++17", "-O3", "-I", str(root / "src"), "-o", binary,
               str(driver), *sources]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"the driver did not compile against {repo}:\n{done.stderr[-2000:]}")
    return binary


def theirs(binary: str, figure: str, seconds: float, seed: int) -> float:
    """One figure of their engine: a rate per CPU second."""
    done = subprocess.run([binary, figure, f"{seconds:g}", str(seed)], capture_output=True,
                          text=True, timeout=seconds * 10 + 30)
    if done.returncode != 0:
        raise BenchError(f"their {figure} run failed ({done.returncode}): {done.stderr[-500:]}")
    return float(done.stdout.split()[0])


def compare_yardstick(repo: str, rounds: int, seconds: float) -> dict[str, Any]:
    """`rounds` alternating rounds of each figure, native core and theirs."""
    from duel.bench.common import _load_fields, rounds_figures
    from duel.bench.native import mcts_rate, native_games
    from duel.build import describe
    from duel.native import available

    if not available():
        raise BenchError(f"the native core is not in use: {describe()}")
    commit = subprocess.run(["git", "-C", repo, "log", "-1", "--format=%h"],
                            capture_output=True, text=True).stdout.strip() or "(not a git checkout)"
    figures: dict[str, list[float]] = {"duel_games": [], "their_games": [],
                                       "duel_mcts": [], "their_mcts": []}
    with tempfile.TemporaryDirectory(prefix="duel-yardstick-") as folder:
        binary = build_driver(repo, folder)
        load_start = _load_fields()
        for r in range(rounds):
            figures["duel_games"].append(native_games(seconds, 1000 * r)[0])
            figures["their_games"].append(theirs(binary, "random", seconds, r))
            figures["duel_mcts"].append(mcts_rate(seconds, 1))
            figures["their_mcts"].append(theirs(binary, "mcts", seconds, r))
    out: dict[str, Any] = {"build": describe(), "their_commit": commit, "rounds": rounds,
                           "seconds": seconds, "clock": "process CPU time",
                           "load_average_start": load_start["load_average"], **_load_fields()}
    out.update(rounds_figures(figures, {f"{what}_ratio": (f"duel_{what}", f"their_{what}")
                                        for what in ("games", "mcts")}))
    return out
