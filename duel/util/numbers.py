"""Numbers read from people and peers (agent specs, command-line options): ASCII digits only, and
bounded.

Python's `int()` and `float()` read far more than a spec means: full-width and other Unicode
digits (`１０`), underscores (`1_0`), surrounding spaces, `nan`, `inf` and integers of any
length. A hostile spec stored as `mcts:iterations=１０` reads back as 10 in one program and is
refused by another; a 26-digit seed is accepted here and overflows elsewhere. So every number in
a spec or an option is spelled in ASCII and kept within documented bounds (docs: agents).
"""

from __future__ import annotations

import math
import re

from duel.errors import SpecError

SEED_MAX = 2**63 - 1  # seeds are 0..SEED_MAX (a signed 64-bit integer, as stored)
INT_MAX = 2**63 - 1  # any other integer option: |n| <= INT_MAX
FLOAT_MAX = 1e15  # any real option: finite and |x| <= FLOAT_MAX
LONGEST = 40  # characters of a number's text

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _shown(text: str) -> str:
    return repr(text if len(text) <= LONGEST else text[:LONGEST] + "...")


def ascii_int(text: str, what: str = "a number", low: int = -INT_MAX, high: int = INT_MAX
              ) -> int:
    """`text` as an integer written in ASCII digits within [low, high]; SpecError naming `what`
    otherwise."""
    if len(text) > LONGEST or not _INT.fullmatch(text):
        raise SpecError(f"{what} must be an integer in ASCII digits, got {_shown(text)}")
    value = int(text)
    if not low <= value <= high:
        raise SpecError(f"{what} must be from {low} to {high}, got {_shown(text)}")
    return value


def ascii_float(text: str, what: str = "a number", low: float = -FLOAT_MAX,
                high: float = FLOAT_MAX) -> float:
    """`text` as a finite real number written in ASCII (digits, one point, an exponent) within
    [low, high]; SpecError naming `what` otherwise."""
    if len(text) > LONGEST or not _FLOAT.fullmatch(text):
        raise SpecError(f"{what} must be a number in ASCII digits, got {_shown(text)}")
    value = float(text)
    if not math.isfinite(value) or not low <= value <= high:
        raise SpecError(f"{what} must be from {low:g} to {high:g}, got {_shown(text)}")
    return value


def seed(text: str) -> int:
    """A seed: 0..SEED_MAX in ASCII digits."""
    return ascii_int(text, "a seed", 0, SEED_MAX)


def integer(text: str) -> int:
    """An integer option (argparse's `type`): ASCII digits, |n| <= INT_MAX."""
    return ascii_int(text.strip(), "an integer")


def real(text: str) -> float:
    """A real-number option (argparse's `type`): ASCII, finite, |x| <= FLOAT_MAX."""
    return ascii_float(text.strip(), "a number")
