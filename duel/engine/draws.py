"""`random.Random.shuffle` and `.choice`, drawing exactly the same numbers from the same
generator, written here so that mypyc compiles them: the standard library's are Python code
(random.py), a tenth of a search's time in the compiled build (py-spy). Only the generator's
C method `getrandbits` is called, as random.py's own `_randbelow` does; tests compare the two
for many seeds and lengths, so a Python whose random.py draws differently fails them."""

from __future__ import annotations

import random
from typing import TypeVar

T = TypeVar("T")


def below(rng: random.Random, n: int) -> int:
    """random.Random._randbelow_with_getrandbits: uniform in [0, n), n > 0."""
    k = n.bit_length()
    r: int = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, x: list[int]) -> None:
    """rng.shuffle(x), the same permutation."""
    # `below` inlined with the bound method looked up once: a sample of an information set
    # shuffles about a hundred cards, and the lookups were most of `below`'s time (py-spy).
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def choice(rng: random.Random, seq: list[T]) -> T:
    """rng.choice(seq), the same element (seq not empty)."""
    return seq[below(rng, len(seq))]
