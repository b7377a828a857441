"""Game codes: one alphabet, two meanings. A deal's code is a hash (the same deal, the same
code, release after release); a random code is drawn from a generator (the server's)."""

from __future__ import annotations

import random

from duel.engine import Deal, new_game
from duel.engine.codes import CODE_ALPHABET, CODE_LENGTH, deal_code, random_code


def test_a_deal_s_code_is_a_stable_hash_of_the_deal() -> None:
    # Codes of seeded games are in transcripts and documents: they must never change.
    assert new_game(seed=1).code == "5MTNqBtU"
    assert new_game(seed=123).code == "mmtas6YW"
    deal = Deal.random(random.Random(5))
    assert deal_code(deal) == deal_code(Deal.from_json(deal.to_json()))
    assert deal_code(deal) != deal_code(Deal.random(random.Random(6)))


def test_random_codes_use_the_same_alphabet() -> None:
    codes = {random_code(random.Random(i)) for i in range(200)}
    assert len(codes) == 200
    for code in codes:
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    assert random_code(random.Random(7)) == random_code(random.Random(7))


def test_the_alphabet_has_no_look_alike_characters() -> None:
    assert not set("0O1lI") & set(CODE_ALPHABET)
    assert len(set(CODE_ALPHABET)) == len(CODE_ALPHABET)
