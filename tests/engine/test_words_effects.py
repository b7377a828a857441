"""The one table of effects (duel.words.effects): every row is some card's or wonder's, both
readers list the same effects in the same order (the people's words leave out only what the
pages show elsewhere), and a guild reads alike in both."""

from __future__ import annotations

from duel.engine.data import CARDS, WONDERS
from duel.prompts.reference import card_effect, wonder_effect
from duel.words.cards import card_effects, wonder_effects
from duel.words.effects import TABLE, of_card, of_wonder


def test_every_row_is_used_and_both_readers_list_the_same_effects() -> None:
    used = set()
    for thing, effects, people, prompt in (
            [(c, of_card(c), card_effects(c), card_effect(c)) for c in CARDS]
            + [(w, of_wonder(w), wonder_effects(w), wonder_effect(w)) for w in WONDERS]):
        used |= {e.kind for e in effects}
        shown = [e for e in effects if TABLE[e.kind].people is not None]
        assert len(people) == len(shown), thing.name
        assert len(prompt.split("; ")) == len(effects) or not effects, thing.name
    assert used == set(TABLE)


def test_a_guild_in_both_phrasings() -> None:
    guild = next(c for c in CARDS if c.name == "MERCHANTS_GUILD")
    assert card_effect(guild) == ("take 1 coin per yellow card in the city with the most; "
                                  "at the end 1 VP per yellow card in the city with the most")
    assert [e["text"] for e in card_effects(guild)] == card_effect(guild).split("; ")
