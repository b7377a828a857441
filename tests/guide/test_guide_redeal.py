"""Redealing a complete state (what a capped chance node does) keeps every public fact and draws
the hidden ones afresh, into a state that plays on by the rules."""

from __future__ import annotations

import random

from helpers.games import random_game_states

from duel.agents.guided.features import encode
from duel.agents.guided.redeal import redeal
from duel.agents.guided.search import reveal_key
from duel.engine.playout import random_game
from duel.engine.steps import GAME_END, WONDER_SELECTION


def _public(state: object) -> tuple[object, ...]:
    idx: list[int] = []
    val: list[float] = []
    encode(state, idx, val)  # type: ignore[arg-type]
    s = state
    return (tuple(idx), tuple(val), tuple(s.legal_moves()),  # type: ignore[attr-defined]
            reveal_key(s) if s.step != WONDER_SELECTION else ())  # type: ignore[attr-defined]


def _cards(state: object) -> list[int]:
    s = state
    d = s.deal  # type: ignore[attr-defined]
    cards = [c for c in s.pyramid if c >= 0] + s.players[0].cards + s.players[1].cards  # type: ignore[attr-defined]
    cards += s.discard  # type: ignore[attr-defined]
    for age in range(s.age + 1, 4):  # type: ignore[attr-defined]
        cards += list(d.age(age))
    return cards


def test_redeal_keeps_the_public_facts_and_plays_on() -> None:
    changed = 0
    for seed in range(25):
        for ply, state in enumerate(random_game_states(seed)):
            if state.step == GAME_END or ply % 7:
                continue
            again = redeal(state, random.Random(ply))
            assert _public(again) == _public(state)
            cards = _cards(again)
            assert len(set(cards)) == len(cards)
            changed += again.deal != state.deal or again.pyramid != state.pyramid
            assert state.legal_moves()  # untouched
            random_game(again, random.Random(seed))
            assert again.step == GAME_END
    assert changed > 100


def test_redeal_draws_the_drafts_second_round_while_the_first_is_on() -> None:
    state = random_game_states(3)[1]  # one wonder drafted
    assert state.step == WONDER_SELECTION and state.draft_pick == 1
    rounds = {redeal(state, random.Random(k)).deal.wonder_draft[4:] for k in range(20)}
    assert len(rounds) > 5
    assert all(set(r).isdisjoint(state.deal.wonder_draft[:4]) for r in rounds)
    layouts = {tuple(redeal(state, random.Random(k)).pyramid) for k in range(5)}
    assert len(layouts) == 5  # Age I is not shown during the draft: it is dealt afresh too
