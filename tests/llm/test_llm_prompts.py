"""Prompt variants: the shipped rules text is the seed verbatim, each variant's edits apply exactly,
errata fixes every error docs/rules.md §12 lists in the prompt, hashes are stable."""

from __future__ import annotations

import hashlib
import json
import random
from importlib import resources
from pathlib import Path

import pytest

from duel.engine import Move, new_game
from duel.engine.perspective import Perspective
from duel.errors import PromptError
from duel.prompts import Variant, _build, get_variant, variants

SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "002_326d1932c0ab76b2.txt"
SEED_SHA256 = "75ed6239ac31d1cd26e539216eb0ab9be200595fabc06763d5a1971b6498fa19"


def shipped(name: str) -> str:
    return resources.files("duel.prompts").joinpath(name).read_text(encoding="utf-8")


def test_rules_prompt_is_the_seed_byte_for_byte() -> None:
    data = resources.files("duel.prompts").joinpath("rules_prompt.txt").read_bytes()
    assert hashlib.sha256(data).hexdigest() == SEED_SHA256
    if SEED.exists():  # shared/ beside the repository, as on CI
        assert data == SEED.read_bytes()


def test_baseline_is_the_seed_then_the_addendum() -> None:
    base = get_variant("baseline")
    addendum = shipped("addendum_choose_starting_player.txt")
    assert base.system == shipped("rules_prompt.txt") + addendum
    assert "CHOOSE_STARTING_PLAYER" in addendum and '"playerNumber"' in addendum
    assert not base.legal_moves


def test_every_variant_has_a_name_description_and_stable_hash() -> None:
    table = variants()
    assert {"baseline", "errata", "legal-moves", "compact"} <= set(table)
    for name, v in table.items():
        assert v.name == name and v.description
        assert len(v.hash) == 16 and int(v.hash, 16) >= 0
        again = Variant(v.name, v.description, v.system, v.legal_moves, v.compact_state)
        assert again.hash == v.hash  # a function of the content only
    # different prompts, different hashes (null is the baseline under another name)
    distinct = {table[n].hash for n in ("baseline", "errata", "legal-moves", "compact")}
    assert len(distinct) == 4
    assert table["null"].hash == table["baseline"].hash
    assert all(v.system.startswith("You are a player in the strategic board game 7 Wonders Duel.")
               for v in table.values())


def test_the_hash_follows_the_turn_message_wording(monkeypatch: pytest.MonkeyPatch) -> None:
    v = get_variant("baseline")
    before = Variant(v.name, v.description, v.system, v.legal_moves).hash
    original = Variant.turn_message

    def reworded(self, view, priced):  # type: ignore[no-untyped-def]
        return original(self, view, priced).replace("Answer with", "Reply with")

    monkeypatch.setattr(Variant, "turn_message", reworded)
    assert Variant(v.name, v.description, v.system, v.legal_moves).hash != before


# Each error of the seed that docs/rules.md §12 lists: the wrong text, and the corrected text.
ERRATA = [
    ("CLAY_RESERVE\ntrade: BRICK for 1\nCOST\nfree\n",
     "CLAY_RESERVE\ntrade: BRICK for 1\nCOST\nmonetary cost: 3\n"),
    ("built in your city\nCOST\nresource cost: 1 WOOD, 1 GLASS, 1 PAPYRUS",
     "built in your city\nvp: 3\nCOST\nresource cost: 1 WOOD, 1 GLASS, 1 PAPYRUS"),
    ("LIGHTHOUSE\nreceive 1 coin per commercial building (yellow card) built in your city\n",
     "the Lighthouse itself included"),
    ("already built the prerequisite building for free",
     "the prerequisite building is in your city"),
    ("[14][15][16][17][18] [19] <- row 5", "[14][15][16][17][18][19] <- row 5"),
    ("the 1-to-2 zone", "the -3 to -5 zone"),
    ("the pawn has already entered the zone causing player 1 to lose 5 coins",
     "true while the 5-coin token on player 1's side is still on the board"),
    ("the pawn has already entered the zone causing player 1 to lose 2 coins",
     "true while the 2-coin token on player 1's side is still on the board"),
    ("the pawn has already entered the zone causing player 2 to lose 5 coins",
     "true while the 5-coin token on player 2's side is still on the board"),
    ('"loot2Player2Available" - the pawn has already entered the zone causing player 2 to lose 5',
     "true while the 2-coin token on player 2's side is still on the board"),
    ("Resource producing wonders (Great Library, Piraeus)",
     "Resource producing wonders (The Great Lighthouse, Piraeus)"),
    ("Appian Way/Artemis", "The Appian Way is ideal (Artemis only gives you coins)"),
    ("Puraeus", "Sphinx, Piraeus)"),
    (None, "Each player starts with 7 coins"),
    (None, "Three cards of each Age deck are removed unseen, and 3 of the 7 Guilds are shuffled"),
    (None, 'A "play again" earned with the last card of an Age is lost.'),
    ("green card in that same city", "in the city which has the most green cards at the end"),
    ('"position"-the current position', '"militaryPosition" - the current position'),
]


