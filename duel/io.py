"""Reading states and moves from files or JSON text, with errors that name what was wrong."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from duel.engine import GameState, InfoSet, InvalidMoveError, InvalidStateError, Move
from duel.schemas import validate_move, validate_state


def read_json(path: str) -> Any:
    """Parse a JSON file ("-" reads standard input). Raises InvalidStateError on bad JSON."""
    try:
        text = Path("/dev/stdin").read_text() if path == "-" else Path(path).read_text()
    except OSError as exc:
        raise InvalidStateError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidStateError(f"{path} is not JSON: {exc}") from exc


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
