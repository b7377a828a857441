"""The live status line of `duel match` while an LLM seat thinks, and `duel match -v`'s account
of an LLM move (reasoning tokens, the start of the thinking)."""

from __future__ import annotations

import io
import re
import sys
import time

import pytest
from helpers.fake_llm_agent import FakeLLMSeat, registered

from duel.agents.base import RandomAgent
from duel.cli import main
from duel.cli.status import CLEAR, StatusLine, match_status, seat_label
from duel.words.narrate import THINKING_CHARS, clip, llm_lines


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def start(attempt: int = 1, started: float = 100.0, reasoning: bool = True) -> dict[str, object]:
    return {"event": "start", "attempt": attempt, "started": started, "reasoning": reasoning}


def test_the_line_counts_the_seconds_of_the_call_and_is_erased_at_its_end() -> None:
    stream, clock = io.StringIO(), Clock()
    line = StatusLine(stream, clock=clock, width=200)
    who = seat_label(1, "llm:openai:gpt-5-mini,reasoning_effort=high,base_url=http://x")
    line.update(who, start(attempt=2))
    assert stream.getvalue() == CLEAR + "player 1 (llm:openai:gpt-5-mini): thinking, attempt 2, " \
        "0 s, reasoning"
    clock.now = 137.4
    line.refresh()
    assert stream.getvalue().endswith(CLEAR + "player 1 (llm:openai:gpt-5-mini): thinking, "
                                      "attempt 2, 37 s, reasoning")
    line.update(who, {"event": "end", "attempt": 2, "started": 100.0, "reasoning": True})
    assert stream.getvalue().endswith("reasoning" + CLEAR) and line.text() is None
    written = stream.getvalue()
    line.refresh()  # nothing under way: nothing drawn, nothing erased twice
    line.clear()
    assert stream.getvalue() == written


def test_a_model_that_does_not_reason_says_so_by_omission_and_long_lines_are_cut() -> None:
    stream, clock = io.StringIO(), Clock()
    line = StatusLine(stream, clock=clock, width=30)
    line.update("player 2 (llm:openai:gpt-4o-mini)", start(reasoning=False))
    assert line.text() == "player 2 (llm:openai:gpt-4o-mini): thinking, attempt 1, 0 s"
    # wider than the terminal would wrap, and the carriage return would erase only the last row
    assert stream.getvalue() == CLEAR + line.text()[:29]  # type: ignore[index]


def test_the_ticker_redraws_while_a_call_is_under_way_and_stop_erases() -> None:
    stream, clock = io.StringIO(), Clock()
    line = StatusLine(stream, clock=clock, interval=0.01, width=200)
    with line:
        line.update("player 1 (llm:x)", start())
        clock.now = 105.0
        deadline = time.monotonic() + 5
        while "5 s" not in stream.getvalue():
            assert time.monotonic() < deadline, stream.getvalue()
            time.sleep(0.01)
    assert stream.getvalue().endswith(CLEAR) and line.text() is None


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_only_a_terminal_gets_the_line_and_quiet_turns_it_off() -> None:
    seat = FakeLLMSeat()
    with match_status([seat], stream=io.StringIO()) as line:  # a file or a pipe: no line
        assert line is None and seat.on_status is None
    with match_status([seat], quiet=True, stream=Tty()) as line:
        assert line is None and seat.on_status is None
    tty = Tty()
    with match_status([seat, RandomAgent()], stream=tty) as line:  # no hook: not watched
        assert line is not None and seat.on_status is not None
        seat.on_status(start(started=time.monotonic()))
        assert "player 1 (fakellm): thinking, attempt 1, 0 s, reasoning" in tty.getvalue()
    assert seat.on_status is None  # the agents are left as they were found


def _untimed(out: str) -> list[str]:
    return [line for line in out.splitlines() if not re.fullmatch(r"\d+ moves in [\d.]+ s", line)]


def test_duel_match_shows_the_line_on_a_terminal_and_not_with_quiet(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with registered():
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
        args = ["match", "--p1", "fakellm", "--p2", "random", "--seed", "3", "--no-transcript"]
        assert main(args) == 0
        out, err = capsys.readouterr()
        assert "player 1 (fakellm): thinking, attempt 1, 0 s, reasoning" in err
        assert err.endswith(CLEAR)  # erased: the terminal is left clean
        assert "thinking" not in out and "Result:" in out
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
        assert main([*args, "--quiet"]) == 0
        out_quiet, err = capsys.readouterr()
        # the same game, line for line, but for the wall-clock line ("N moves in X s")
        assert err == "" and _untimed(out_quiet) == _untimed(out)


def test_verbose_match_shows_reasoning_tokens_and_the_start_of_the_thinking(
        capsys: pytest.CaptureFixture[str]) -> None:
    thinking = "The Baths chain into the Aqueduct.\n\n" + "x" * 600 + "TAIL"
    with registered(thinking=thinking):
        assert main(["match", "--p1", "fakellm", "--p2", "mcts:iterations=20", "--seed", "3",
                     "--no-transcript", "-v"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    first = lines.index("       LLM: legal at attempt 1")
    assert lines[first - 1].startswith("  1. ")  # under the move it explains
    assert lines[first + 1] == "       adapted temperature: not sent (the model takes only " \
        "the default)"
    assert lines[first + 2] == "       attempt 1: a legal move, 1000 in / 400 out " \
        "(300 reasoning), 1.5 s"
    shown = lines[first + 3]
    assert shown.startswith("         thinking: The Baths chain into the Aqueduct. xxx")
    assert shown.endswith("...") and "TAIL" not in out
    assert len(shown.split("thinking: ", 1)[1]) == THINKING_CHARS + 3
    assert out.count("adapted temperature") == 1  # recorded once, shown once
    # another agent's details are shown in words (MCTS statistics and its top moves)
    second = lines.index(next(line for line in lines if line.startswith("  2. ")))
    assert lines[second + 1].startswith("       search: ") and "visits" in lines[second + 2]
    assert '{"' not in out


def test_llm_lines_of_a_fallback_and_of_a_call_without_thinking() -> None:
    from helpers.fake_llm_agent import call_record, llm_details

    details = llm_details([call_record(1, "TRANSPORT", reasoning_tokens=0,
                                       error="fake: connection failed")],
                          legal_at=None, fallback="random")
    assert llm_lines(details["llm"]) == [
        "LLM: no legal move: fallback random",
        "attempt 1: no answer in time, 1000 in / 400 out, 1.5 s: fake: connection failed"]
    assert clip("short\n text") == "short text"
