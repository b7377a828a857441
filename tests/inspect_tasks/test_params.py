"""Bad input is refused before any model call, in one line: an unknown task parameter, a bad
opponent spec, a bad harness setting, a suite that is not one. The checks (duel.inspect.params)
run without Inspect; the tasks and the command line need it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from duel.errors import SpecError
from duel.inspect import params as P


@pytest.mark.parametrize(("call", "message"), [
    (lambda: P.MatchParams.parse("nope", 2, 0, 0, None), "unknown agent 'nope'"),
    (lambda: P.MatchParams.parse("random", "two", 0, 0, None), "-T games: 'two' is not"),
    (lambda: P.MatchParams.parse("random", 0, 0, 0, None), "-T games: must be at least 1"),
    (lambda: P.harness_options("history"), "is not key=value"),
    (lambda: P.Seat.parse("baseline", "histori=all", 3, "random", "off"), "histori"),
    (lambda: P.Seat.parse("nope", "", 3, "random", "off"), "nope"),
    (lambda: P.Seat.parse("baseline", "", 3, "random", "maybe"), "'maybe' is not on or off"),
    (lambda: P.refuse_unknown({"model": "m", "gamez": 3}), "gamez"),
])
def test_bad_parameters_are_refused_by_name(call: Any, message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("(", r"\(")):
        call()


def test_the_role_and_good_settings_pass() -> None:
    assert P.MatchParams.parse(" role ", "4", 3, 0, None).by_role
    # Inspect splits a -T value at its commas: the spec is joined again.
    assert P.MatchParams.parse(["mcts:iterations=20", "c=1.4"], 2, 0, 0, None).opponent == \
        "mcts:iterations=20,c=1.4"
    assert P.harness_options(["history=all", "names=renamed"]) == {"history": "all",
                                                                   "names": "renamed"}
    assert P.harness_options({"history": "all"}) == {"history": "all"}
    P.refuse_unknown({"model": "m"})  # Inspect's own, passed to every **kwargs task
    # -T tools=on reaches a task as YAML's True, typed in Python as "on"
    assert P.Seat.parse("baseline", "", 3, "random", True).tools
    assert P.Seat.parse("baseline", "", 3, "random", "on").tools
    assert not P.Seat.parse("baseline", "", 3, "random", "off").tools
    assert P.default_suite().is_file()  # shipped as package data


def test_the_tasks_refuse_before_any_model_is_asked(tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai._util.error import PrerequisiteError

    from duel.grading.positions.suite import load
    from duel.inspect.match import match
    from duel.inspect.positions import positions

    with pytest.raises(PrerequisiteError, match="duel/match: mcts: unknown parameter .iterationz."):
        match(opponent="mcts:iterationz=3")
    with pytest.raises(PrerequisiteError, match="history need the game's earlier turns"):
        positions(harness="history=all")
    with pytest.raises(PrerequisiteError, match="duel/positions: .*nope.json"):
        positions(suite=str(tmp_path / "nope.json"))
    assert len(match(games=3).dataset) == 3
    assert len(positions().dataset) == len(load(P.default_suite()).positions) > 10  # shipped


@pytest.mark.parametrize(("task", "arg", "message"), [
    ("duel/match", "opponent=nope", "duel/match: unknown agent 'nope'"),
    ("duel/match", "gamez=3", "duel/match: unknown task parameter(s) gamez"),
    ("duel/positions", "tools=maybe", "duel/positions: -T tools: 'maybe' is not on or off"),
])
def test_the_command_line_says_it_in_one_line(tmp_path: Path, task: str, arg: str,
                                              message: str) -> None:
    pytest.importorskip("inspect_ai")
    inspect = str(Path(sys.executable).parent / "inspect")
    done = subprocess.run([inspect, "eval", task, "--model", "mockllm/model", "-T",
                           arg, "--log-dir", str(tmp_path / "logs")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode != 0 and message in said, said
    assert "Traceback" not in said
    assert not list((tmp_path / "logs").glob("*.eval"))  # no eval started
