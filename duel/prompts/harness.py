"""Harness settings of the LLM seat: what the seat is given and asked besides the prompt variant,
as options of its spec (``llm:PROVIDER:MODEL,history=all,think=text``).

One typed record, :class:`Harness`, and one table, :data:`OPTIONS`, that parses each setting's
text and names its valid values. A setting is added by a field of `Harness` and a row of
`OPTIONS` (its default's text must parse to the field's default); everything else (the spec's
options, the error naming the valid values, the label a transcript, a report and a grading
folder use) follows from the table.

A harness is recorded as its label: the settings that differ from the defaults, in the table's
order, ``history=all,think=text``; the defaults' label is ``default``. The label is written in
the transcript header (the seat's prompt record), in every call record of a seat whose harness
is not the default, and it names the variant in ``duel grade --variants``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from duel.errors import SpecError

DEFAULT_LABEL = "default"
HISTORY_ALL = -1  # history=all: every move of the game so far
NOTE_CHARS = 400  # a note longer than this is cut (the prompt says so)
# think=text's output budget when the spec sets none: room for the reasoning and the move
THINK_TOKENS = 2048
# think=text's reasoning where the server's grammar holds the reply to the schema (llm:local,
# llm:compat): a maxLength, so a small model that rambles closes its reasoning and moves instead
# of writing to the output budget and being cut off (the shipped 0.5B model did, at ~8 tokens/s)
THINK_CHARS = 1000


def _history(text: str) -> int:
    if text == "all":
        return HISTORY_ALL
    if text == "off":
        return 0
    if text.isascii() and text.isdigit() and int(text) > 0:
        return int(text)
    raise ValueError(text)  # caught here: told as a SpecError naming the valid values


def _history_text(value: int) -> str:
    return "all" if value == HISTORY_ALL else "off" if value == 0 else str(value)


def _choice(*values: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in values:
            raise ValueError(text)  # caught here: told as a SpecError naming the valid values
        return text
    return parse


def _names(text: str) -> str:
    """true, renamed (seed 1) or renamed:N (seed N, 0 or more)."""
    if text in ("true", "renamed"):
        return text
    head, sep, seed = text.partition(":")
    if head == "renamed" and sep and seed.isascii() and seed.isdigit():
        return f"renamed:{int(seed)}"
    raise ValueError(text)  # caught here: told as a SpecError naming the valid values


def _switch(text: str) -> bool:
    if text not in ("on", "off"):
        raise ValueError(text)  # caught here: told as a SpecError naming the valid values
    return text == "on"


@dataclass(frozen=True)
class Option:
    """One harness setting: its field, the text of its default, its valid values in words,
    how its text is read (ValueError if invalid) and written, and its help line."""

    name: str
    default: str
    valid: str
    parse: Callable[[str], Any]
    text: Callable[[Any], str]
    help: str


OPTIONS: dict[str, Option] = {o.name: o for o in (
    Option("history", "off", "off, all or a number of moves N (1 or more)", _history,
           _history_text, "the last N moves of the game (or all) in words, as the seat saw them"),
    Option("notes", "off", "on or off", _switch, lambda v: "on" if v else "off",
           f"the model may keep a note of at most {NOTE_CHARS} characters with its move, and "
           "gets its last note back next turn (private to the seat until the game is over)"),
    Option("think", "off", "off or text", _choice("off", "text"), str,
           "text: free-text reasoning before the move (a 'reasoning' field before the move "
           "under structured output), recorded as the call's thinking"),
    Option("names", "true", "true, renamed or renamed:N (a seed)", _names, str,
           "renamed: every card, wonder and progress token gets a seeded invented name in all "
           "the model sees and says, mapped back before the engine sees the move"),
    Option("image", "off", "on or off", _switch, lambda v: "on" if v else "off",
           "on: the seat's board drawn as a PNG, sent with each turn to a vision model"),
)}


@dataclass(frozen=True)
class Harness:
    """The seat's harness settings (see the module docstring); the defaults are duel's plain
    seat: the rules prompt and the current state, answered with the move JSON alone."""

    history: int = 0  # moves shown: 0 none, HISTORY_ALL all
    notes: bool = False
    think: str = "off"
    names: str = "true"  # true, renamed (seed 1) or renamed:N
    image: bool = False

    @staticmethod
    def from_options(given: Mapping[str, str]) -> Harness:
        """The harness of these settings' texts (the rest default). SpecError names an
        unknown setting, or a bad value and the valid ones."""
        values: dict[str, Any] = {}
        for key, text in given.items():
            option = OPTIONS.get(key)
            if option is None:
                raise SpecError(f"llm: unknown harness setting {key!r}; valid settings: "
                                f"{', '.join(OPTIONS)}")
            try:
                values[key] = option.parse(text.strip())
            except ValueError:
                raise SpecError(f"llm: {key} must be {option.valid}, got {text!r}") from None
        return replace(Harness(), **values)

    @staticmethod
    def from_label(label: str) -> Harness:
        """The harness a label names (``default``, or ``k=v,k=v``)."""
        if label == DEFAULT_LABEL:
            return Harness()
        pairs = [item.partition("=") for item in label.split(",") if item]
        bad = [k for k, sep, _ in pairs if not sep]
        if bad:
            raise SpecError(f"llm: expected harness settings as key=value, got {bad[0]!r}")
        return Harness.from_options({k.strip(): v for k, _, v in pairs})

    def options(self) -> dict[str, str]:
        """The settings that differ from the defaults, as spec texts, in the table's order."""
        out = {}
        for f in fields(self):
            option = OPTIONS[f.name]
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = option.text(value)
        return out

    @property
    def label(self) -> str:
        """``history=all,think=text``; ``default`` when nothing is set."""
        opts = self.options()
        return ",".join(f"{k}={v}" for k, v in opts.items()) if opts else DEFAULT_LABEL

    @property
    def is_default(self) -> bool:
        return not self.options()

    @property
    def renaming_seed(self) -> int | None:
        """The seed of the invented names, or None for the true ones."""
        if self.names == "true":
            return None
        return int(self.names.partition(":")[2] or 1)

    def needs_game(self) -> list[str]:
        """The settings that mean something only in a game played from its start (a position
        asked on its own has no earlier moves and no earlier note)."""
        return [k for k in ("history", "notes") if k in self.options()]


def _check_table() -> None:
    """Each option's default text must read as its field's default (a setting added in one
    place only fails at import, in every test)."""
    names = [f.name for f in fields(Harness)]
    if names != list(OPTIONS):
        raise SpecError(f"harness fields {names} and options {list(OPTIONS)} differ")
    for f in fields(Harness):
        if OPTIONS[f.name].parse(OPTIONS[f.name].default) != f.default:
            raise SpecError(f"harness option {f.name}: its default text does not read as "
                            f"{f.default!r}")


_check_table()
