"""Prompt variants: the fixed rules text (system prompt) and the per-turn message.

Each variant is a TOML file in ``variants/``: a name, a description, the rules text it starts from
(the seed prompt, shipped verbatim as ``rules_prompt.txt``), addenda, textual edits (``replace``:
exact replacements that must each match once; ``cut``: a span removed), whether each turn lists
the legal moves, and whether it writes the state on one line (``compact_state``). A rules text may
hold a table of the engine's data as a placeholder (``{{CARDS}}``, see ``reference.py``). The rules
text comes first and never changes within a game, so providers that cache a prompt prefix reuse it
on every move; only the turn message varies.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import Any

from duel.engine import Move
from duel.errors import PromptError
from duel.prompts.reference import TABLES

TURN_TEMPLATE_VERSION = "1"

# A fixed turn, rendered into the hash so that any change to the turn message's wording changes it.
_HASH_VIEW: dict[str, Any] = {"step": "PLAY_CARD", "age": 1}
_HASH_MOVES: list[tuple[Move, int]] = [(Move("DISCARD", card_index=0), 0),
                                       (Move("CONSTRUCT_BUILDING", card_index=1), 3)]




@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    system: str
    legal_moves: bool
    # The state JSON on one line without spaces: about 35% fewer tokens than the indented form,
    # which is most of a turn's cost for a small model on a CPU.
    compact_state: bool = False

    @cached_property
    def hash(self) -> str:
        """Stable across runs and machines: changes exactly when the rules text or the turn
        message (its wording, or whether it lists the legal moves) changes. The name and the
        description are not part of it."""
        h = hashlib.sha256()
        h.update(self.system.encode())
        h.update(f"\0turn:{TURN_TEMPLATE_VERSION}:legal={self.legal_moves}\0".encode())
        if self.compact_state:  # only then: the other variants keep the hashes they had
            h.update(b"compact_state\0")
        h.update(self.turn_message(_HASH_VIEW, _HASH_MOVES).encode())
        return h.hexdigest()[:16]

    def token_estimate(self) -> int:
        """Rough size in tokens (about 4 characters each for English and JSON)."""
        return (len(self.system) + 3) // 4

    def turn_message(self, view: dict[str, Any], priced: list[tuple[Move, int]]) -> str:
        """The per-move message: the state as the LLM seat sees it, and what to answer."""
        parts = [
            "Here is the current game state (you are player2):",
            json.dumps(view, separators=(",", ":")) if self.compact_state
            else json.dumps(view, indent=1),
            f'The step is {view["step"]} and it is your move.',
        ]
        if self.legal_moves:
            lines = []
            for move, price in priced:
                cost = f"  (costs {price} coins)" if price else ""
                lines.append(json.dumps(move.to_json()) + cost)
            parts.append("Your legal moves are:\n" + "\n".join(lines))
        parts.append('Answer with only the JSON object of your move, in the form '
                     '{"move": ..., "moveData": {...}}.')
        return "\n\n".join(parts)


def _text(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


_PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")


def _tables(text: str, source: str) -> str:
    """`text` with each ``{{NAME}}`` placeholder replaced by that table."""
    def table(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in TABLES:
            raise PromptError(f"{source}: unknown table {{{{{name}}}}}; valid: "
                              + ", ".join(TABLES))
        return TABLES[name]()

    return _PLACEHOLDER.sub(table, text)


def _build(spec: dict[str, Any], source: str) -> Variant:
    try:
        system = _tables(_text(spec["rules"]), source)
        for edit in spec.get("replace", []):
            if not edit["old"]:
                raise PromptError(f"{source}: an empty replacement target")
            count = system.count(edit["old"])
            if count != 1:
                raise PromptError(f"{source}: replacement text found {count} times, not once: "
                                  f"{edit['old'][:60]!r}")
            system = system.replace(edit["old"], edit["new"])
        for cut in spec.get("cut", []):
            # the span from `start` up to (not including) `end`; each marker must occur once
            for key in ("start", "end"):
                count = system.count(cut[key])
                if count != 1:
                    raise PromptError(f"{source}: cut marker found {count} times, not once: "
                                      f"{cut[key][:60]!r}")
            start = system.find(cut["start"])
            end = system.find(cut["end"])
            if end <= start:
                raise PromptError(f"{source}: cut end marker comes before its start: "
                                  f"{cut['end'][:60]!r}")
            system = system[:start] + system[end:]
        for name in spec.get("addenda", []):
            system += _text(name)
        return Variant(spec["name"], spec["description"], system, bool(spec["legal_moves"]),
                       bool(spec.get("compact_state", False)))
    except KeyError as exc:
        raise PromptError(f"{source}: missing field {exc}") from None


@cache
def variants() -> dict[str, Variant]:
    """Every shipped variant by name."""
    out = {}
    folder = resources.files(__package__).joinpath("variants")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            spec = tomllib.loads(entry.read_text(encoding="utf-8"))
            variant = _build(spec, entry.name)
            out[variant.name] = variant
    return out


def get_variant(name: str) -> Variant:
    table = variants()
    if name not in table:
        raise PromptError(f"unknown prompt variant {name!r}; valid: {', '.join(table)}")
    return table[name]
