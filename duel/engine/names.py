"""Reading lists of names (cards, wonders, tokens) into ids: the one check the deal reader and
the state reader share."""

from __future__ import annotations

from typing import Any

from duel.errors import InvalidStateError


def ids_of(values: Any, table: dict[str, int], where: str, count: int | None = None
           ) -> list[int]:
    """Ids of a list of distinct names from `table`; `count`, if given, is the list's exact
    length. InvalidStateError names `where` ("state tokensAvailable", "deal age1") and what is
    wrong."""
    if not isinstance(values, list) or (count is not None and len(values) != count):
        raise InvalidStateError(f"{where} must be a list"
                                + (f" of {count} names" if count is not None else ""))
    out = []
    for v in values:
        if not isinstance(v, str) or v not in table:
            raise InvalidStateError(f"{where}: unknown name {v!r}")
        out.append(table[v])
    if len(set(out)) != len(out):
        raise InvalidStateError(f"{where} names the same thing twice")
    return out
