"""Reading states, moves and transcripts from files or JSON text, with errors that name what was
wrong: the encoding, the nesting depth, a number's size, the field.

Files come from anywhere (another server, a hand edit, a hostile upload), so the reader refuses
what the standard library would turn into a traceback: bytes that are not UTF-8, JSON nested
deeper than any game record (Python's parser recurses), integers too long to convert, and the
non-JSON constants NaN and Infinity.
"""

from __future__ import annotations

import json
import os
import random
import stat
import sys
from typing import Any

from duel.engine import GameState, InfoSet, Move
from duel.errors import InvalidMoveError, InvalidStateError
from duel.schemas import validate_move, validate_state

MAX_DEPTH = 64  # a state nests 5 levels, a transcript line about 8
MAX_DIGITS = 30  # coins, plies and seeds fit; a 4,300-digit number is not a game fact
# The largest file duel reads: a transcript with every LLM reply and its thinking is a few MiB.
MAX_FILE = 256 * 2**20


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


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_bytes(path: str, limit: int = MAX_FILE) -> bytes:
    """A file's bytes ("-" reads standard input), at most `limit` of them; InvalidStateError if
    it cannot be read, is larger, or is not a regular file. A directory, a FIFO, a device (a
    symlink to /dev/zero) or a socket is refused at once: reading one would block for ever or
    until memory runs out. The file is opened without blocking and checked again once open, so
    a FIFO put in its place after the first look cannot hold the reader either."""
    if path == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        try:
            mode = os.stat(path).st_mode
            if not stat.S_ISREG(mode):
                raise InvalidStateError(f"cannot read {path}: it is {_kind(mode)}, not a "
                                        "regular file")
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as f:
                mode = os.fstat(f.fileno()).st_mode
                if not stat.S_ISREG(mode):
                    raise InvalidStateError(f"cannot read {path}: it is {_kind(mode)}, not a "
                                            "regular file")
                data = f.read(limit + 1)
        except OSError as exc:
            raise InvalidStateError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InvalidStateError(f"cannot read {path}: it is over {limit // 2**20} MiB (the "
                                "largest file duel reads)")
    return data


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
