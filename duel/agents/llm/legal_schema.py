"""A JSON schema that admits exactly this turn's legal moves, for constrained decoding.

llama.cpp (and vLLM, through its guided decoding) turns a schema into a grammar, so a model
sampled under this one can only write a legal move. The agent still checks each reply; under
this schema the checks can fail only on a cut-off reply, so first-try legality then measures the
decoder, not the model.

One branch per move kind and values of its later fields, with the values of its first field as
an enum: `DISCARD` with `cardIndex` 3 or 7 is one branch, each wonder a `CONSTRUCT_WONDER` branch
with the card indexes it can be built with. That keeps the grammar small (a few branches) and
admits no combination that is not itself a legal move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duel.engine import InvalidStateError, Move
from duel.engine.moves import MOVE_DATA, MOVE_FIELDS


def legal_move_schema(legal: Sequence[Move]) -> dict[str, Any]:
    """The schema whose instances are exactly the JSON forms of `legal` (ValueError if empty)."""
    if not legal:
        raise InvalidStateError("a legal-move schema needs at least one legal move")
    # (kind, later fields' values) -> first field's values, in the order the moves come
    groups: dict[tuple[str, tuple[Any, ...]], list[Any]] = {}
    for move in legal:
        data = move.to_json()["moveData"]
        first, *rest = MOVE_FIELDS[move.kind]
        values = groups.setdefault((move.kind, tuple(data[key] for key in rest)), [])
        if data[first] not in values:
            values.append(data[first])
    branches = [_branch(kind, rest, values) for (kind, rest), values in groups.items()]
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def _branch(kind: str, rest: tuple[Any, ...], values: list[Any]) -> dict[str, Any]:
    first, *later = MOVE_FIELDS[kind]
    props: dict[str, Any] = {first: _one_of(first, values)}
    for key, value in zip(later, rest, strict=True):
        props[key] = _one_of(key, [value])
    keys = list(MOVE_FIELDS[kind])  # the prompt's order, which the grammar writes them in
    return {
        "type": "object",
        "properties": {
            "move": {"const": kind},
            "moveData": {"type": "object", "properties": {k: props[k] for k in keys},
                         "required": keys, "additionalProperties": False},
        },
        "required": ["move", "moveData"],
        "additionalProperties": False,
    }


def _one_of(key: str, values: list[Any]) -> dict[str, Any]:
    json_type = MOVE_DATA[key].json_type
    if len(values) == 1:
        return {"type": json_type, "const": values[0]}
    return {"type": json_type, "enum": values}
