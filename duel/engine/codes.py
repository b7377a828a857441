"""Game codes: 8 characters from one alphabet (no 0/O, 1/l/I, so a code read aloud or copied by
hand survives).

The alphabet has two uses with two meanings:

- :func:`deal_code` hashes a deal, so the same deal always shows the same code (a replay, a
  match from a seed);
- :func:`random_code` draws a code at random, so every game the server creates has its own,
  even two games on the same deal.
"""

from __future__ import annotations

import hashlib
import json
import random

from .deal import Deal

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
CODE_LENGTH = 8


def deal_code(deal: Deal) -> str:
    """The game code: 8 characters that depend on the deal only, so a replay shows the same."""
    digest = hashlib.sha256(json.dumps(deal.to_json(), sort_keys=True).encode()).digest()
    return "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest[:CODE_LENGTH])


def random_code(rng: random.Random) -> str:
    """A code drawn from `rng` (the server passes `secrets.SystemRandom()`, so codes cannot be
    guessed from one another)."""
    return "".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
