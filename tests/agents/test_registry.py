"""The registry of agent kinds: built-in kinds named by the path of their builder and loaded on
first use, kinds added and removed by tests, and clear errors for a kind that cannot load."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from duel.agents.base import RandomAgent
from duel.agents.builtin import BUILTIN_KINDS
from duel.agents.kinds import AgentKind, Param, load
from duel.agents.spec import describe_kinds, kinds, make_agent, register, unregister
from duel.errors import SpecError


@pytest.fixture()
def scratch() -> Iterator[list[str]]:
    """Names of kinds a test registers, removed again afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        unregister(name)


@pytest.mark.parametrize("kind", BUILTIN_KINDS, ids=[k.name for k in BUILTIN_KINDS])
def test_every_built_in_builder_path_loads(kind: AgentKind) -> None:
    target = kind.custom_parser if kind.custom_parser is not None else kind.factory
    assert isinstance(target, str)  # named, not imported, until an agent is built
    assert callable(load(target, kind.name))


def test_the_listing_shows_every_kind_with_its_options() -> None:
    text = describe_kinds().splitlines()
    assert [line.split(":")[0] for line in text] == [k.name for k in BUILTIN_KINDS]
    assert set(kinds()) == {"random", "rule", "mcts", "llm", "dqn", "http"}
    mcts = next(line for line in text if line.startswith("mcts:"))
    assert "iterations=0" in mcts and "workers=1" in mcts
    assert "max_attempts=3" in next(line for line in text if line.startswith("llm:"))


def test_a_registered_kind_builds_from_a_path_and_goes_again(scratch: list[str]) -> None:
    register(AgentKind("lazy", "random, by path (tests)", {}, "duel.agents.base:RandomAgent"))
    scratch.append("lazy")
    agent = make_agent(" lazy ")
    assert isinstance(agent, RandomAgent) and agent.spec == "lazy"
    unregister("lazy")
    with pytest.raises(SpecError, match="unknown agent 'lazy'"):
        make_agent("lazy")


def test_a_registered_kind_with_a_parser_gets_the_rest_of_the_spec(scratch: list[str]) -> None:
    seen: list[str] = []

    def parse(rest: str) -> RandomAgent:
        seen.append(rest)
        return RandomAgent()

    register(AgentKind("parsed", "a parser of its own (tests)", custom_parser=parse))
    scratch.append("parsed")
    make_agent("parsed:a:b,c=1")
    assert seen == ["a:b,c=1"]


@pytest.mark.parametrize("target, words", [
    ("duel.agents.nosuch:Agent", "cannot load duel.agents.nosuch:Agent"),
    ("duel.agents.base:NoSuchAgent", "cannot load duel.agents.base:NoSuchAgent"),
    ("duel.agents.base:__doc__", "duel.agents.base:__doc__ is not callable"),
])
def test_a_kind_whose_builder_cannot_load_is_a_spec_error(scratch: list[str], target: str,
                                                          words: str) -> None:
    register(AgentKind("broken", "(tests)", {}, target))
    scratch.append("broken")
    with pytest.raises(SpecError, match=f"^broken: {words}"):
        make_agent("broken")


@pytest.mark.parametrize("factory, parser, words", [
    (None, None, "needs a factory or a custom parser"),
    ("duel.agents.base:RandomAgent", "duel.agents.base:RandomAgent",
     "needs a factory or a custom parser"),
    ("duel.agents.base.RandomAgent", None, "is not 'module:attribute'"),
])
def test_a_kind_is_checked_when_it_is_declared(factory: str | None, parser: str | None,
                                               words: str) -> None:
    with pytest.raises(SpecError, match=words):
        AgentKind("odd", "(tests)", {"x": Param(int, 0, "")}, factory, parser)
