"""The MCTS and rule agents in hand-built positions (a win to take, a win to block, a trap to
avoid), MCTS's seed, budgets and parallel search."""

from __future__ import annotations

import random
from typing import Any

from duel.agents import make_agent
from duel.agents.mcts import MCTSAgent
from duel.agents.rule_based import RuleAgent, opponent_winning_cards
from duel.engine import InfoSet, Move, new_game, seat_view
from duel.engine.perspective import Perspective
from duel.match import play_match

# the wonders not drafted in the hand-built positions below
OUT = ["THE_GREAT_LIGHTHOUSE", "THE_HANGING_GARDENS", "THE_STATUE_OF_ZEUS", "THE_TEMPLE_OF_ARTEMIS"]


def test_mcts_seed_parameter_makes_choices_reproducible() -> None:
    state = new_game(2)
    view = Perspective.of_player(1).view(state)
    legal = state.legal_moves()
    a = make_agent("mcts:iterations=200,seed=3").choose(view, legal, random.Random(1))
    b = make_agent("mcts:iterations=200,seed=3").choose(view, legal, random.Random(2))
    assert a.move == b.move and a.details["top"] == b.details["top"]
    assert a.details["iterations"] == 200


def test_mcts_finds_an_immediate_military_win() -> None:
    """From a position where one card wins by military supremacy, MCTS takes it."""
    view = seat_view(new_game(0))
    view.update({
        "step": "PLAY_CARD", "age": 3, "currentPlayerNumber": 2,
        "wondersAvailable": [], "wondersUnavailable": OUT,
    })
    view["player1"]["wonders"] = {"THE_PYRAMIDS": 0, "THE_SPHINX": 0, "THE_COLOSSUS": 0,
                                  "PIRAEUS": 0}
    view["player2"]["wonders"] = {"THE_APPIAN_WAY": 0, "CIRCUS_MAXIMUS": 0,
                                  "THE_GREAT_LIBRARY": 0, "THE_MAUSOLEUM": 0}
    view["military"]["militaryPosition"] = -6
    view["military"]["loot2Player1Available"] = False
    view["military"]["loot5Player1Available"] = False
    view["visiblePyramid"] = {"0": {"cardName": "PRETORIUM", "isActive": True},
                              "1": {"cardName": "PALACE", "isActive": True}}
    view["player2"]["money"] = 9
    info = InfoSet.from_view(view)
    state = info.sample(random.Random(0))
    legal = state.legal_moves()
    d = MCTSAgent(iterations=300).choose(view, legal, random.Random(0))
    assert d.move.kind == "CONSTRUCT_BUILDING" and d.move.card_index == 0
    r = RuleAgent().choose(view, legal, random.Random(0))
    assert r.move == d.move and r.details["rule"] == "win now"


def test_mcts_root_parallel_is_reproducible_and_sums_the_trees() -> None:
    state = new_game(2)
    view = Perspective.of_player(1).view(state)
    legal = state.legal_moves()
    a = make_agent("mcts:iterations=60,seed=3,workers=2").choose(view, legal, random.Random(1))
    b = make_agent("mcts:iterations=60,seed=3,workers=2").choose(view, legal, random.Random(2))
    assert a.move in legal and a.move == b.move and a.details["top"] == b.details["top"]
    assert a.details["iterations"] == 120 and a.details["workers"] == 2
    assert sum(t["visits"] for t in a.details["top"]) <= 120
    # Without a seed it follows the match's generator, like the single-process search.
    c = make_agent("mcts:iterations=60,workers=2").choose(view, legal, random.Random(5))
    d = make_agent("mcts:iterations=60,workers=2").choose(view, legal, random.Random(5))
    assert c.details["top"] == d.details["top"]


def test_mcts_time_budget() -> None:
    state = new_game(4)
    view = Perspective.of_player(1).view(state)
    d = make_agent("mcts:time=0.2").choose(view, state.legal_moves(), random.Random(0))
    assert d.details["iterations"] > 0 and 0.15 < d.details["seconds"] < 1.0


