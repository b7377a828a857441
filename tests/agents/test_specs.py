"""Agent spec strings: typed parameters, and errors that name the valid choices."""

from __future__ import annotations

import pytest

from duel.agents import make_agent
from duel.agents.mcts import MCTSAgent
from duel.cli import main
from duel.errors import SpecError


@pytest.mark.parametrize("spec, message", [
    ("nosuch", "unknown agent 'nosuch'; valid agents: dqn, http, llm, mcts, random, rule"),
    ("mcts:iters=5", "unknown parameter 'iters'; valid parameters: iterations, time"),
    ("mcts:iterations=abc", "iterations must be an integer in ASCII digits, got 'abc'"),
    ("mcts:iterations", "expected key=value"),
    ("mcts:rollout=smart", "rollout must be 'uniform', 'heuristic' or 'mast'"),
    ("mcts:epsilon=1.5", "epsilon must be between 0 and 1"),
    ("random:x=1", "unknown parameter 'x'; valid parameters: (none)"),
    ("mcts:iters=5", "valid parameters: iterations, time, c, rollout, epsilon, build_bias, "
                     "margin, tree, seed, reuse, workers"),
    ("mcts:iterations=-5", "iterations must be >= 0"),
    ("mcts:time=-1", "time must be >= 0 seconds"),
    ("mcts:c=-0.5", "c must be >= 0"),
    ("mcts:margin=3", "margin must be between 0 and 1"),
    ("mcts:build_bias=1.5", "build_bias must be between 0 and 1"),
    ("mcts:workers=0", "workers must be >= 1"),
    ("mcts:seed=-7", "seed must be >= 0, or -1"),
    ("mcts:c=1,c=2", "parameter 'c' is given twice"),
    ("mcts:time=nan", "time must be a number in ASCII digits, got 'nan'"),
    ("mcts:time=inf", "time must be a number in ASCII digits, got 'inf'"),
])
def test_spec_errors_name_the_valid_choices(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_agent(spec)


def test_spec_parses_parameters() -> None:
    agent = make_agent("mcts:time=1.5,c=0.9,seed=3,rollout=uniform")
    assert isinstance(agent, MCTSAgent)
    assert (agent.time, agent.c, agent.rollout, agent.iterations) == (1.5, 0.9, "uniform", 0)
    assert agent.spec == "mcts:time=1.5,c=0.9,seed=3,rollout=uniform"


def test_match_cli_bad_spec_exits_2(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["match", "--p1", "bogus", "--p2", "rule"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("duel match: unknown agent 'bogus'; valid agents: dqn, http, llm, mcts, "
                           "random, rule")
