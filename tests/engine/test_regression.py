"""Fixed-seed regression (perft style): 30 seeded random games must play exactly as recorded.

tests/engine/data/regression.json holds, for seeds 0..29,
 the number of legal moves at every ply, the
step, the move chosen and the final result. A rule change that alters any legal-move count shows
here as a per-ply diff of the first seed that differs. After an intended change, regenerate with
``python3 tests/engine/data/make_regression.py`` and review the diff.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent / "data"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("make_regression",
                                                  DATA / "make_regression.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()
EXPECTED: dict[str, Any] = json.loads((DATA / "regression.json").read_text())["games"]


def ply_diff(seed: str, expected: dict[str, Any], actual: dict[str, Any], context: int = 3,
             after: int = 12) -> str:
    """A per-ply table around the first ply where the two records differ."""
    exp_rows = list(zip(expected["counts"], expected["steps"], expected["moves"] + [""],
                        strict=False))
    act_rows = list(zip(actual["counts"], actual["steps"], actual["moves"] + [""], strict=False))
    first = next((i for i, (a, b) in enumerate(zip(exp_rows, act_rows, strict=False)) if a != b),
                 min(len(exp_rows), len(act_rows)))
    lines = [f"seed {seed}: first difference at ply {first} "
             f"(expected {len(exp_rows)} plies, got {len(act_rows)})",
             f"{'':2}{'ply':>4} {'expected':>8} {'actual':>6}  step (expected / actual)  "
             "move played (expected / actual)"]
    for i in range(max(0, first - context), min(max(len(exp_rows), len(act_rows)),
                                                 first + after)):
        e = exp_rows[i] if i < len(exp_rows) else ("-", "-", "-")
        a = act_rows[i] if i < len(act_rows) else ("-", "-", "-")
        mark = "!!" if e != a else ""
        step = e[1] if e[1] == a[1] else f"{e[1]} / {a[1]}"
        move = e[2] if e[2] == a[2] else f"{e[2]} / {a[2]}"
        lines.append(f"{mark:2}{i:>4} {e[0]!s:>8} {a[0]!s:>6}  {step}  {move}")
    if expected["result"] != actual["result"]:
        lines.append(f"result: expected {expected['result']}, got {actual['result']}")
    return "\n".join(lines)


def test_regression_file_covers_seeds_0_to_29() -> None:
    assert sorted(EXPECTED, key=int) == [str(s) for s in range(30)]
    for game in EXPECTED.values():
        assert len(game["counts"]) == len(game["steps"]) == len(game["moves"]) + 1
        assert game["counts"][-1] == 0 and game["steps"][-1] == "GAME_END"


def test_seeded_games_match_recorded_perft() -> None:
    mismatched = []
    first_report = ""
    for seed, expected in EXPECTED.items():
        actual = GEN.fingerprint(int(seed))
        if actual != expected:
            mismatched.append(seed)
            if not first_report:
                first_report = ply_diff(seed, expected, actual)
    if mismatched:
        print(first_report)
        pytest.fail(f"{len(mismatched)} of {len(EXPECTED)} seeded games differ from "
                    f"tests/engine/data/regression.json (seeds {', '.join(mismatched)})\n"
                    + first_report, pytrace=False)


def test_ply_diff_names_seed_ply_counts_and_step() -> None:
    """The diff itself: a changed count shows seed, ply, both counts and the step."""
    expected = EXPECTED["0"]
    actual = json.loads(json.dumps(expected))
    actual["counts"][9] += 1
    text = ply_diff("0", expected, actual)
    assert text.startswith("seed 0: first difference at ply 9")
    row = next(line for line in text.splitlines() if line.startswith("!!"))
    assert row.split()[1:4] == ["9", str(expected["counts"][9]), str(expected["counts"][9] + 1)]
    assert expected["steps"][9] in row
