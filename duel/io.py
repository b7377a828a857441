"""Reading states, moves and transcripts from files or JSON text, with errors that name what was
wrong: the encoding, the nesting depth, a number's size, the field.

Files come from anywhere (another server, a hand edit, a hostile upload), so the reader refuses
what the standard library would turn into a traceback: bytes that are not UTF-8, JSON nested
deeper than any game record (Python's parser recurses), integers too long to convert, and the
non-JSON constants NaN and Infinity.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from duel.engine import GameState, InfoSet, Move
from duel.errors import InvalidMoveError, InvalidStateError
from duel.schemas import validate_move, validate_state

MAX_DEPTH = 64  # a state nests 5 levels, a transcript line about 8
MAX_DIGITS = 30  # coins, plies and seeds fit; a 4,300-digit number is not a game fact


def decode(data: bytes, where: str) -> str:
    """UTF-8 text, or InvalidStateError naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidStateError(f"{where} is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                                f"offset {exc.start})") from None


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (strings skipped), found without
    recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise InvalidStateError(f"a number has {digits} digits (at most {MAX_DIGITS})")
    return int(text)


def _constant(name: str) -> Any:
    raise InvalidStateError(f"{name} is not a JSON number")


def parse_json(text: str, where: str) -> Any:
    """Parse JSON text; InvalidStateError names `where` and what is wrong."""
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise InvalidStateError(f"{where} nests {depth} levels deep (at most {MAX_DEPTH})")
    try:
        return json.loads(text, parse_int=_int, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise InvalidStateError(f"{where} is not JSON: {exc}") from None
    except InvalidStateError as exc:
        raise InvalidStateError(f"{where}: {exc}") from None


def read_bytes(path: str) -> bytes:
    """A file's bytes ("-" reads standard input); InvalidStateError if it cannot be read."""
    try:
        return sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise InvalidStateError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_json(path: str) -> Any:
    """Parse a JSON file ("-" reads standard input)."""
    return parse_json(decode(read_bytes(path), path), path)


def load_state(obj: Any, seed: int | None = None) -> GameState:
    """A complete state from a prompt-format state: validated against the schema, then the
    hidden cards are sampled with `seed`."""
    validate_state(obj)
    return InfoSet.from_view(obj).sample(random.Random(seed))


def load_move(obj: Any) -> Move:
    try:
        validate_move(obj)
    except InvalidMoveError:
        Move.from_json(obj)  # its message is more specific when it has one
        raise
    return Move.from_json(obj)
