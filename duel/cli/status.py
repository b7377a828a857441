"""The live status line of `duel match`: while an LLM seat waits for its model, one line on
stderr says who is thinking, which attempt, for how long, and whether the model reasons, e.g.::

    player 1 (llm:openai:gpt-5-mini): thinking, attempt 2, 37 s, reasoning
    player 1 (llm:local): starting the local model, ~4 s (2 s so far)

(the second while the local model's server starts: its provider's `status_note`). It is redrawn
about once a second and erased when the call ends, so the move lines on stdout are never mixed
with it. Shown only on a terminal (a log file gets no carriage returns), and not with
``--quiet``. LLM agents report their calls through ``on_status`` (from the LLM loop's thread);
other agents have no such hook and never show a line.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import Any, TextIO

CLEAR = "\r\x1b[K"  # back to the line's start, erase to its end


class StatusLine:
    """One line on `stream`, rewritten in place. `update` takes the agents' call events;
    `refresh` redraws the seconds (a background thread calls it every `interval` seconds
    between `start` and `stop`; tests call it with a fake `clock`)."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic,
                 interval: float = 1.0, width: int | None = None) -> None:
        self.stream = stream
        self.clock = clock
        self.interval = interval
        self.width = width
        self._lock = threading.Lock()
        self._current: tuple[str, dict[str, Any]] | None = None  # (who, its start event)
        self._shown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, agent: Any, who: str) -> None:
        """Show `agent`'s calls as `who` ("player 1 (llm:openai:gpt-5-mini)"), if it reports
        them (LLM agents do, through their `on_status` hook)."""
        if hasattr(agent, "on_status"):
            agent.on_status = partial(self.update, who)

    def update(self, who: str, event: dict[str, Any]) -> None:
        """An agent's call started (drawn at once) or ended (the line is erased)."""
        with self._lock:
            if event.get("event") == "start":
                self._current = (who, event)
                self._draw()
            else:
                self._current = None
                self._erase()

    def text(self) -> str | None:
        """The line as it reads now, or None when no call is under way."""
        with self._lock:
            return self._text()

    def refresh(self) -> None:
        with self._lock:
            if self._current is not None:
                self._draw()

    def clear(self) -> None:
        with self._lock:
            self._erase()

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._tick, name="duel-status", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            self._current = None
            self._erase()

    def __enter__(self) -> StatusLine:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self.refresh()

    def _text(self) -> str | None:
        if self._current is None:
            return None
        who, event = self._current
        seconds = max(0, int(self.clock() - float(event.get("started", self.clock()))))
        note = event.get("note")
        said = note() if callable(note) else None
        if said and said.startswith("starting"):  # no model to think yet
            return f"{who}: {said} ({seconds} s so far)"
        text = f"{who}: thinking, attempt {event.get('attempt', 1)}, {seconds} s"
        text += ", reasoning" if event.get("reasoning") else ""
        return text + (f" ({said})" if said else "")

    def _draw(self) -> None:
        text = self._text() or ""
        # A line longer than the terminal wraps, and the carriage return would then erase only
        # its last row: cut it to the width.
        width = self.width or shutil.get_terminal_size().columns
        self._write(CLEAR + text[:max(1, width - 1)])
        self._shown = True

    def _erase(self) -> None:
        if self._shown:
            self._write(CLEAR)
            self._shown = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: the line is only a nicety
            pass


def seat_label(player: int, spec: str) -> str:
    """"player 1 (llm:openai:gpt-5-mini)": the spec without its options, which can be long."""
    return f"player {player} ({spec.partition(',')[0]})"


@contextmanager
def live_status(watched: Sequence[tuple[Any, str]], quiet: bool = False,
                stream: TextIO | None = None) -> Iterator[StatusLine | None]:
    """A status line showing each (agent, who) pair's calls, running for the block; None (and
    the agents untouched) with `quiet` or when `stream` (default stderr) is not a terminal.
    Agents without the `on_status` hook are left out."""
    stream = stream if stream is not None else sys.stderr
    if quiet or not stream.isatty():
        yield None
        return
    line = StatusLine(stream)
    hooked = [(agent, who) for agent, who in watched if hasattr(agent, "on_status")]
    for agent, who in hooked:
        line.watch(agent, who)
    try:
        with line:
            yield line
    finally:
        for agent, _ in hooked:
            agent.on_status = None


def match_status(agents: Sequence[Any], quiet: bool = False, stream: TextIO | None = None
                 ) -> AbstractContextManager[StatusLine | None]:
    """:func:`live_status` for a match between `agents` (player 1's first)."""
    return live_status([(a, seat_label(n, a.spec)) for n, a in enumerate(agents, 1)], quiet,
                       stream)