@pytest.mark.parametrize("wrong, right", ERRATA)
def test_errata_corrects_each_error_of_the_prompt(wrong: str | None, right: str) -> None:
    base, errata = get_variant("baseline").system, get_variant("errata").system
    if wrong is not None:
        assert wrong in base
        assert wrong not in errata
    assert right not in base
    assert right in errata


def test_errata_keeps_the_rest_and_the_start_player_addendum() -> None:
    errata = get_variant("errata").system
    assert errata.endswith(shipped("addendum_choose_starting_player.txt"))
    assert "General strategic advice" in errata and not get_variant("errata").legal_moves


def test_compact_drops_the_strategy_advice_and_keeps_rules_and_formats() -> None:
    compact = get_variant("compact").system
    for advice in ("General strategic advice", "Tempo is often worth more",
                   "General order of importance", "Before you pick, list every"):
        assert advice not in compact
    for kept in ("COST = 2 + number of symbols", "Age 3 is constructed as follows",
                 "For each step the possible moves are as follows", "CONSTRUCT_FROM_DISCARD\n",
                 "Your overall output should be in the following structure",
                 "CHOOSE_STARTING_PLAYER: CHOOSE_STARTING_PLAYER"):
        assert kept in compact
    assert len(compact) < len(get_variant("baseline").system)


def test_an_edit_that_does_not_match_fails_loudly() -> None:
    spec = {"name": "x", "description": "d", "rules": "rules_prompt.txt", "legal_moves": False}
    with pytest.raises(PromptError, match="found 0 times"):
        _build({**spec, "replace": [{"old": "no such text in the prompt", "new": ""}]}, "x.toml")
    with pytest.raises(PromptError, match="found 2 times|found [3-9]"):
        _build({**spec, "replace": [{"old": "CLAY_RESERVE", "new": "X"}]}, "x.toml")
    with pytest.raises(PromptError, match="cut marker found 0 times"):
        _build({**spec, "cut": [{"start": "nowhere at all", "end": "Age 1"}]}, "x.toml")
    with pytest.raises(PromptError, match="missing field"):
        _build({"name": "x"}, "x.toml")
    with pytest.raises(PromptError, match="unknown prompt variant"):
        get_variant("no-such-variant")


def test_turn_message_is_the_seat_view_and_legal_moves_only_for_legal_moves() -> None:
    state = new_game(3)
    rng = random.Random(0)
    while state.step_name == "WONDER_SELECTION":
        state = state.apply(rng.choice(state.legal_moves()))
    view = Perspective.of_player(state.current_player).view(state)
    priced = state.priced_moves()
    base = get_variant("baseline").turn_message(view, priced)
    listed = get_variant("legal-moves").turn_message(view, priced)
    assert json.dumps(view, indent=1) in base and "(you are player2)" in base
    assert view["currentPlayerNumber"] == 2
    assert "Your legal moves are" not in base
    for move, price in priced:
        line = json.dumps(move.to_json()) + (f"  (costs {price} coins)" if price else "")
        assert line + "\n" in listed + "\n"
    assert any(p > 0 for _, p in priced)  # some builds have a price to show
    # the system text does not depend on the turn: one fixed prefix for the whole game
    assert get_variant("legal-moves").system == get_variant("baseline").system
    assert Move("DISCARD", card_index=priced[0][0].card_index) in [m for m, _ in priced]


def test_duel_prompts_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    from duel.cli import main

    assert main(["prompts", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    for name in variants():
        v = get_variant(name)
        line = next(ln for ln in listed if ln.split()[0] == v.name)
        assert v.hash in line and "tokens" in line and v.description in line
    assert main(["prompts", "show", "baseline"]) == 0
    shown = capsys.readouterr().out
    baseline = get_variant("baseline")
    assert baseline.hash in shown and baseline.system in shown
    assert main(["prompts", "show", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown prompt variant 'nosuch'" in err and "baseline" in err
