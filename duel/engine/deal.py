"""A deal: all the randomness of one game, drawn at setup (format in docs/deal-format.md)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .data import (
    AGE1_CARDS,
    AGE2_CARDS,
    AGE3_CARDS,
    CARD_IDS,
    CARD_NAMES,
    GUILD_CARDS,
    TOKEN_IDS,
    TOKEN_NAMES,
    WONDER_IDS,
    WONDER_NAMES,
)
from .draws import shuffle
from .moves import InvalidStateError
from .names import ids_of


@dataclass(frozen=True, slots=True)
class Deal:
    """Ids of wonders, tokens and cards, in the orders docs/deal-format.md gives."""

    wonder_draft: tuple[int, ...]  # 8: 4 for round 1, then 4 for round 2
    wonders_out: tuple[int, ...]  # 4
    tokens_board: tuple[int, ...]  # 5
    tokens_box: tuple[int, ...]  # 5, in the order the Great Library draws them
    age1: tuple[int, ...]  # 20 card ids by slot
    age2: tuple[int, ...]
    age3: tuple[int, ...]  # guilds included
    removed1: tuple[int, ...]  # 3
    removed2: tuple[int, ...]
    removed3: tuple[int, ...]
    removed_guilds: tuple[int, ...]  # 4

    def __reduce__(self) -> tuple[type[Deal], tuple[tuple[int, ...], ...]]:
        # Through the constructor: a compiled (mypyc) frozen dataclass cannot be unpickled
        # attribute by attribute.
        return (Deal, (self.wonder_draft, self.wonders_out, self.tokens_board, self.tokens_box,
                       self.age1, self.age2, self.age3, self.removed1, self.removed2,
                       self.removed3, self.removed_guilds))

    def age(self, age: int) -> tuple[int, ...]:
        return (self.age1, self.age2, self.age3)[age - 1]

    @staticmethod
    def random(rng: random.Random) -> Deal:
        """Draw a deal; the only place setup randomness is consumed."""
        wonders = list(range(len(WONDER_NAMES)))
        shuffle(rng, wonders)
        tokens = list(range(len(TOKEN_NAMES)))
        shuffle(rng, tokens)
        a1 = list(AGE1_CARDS)
        shuffle(rng, a1)
        a2 = list(AGE2_CARDS)
        shuffle(rng, a2)
        a3 = list(AGE3_CARDS)
        shuffle(rng, a3)
        guilds = list(GUILD_CARDS)
        shuffle(rng, guilds)
        layout3 = a3[:17] + guilds[:3]
        shuffle(rng, layout3)
        return Deal(
            wonder_draft=tuple(wonders[:8]), wonders_out=tuple(wonders[8:]),
            tokens_board=tuple(tokens[:5]), tokens_box=tuple(tokens[5:]),
            age1=tuple(a1[:20]), age2=tuple(a2[:20]), age3=tuple(layout3),
            removed1=tuple(a1[20:]), removed2=tuple(a2[20:]), removed3=tuple(a3[17:]),
            removed_guilds=tuple(guilds[3:]),
        )

    def to_json(self) -> dict[str, Any]:
        def cards(ids: tuple[int, ...]) -> list[str]:
            return [CARD_NAMES[i] for i in ids]

        return {
            "wonderDraft": [WONDER_NAMES[w] for w in self.wonder_draft],
            "wondersOut": [WONDER_NAMES[w] for w in self.wonders_out],
            "tokensBoard": [TOKEN_NAMES[t] for t in self.tokens_board],
            "tokensBox": [TOKEN_NAMES[t] for t in self.tokens_box],
            "age1": cards(self.age1), "age2": cards(self.age2), "age3": cards(self.age3),
            "removed": {"age1": cards(self.removed1), "age2": cards(self.removed2),
                        "age3": cards(self.removed3), "guilds": cards(self.removed_guilds)},
        }

    @staticmethod
    def from_json(obj: Any) -> Deal:
        """Parse and check a deal: every name known, every card, wonder and token exactly once."""
        if not isinstance(obj, dict):
            raise InvalidStateError("a deal must be a JSON object")
        removed = obj.get("removed")
        if not isinstance(removed, dict):
            raise InvalidStateError('deal needs a "removed" object with age1, age2, age3, guilds')

        def names(value: Any, field: str, table: dict[str, int], count: int) -> tuple[int, ...]:
            return tuple(ids_of(value, table, f"deal {field}", count))

        deal = Deal(
            wonder_draft=names(obj.get("wonderDraft"), "wonderDraft", WONDER_IDS, 8),
            wonders_out=names(obj.get("wondersOut"), "wondersOut", WONDER_IDS, 4),
            tokens_board=names(obj.get("tokensBoard"), "tokensBoard", TOKEN_IDS, 5),
            tokens_box=names(obj.get("tokensBox"), "tokensBox", TOKEN_IDS, 5),
            age1=names(obj.get("age1"), "age1", CARD_IDS, 20),
            age2=names(obj.get("age2"), "age2", CARD_IDS, 20),
            age3=names(obj.get("age3"), "age3", CARD_IDS, 20),
            removed1=names(removed.get("age1"), "removed.age1", CARD_IDS, 3),
            removed2=names(removed.get("age2"), "removed.age2", CARD_IDS, 3),
            removed3=names(removed.get("age3"), "removed.age3", CARD_IDS, 3),
            removed_guilds=names(removed.get("guilds"), "removed.guilds", CARD_IDS, 4),
        )
        if set(deal.wonder_draft) | set(deal.wonders_out) != set(range(len(WONDER_NAMES))):
            raise InvalidStateError("deal wonderDraft + wondersOut must hold all 12 wonders once")
        if set(deal.tokens_board) | set(deal.tokens_box) != set(range(len(TOKEN_NAMES))):
            raise InvalidStateError("deal tokensBoard + tokensBox must hold all 10 tokens once")
        if set(deal.age1) | set(deal.removed1) != set(AGE1_CARDS):
            raise InvalidStateError("deal age1 + removed.age1 must hold the 23 Age I cards once")
        if set(deal.age2) | set(deal.removed2) != set(AGE2_CARDS):
            raise InvalidStateError("deal age2 + removed.age2 must hold the 23 Age II cards once")
        age3 = set(deal.age3)
        if (age3 | set(deal.removed3) | set(deal.removed_guilds)
                != set(AGE3_CARDS) | set(GUILD_CARDS)
                or len(age3 & set(GUILD_CARDS)) != 3):
            raise InvalidStateError(
                "deal age3 must hold 17 Age III cards and 3 guilds; removed.age3 the other 3 "
                "Age III cards and removed.guilds the other 4 guilds")
        return deal
