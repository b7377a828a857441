"""The state's fields, declared once: the positional clone and copy keep every field in its place,
a city read from JSON has the very caches a played one has, a card leaves a city exactly as it
came in, and the price book is shared and bounded."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from helpers.games import random_game_states

from duel.engine import InfoSet, new_game, seat_view
from duel.engine.data import CARD_IDS, CARDS
from duel.engine.pricing import UNKNOWN, PriceBook
from duel.engine.state import GameState, PlayerState


def _states(seed: int) -> list[GameState]:
    return random_game_states(seed)


def _fields(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name not in skip}


@pytest.mark.parametrize("seed", [0, 7])
def test_clone_and_copy_keep_every_field_in_its_place(seed: int) -> None:
    """`clone` and `PlayerState.copy` call the constructor positionally (for speed): every field
    must land in its own place, and no list may be shared with the original."""
    for state in _states(seed)[::5]:
        twin = state.clone()
        assert _fields(twin, ("players",)) == _fields(state, ("players",))
        for p, q in zip(state.players, twin.players, strict=True):
            assert _fields(q) == _fields(p)
            # The price table is the book's, shared on purpose (see pricing.PriceBook).
            assert all(getattr(q, name) is not value for name, value in _fields(p).items()
                       if isinstance(value, list) and name != "table")
            assert q.table is p.table
        assert all(getattr(twin, name) is not value for name, value in _fields(state).items()
                   if isinstance(value, list))
        assert twin.prices is state.prices and twin.deal is state.deal


@pytest.mark.parametrize("seed", [1, 2])
def test_a_city_read_from_its_view_is_the_city_played(seed: int) -> None:
    """The loader fills a city with the same methods the moves use: production, discounts,
    wildcards, science symbols and tokens all equal the played game's (the view groups the
    cards by colour, so only their order may differ)."""
    for state in _states(seed)[8::4]:
        read = InfoSet.from_view(seat_view(state)).template
        for p, q in zip(state.players, read.players, strict=True):
            assert _fields(q, ("table", "cards")) == _fields(p, ("table", "cards"))
            assert sorted(q.cards) == sorted(p.cards)


def test_remove_card_is_the_inverse_of_add_card() -> None:
    """For every card, from an empty city and from one holding a card with the same science
    symbol (so the pair forms and unforms)."""
    for card in range(len(CARDS)):
        for start in ((), tuple(c.id for c in CARDS if c.id != card
                                and c.symbol == CARDS[card].symbol >= 0)[:1]):
            city = PlayerState.new()
            for other in start:
                city.add_card(other)
            before = _fields(city)
            changed = city.add_card(card)
            assert city.has_card(card)
            assert city.remove_card(card) == changed
            assert _fields(city) == before, CARDS[card].name


def test_out_of_turn_leaves_the_state_alone() -> None:
    state = next(s for s in _states(3) if s.step_name == "PLAY_CARD" and s.age == 1
                 and s.remaining == 20)
    before = seat_view(state)
    probe = state.out_of_turn(1 - state.current)
    assert probe.current == 1 - state.current and seat_view(state) == before
    # Slot 14 lies on slot 9 with slot 15: taking 14 and then 15 uncovers 9.
    first = state.out_of_turn(state.current, without_slot=14)
    second = first.out_of_turn(state.current, without_slot=15)
    assert first.pyramid[14] == -1 and not (first.accessible >> 9) & 1
    assert (second.accessible >> 9) & 1 and state.pyramid[14] >= 0


def test_the_price_book_is_shared_by_a_game_and_its_samples() -> None:
    book = PriceBook()
    state = new_game(4, prices=book)
    assert state.prices is book and state.apply(state.legal_moves()[0]).prices is book
    assert new_game(4).prices is not book
    info = InfoSet.from_view(seat_view(_states(4)[20]))
    a, b = info.sample(random.Random(0)), info.sample(random.Random(1))
    assert a.prices is b.prices is info.template.prices


def test_the_price_book_is_bounded() -> None:
    book = PriceBook(limit=2)
    book.table(1)[CARD_IDS["BATHS"]] = 3
    book.table(2)
    assert len(book) == 2 and book.table(1)[CARD_IDS["BATHS"]] == 3
    book.table(3)  # a third context: the book starts over
    assert len(book) == 1 and set(book.table(1)) == {UNKNOWN}


def test_a_full_book_prices_as_an_empty_one() -> None:
    """Starting over costs only recomputation: a game priced with a one-context book plays
    exactly as with the default book."""
    rng_a, rng_b = random.Random(5), random.Random(5)
    a, b = new_game(5), new_game(5, prices=PriceBook(limit=1))
    while not a.is_terminal():
        assert a.priced_moves() == b.priced_moves()
        move = rng_a.choice(a.legal_moves())
        assert move == rng_b.choice(b.legal_moves())
        a, b = a.apply(move), b.apply(move)
    assert a.result() == b.result()
