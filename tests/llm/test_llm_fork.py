"""An LLM agent used in a process, then a forked worker pool in the same process: the workers'
LLM calls run on a loop of their own (the parent's loop thread does not exist in a child)."""

from __future__ import annotations

import multiprocessing

from duel.agents import runner


async def _answer() -> int:
    return 42


def _in_child() -> int:
    return runner.run(_answer())


def test_a_forked_child_runs_llm_coroutines_on_its_own_loop() -> None:
    assert runner.run(_answer()) == 42  # the parent's loop thread is running
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        result = pool.apply_async(_in_child)
        assert result.get(timeout=30) == 42
