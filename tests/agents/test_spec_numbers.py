"""Numbers in agent specs and command-line options are ASCII digits, bounded: Python's int()
would read full-width digits (`１０`), underscores and 4,000-digit integers, and float() `nan`
and `inf`; a spec stored that way reads differently elsewhere."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from duel.agents.spec import make_agent
from duel.cli import main
from duel.errors import SpecError
from duel.util.numbers import SEED_MAX, ascii_float, ascii_int, seed


@pytest.mark.parametrize("spec", [
    "mcts:iterations=１０", "mcts:iterations=1_0", "mcts:iterations= 1 0", "mcts:iterations=0x10",
    "mcts:time=nan", "mcts:time=inf", "mcts:time=1e400", "mcts:time=１.5", "mcts:c=1,5",
    "mcts:seed=12345678901234567890123456", "mcts:seed=-2", "mcts:iterations=" + "9" * 50,
    "llm:openai:gpt-5-mini,max_tokens=٣٠٠"])
def test_unicode_digits_and_unbounded_numbers_are_refused(spec: str) -> None:
    with pytest.raises(SpecError, match="ASCII|must be|expected key=value"):
        make_agent(spec)


def test_plain_numbers_are_read() -> None:
    agent = make_agent("mcts:iterations=10,time=0.5,c=.7,seed=-1,epsilon=3e-1")
    assert (agent.iterations, agent.time, agent.c, agent.epsilon) == (10, 0.5, 0.7, 0.3)
    assert make_agent(f"mcts:iterations=5,seed={SEED_MAX}")


@given(st.text(max_size=45))
def test_what_is_read_as_an_integer_is_plain_ascii(text: str) -> None:
    try:
        value = ascii_int(text)
    except SpecError:
        return
    assert text.lstrip("+-").isascii() and text.lstrip("+-").isdigit()
    assert int(text) == value and abs(value) <= 2**63 - 1


@given(st.text(max_size=45))
def test_what_is_read_as_a_number_is_finite_ascii(text: str) -> None:
    try:
        value = ascii_float(text)
    except SpecError:
        return
    assert text.isascii() and value == value and abs(value) <= 1e15


@pytest.mark.parametrize("bad", ["１０", "-1", str(2**63), "1_000", "", " "])
def test_seeds_are_bounded(bad: str) -> None:
    with pytest.raises(SpecError):
        seed(bad)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_:
        main(["random-game", "--seed", bad])
    assert exit_.value.code == 2 and "--seed" in err.getvalue()
