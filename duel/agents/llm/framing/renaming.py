"""``names=renamed``: every card, wonder and progress token is given an invented name, the same
all game long, in everything the model is sent (the rules prompt, the states, the game so far,
the legal moves, the re-ask reasons, the reply schema) and mapped back in everything it answers,
before the engine sees the move. It separates playing from recalling what the web says about
7 Wonders Duel's cards (plybench's "obfuscated" games, OpenSpiel issue #1586).

The invented names are pronounceable words drawn from a seeded generator (``renamed`` is seed 1,
``renamed:N`` seed N), so a run is reproducible; none is a word of the rules prompt, so mapping
back is never ambiguous. A name is renamed in each form it is written in: the identifier
(``THE_HANGING_GARDENS``), the words of duel.words (``The Hanging Gardens``), those words without
"The", in lower case when they are more than one word, and the rules prompt's own spellings of
it (``Puraeus``). The transcript keeps the true names (the replies are recorded mapped back),
and its header records the mapping.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from typing import Any

from duel import words
from duel.engine import CARD_NAMES
from duel.engine.data import TOKEN_NAMES, WONDERS

_ONSETS = "b d f g k l m n p r s t v z br dr gr kr pl st tr".split()
_VOWELS = "a e i o u ai ei ou".split()
_CODAS = ["", "", "", "n", "r", "s", "l", "x"]
# The rules prompt's other spellings of a name (its misspellings and short forms).
ALIASES: dict[str, tuple[str, ...]] = {"PIRAEUS": ("Puraeus",)}


def true_names() -> list[str]:
    """Every card, wonder and progress token, as the prompt's JSON writes them."""
    wonders = [w if isinstance(w, str) else w.name for w in WONDERS]
    return [*CARD_NAMES, *wonders, *TOKEN_NAMES]


def forms(identifier: str) -> list[str]:
    """The ways a name is written for the model (see the module docstring)."""
    title = words.name(identifier)
    out = [identifier, title]
    if title.startswith("The "):
        out.append(title[4:])
    out += [f.lower() for f in out[1:] if " " in f]
    out += ALIASES.get(identifier, ())
    return list(dict.fromkeys(out))


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS)
                   for _ in range(rng.choice((2, 3)))).upper()


def _pattern(keys: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")


class Renaming:
    """A seeded renaming and its inverse, over texts and JSON values."""

    def __init__(self, seed: int, avoid: str = "") -> None:
        rng = random.Random(f"duel-renaming-{seed}")
        taken = {w.upper() for w in re.findall(r"[A-Za-z]+", avoid)}
        taken |= {part for n in true_names() for part in n.split("_")}
        self.seed = seed
        self.names: dict[str, str] = {}
        for name in true_names():
            word = _word(rng)
            while word in taken:
                word = _word(rng)
            taken.add(word)
            self.names[name] = word
        out: dict[str, str] = {}
        back: dict[str, str] = {}
        for name, new in self.names.items():
            new_forms = {name: new, words.name(name): words.name(new)}
            for f in forms(name):
                out[f] = new_forms.get(f, new.lower() if f.islower() else words.name(new))
            back[new] = name
            back[words.name(new)] = words.name(name)
            back[new.lower()] = words.name(name).lower()
        self._out, self._back = out, back
        self._out_re, self._back_re = _pattern(out), _pattern(back)
        self._systems: dict[str, str] = {}  # a rules text is renamed once (0.2 s for 40 kB)

    def text(self, text: str) -> str:
        """`text` with every true name renamed."""
        return self._out_re.sub(lambda m: self._out[m.group(0)], text)

    def text_back(self, text: str) -> str:
        """`text` with every invented name mapped back to the true one."""
        return self._back_re.sub(lambda m: self._back[m.group(0)], text)

    def json(self, value: Any, back: bool = False) -> Any:
        """A JSON value with its strings (keys too) renamed, or mapped back."""
        f = self.text_back if back else self.text
        if isinstance(value, str):
            return f(value)
        if isinstance(value, list):
            return [self.json(v, back) for v in value]
        if isinstance(value, dict):
            return {f(k): self.json(v, back) for k, v in value.items()}
        return value

    def outgoing(self, system: str, messages: list[dict[str, Any]],
                 schema: dict[str, Any] | None) -> tuple[str, list[dict[str, Any]],
                                                          dict[str, Any] | None]:
        if system not in self._systems:
            self._systems[system] = self.text(system)
        return (self._systems[system],
                [{**m, "content": self.json(m["content"])} for m in messages],
                None if schema is None else self.json(schema))

    def incoming(self, reply: Any) -> Any:
        """A provider's Reply with the invented names mapped back (what is recorded)."""
        return replace(reply, text=self.text_back(reply.text),
                       structured=self.json(reply.structured, back=True),
                       raw=None if reply.raw is None else self.text_back(reply.raw),
                       thinking=self.text_back(reply.thinking))

    def record(self) -> dict[str, Any]:
        """The mapping as the transcript header records it."""
        return {"seed": self.seed, "names": dict(self.names)}


@cache
def renaming(seed: int, system: str) -> Renaming:
    """The renaming of `seed` for a rules text (made once per process)."""
    return Renaming(seed, system)