def _age3_view(card: str) -> dict[str, Any]:
    """Age III, player2 (the agent, 1 coin) to move, every wonder built, no token left to
    take; player1 has 10 coins; `card` and PALACE are the structure's two active cards."""
    view = seat_view(new_game(0))
    view.update({"step": "PLAY_CARD", "age": 3, "currentPlayerNumber": 2,
                 "wondersAvailable": [], "wondersUnavailable": OUT, "tokensAvailable": []})
    view["player1"]["wonders"] = {"THE_PYRAMIDS": 0, "THE_SPHINX": 0, "THE_COLOSSUS": 0,
                                  "PIRAEUS": 0}
    view["player2"]["wonders"] = {"THE_APPIAN_WAY": 0, "CIRCUS_MAXIMUS": 0,
                                  "THE_GREAT_LIBRARY": 0, "THE_MAUSOLEUM": 0}
    view["player1"]["money"] = 10
    view["player2"]["money"] = 1
    view["visiblePyramid"] = {"0": {"cardName": card, "isActive": True},
                              "1": {"cardName": "PALACE", "isActive": True}}
    return view


def test_rule_agent_blocks_an_opponent_science_win() -> None:
    view = _age3_view("ACADEMY")
    view["player1"]["sortedHand"] = {"SCIENTIFIC_BUILDING": [
        "APOTHECARY", "WORKSHOP", "SCRIPTORIUM", "PHARMACIST", "UNIVERSITY"]}
    state = InfoSet.from_view(view).sample(random.Random(0))
    assert opponent_winning_cards(state, 0) == [0]
    d = RuleAgent().choose(view, state.legal_moves(), random.Random(0))
    assert d.move.card_index == 0 and d.details["rule"] == "stop the opponent winning"


def test_rule_agent_blocks_an_opponent_military_win() -> None:
    """The pawn 7 spaces towards our capital, ARSENAL (3 shields) free and affordable for the
    opponent: the rule agent takes it out of their reach."""
    view = _age3_view("ARSENAL")
    # Positive: towards player2's capital, whose two loot tokens are gone.
    view["military"].update({"militaryPosition": 7, "loot2Player2Available": False,
                             "loot5Player2Available": False})
    state = InfoSet.from_view(view).sample(random.Random(0))
    assert opponent_winning_cards(state, 0) == [0]
    d = RuleAgent().choose(view, state.legal_moves(), random.Random(0))
    assert d.move.card_index == 0 and d.details["rule"] == "stop the opponent winning"
    # Two spaces back, ARSENAL takes the pawn to 8, not 9: nothing to block.
    view["military"]["militaryPosition"] = 5
    state = InfoSet.from_view(view).sample(random.Random(0))
    assert opponent_winning_cards(state, 0) == []
    d = RuleAgent().choose(view, state.legal_moves(), random.Random(0))
    assert d.details["rule"] != "stop the opponent winning"


def test_rule_agent_does_not_uncover_a_winning_card_for_the_opponent() -> None:
    """Taking PALACE would free ARSENAL (face up under it), whose 3 shields take player 1 from
    +6 to a military win; the agent leaves PALACE where it is."""
    from helpers.positions import view as position_view

    view = position_view(
        age=3, pyramid={11: "ARSENAL", 15: "PALACE", 17: "SENATE"}, current=2, military=6,
        loot={"loot2Player2Available": False, "loot5Player2Available": False},
        p1={"coins": 30},
        p2={"coins": 0, "cards": ["LUMBER_YARD", "QUARRY", "CLAY_POOL", "GLASSWORKS",
                                  "GLASSBLOWER"],
            "wonders": {"THE_PYRAMIDS": 1, "THE_SPHINX": 1, "THE_APPIAN_WAY": 2,
                        "THE_HANGING_GARDENS": 2}})
    state = InfoSet.from_view(view).sample(random.Random(0))
    legal = state.legal_moves()
    build_palace = Move("CONSTRUCT_BUILDING", card_index=15)
    assert build_palace in legal
    after = state.apply(build_palace)
    assert opponent_winning_cards(after, 0) == [11]  # the trap is real
    d = RuleAgent().choose(view, legal, random.Random(0))
    assert d.move.card_index == 17


def test_rule_agent_takes_the_first_turn_of_an_age() -> None:
    for seed in range(20):
        result = play_match("rule", "random", seed=seed)
        for r in result.records:
            if r.step == "CHOOSE_STARTING_PLAYER" and r.seat.player == 1:
                assert r.move.player_number == 1
