"""A refused task parameter as Inspect shows a prerequisite: its one line, no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from inspect_ai._util.error import PrerequisiteError

from duel.errors import DuelError


@contextmanager
def refused(task: str) -> Iterator[None]:
    """duel's own error for a bad setting (SpecError, UsageError...) becomes Inspect's
    PrerequisiteError, which `inspect eval` prints as one line before any model is called."""
    try:
        yield
    except DuelError as exc:
        raise PrerequisiteError(f"{task}: {exc}") from None
