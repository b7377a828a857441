"""Agents: legality everywhere, no peeking at hidden cards, reproducibility, spec strings."""

from __future__ import annotations

import json
import random

import pytest

from duel.agents import SpecError, make_agent
from duel.agents.mcts import MCTSAgent
from duel.agents.rule_based import RuleAgent, opponent_winning_cards
from duel.cli import main
from duel.engine import InfoSet, new_game, seat_view
from duel.engine.state import STEP_NAMES
from duel.match import agent_rng, decide, play_match

FAST_SPECS = ["random", "rule", "mcts:iterations=30"]
# the wonders not drafted in the hand-built positions below
OUT = ["THE_GREAT_LIGHTHOUSE", "THE_HANGING_GARDENS", "THE_STATUE_OF_ZEUS", "THE_TEMPLE_OF_ARTEMIS"]


@pytest.mark.parametrize("spec", FAST_SPECS)
def test_agents_only_play_legal_moves_in_every_step(spec: str) -> None:
    steps: set[str] = set()
    seeds = range(12) if spec != "mcts:iterations=30" else range(3)
    for seed in seeds:
        # play_match raises IllegalMoveError if an agent returns an illegal move
        result = play_match(spec, "random", seed=seed)
        steps.update(r.step for r in result.records if r.player == 1)
        result = play_match("random", spec, seed=seed)
        steps.update(r.step for r in result.records if r.player == 2)
        assert result.final.is_terminal()
    assert {"WONDER_SELECTION", "PLAY_CARD"} <= steps


def test_rule_agent_covers_every_step() -> None:
    steps: set[str] = set()
    for seed in range(60):
        result = play_match("rule", "rule", seed=seed)
        steps.update(r.step for r in result.records)
    # every step the engine can ask for, except the end
    assert steps == set(STEP_NAMES) - {"GAME_END"}




@pytest.mark.parametrize("spec", FAST_SPECS)
def test_no_peeking_same_decisions_when_only_hidden_cards_differ(spec: str) -> None:
    agent = make_agent(spec)
    rng = random.Random(5)
    state = new_game(11)
    compared = differed = 0
    while not state.is_terminal():
        twin = InfoSet.from_view(seat_view(state)).sample(random.Random(compared + 1000))
        hidden_true = [c for s, c in enumerate(state.pyramid)
                       if c >= 0 and not (state.face_up >> s) & 1]
        hidden_twin = [c for s, c in enumerate(twin.pyramid)
                       if c >= 0 and not (twin.face_up >> s) & 1]
        if hidden_true != hidden_twin or state.deal.age3 != twin.deal.age3:
            differed += 1
        assert seat_view(twin) == {**seat_view(state), "previousMove": ""} or \
            seat_view(twin)["visiblePyramid"] == seat_view(state)["visiblePyramid"]
        a = decide(agent, state, random.Random(compared))[0]
        b = decide(agent, twin, random.Random(compared))[0]
        assert a == b, f"ply {state.ply}: {a} != {b}"
        compared += 1
        state = state.apply(rng.choice(state.legal_moves()))
        if spec.startswith("mcts") and compared > 25:
            break
    assert differed > 0  # the twins really had other hidden cards


def test_agents_never_receive_hidden_card_names() -> None:
    seen_views: list[dict] = []

    class Spy:
        spec = "spy"

        def choose(self, view, legal, rng):  # type: ignore[no-untyped-def]
            seen_views.append(view)
            return make_agent("random").choose(view, legal, rng)

    result = play_match(Spy(), Spy(), seed=4)
    deal = result.deal
    removed = deal.removed1 + deal.removed2 + deal.removed3 + deal.removed_guilds
    from duel.engine import CARD_NAMES
    text = json.dumps(seen_views)
    for card in removed:
        assert f'"{CARD_NAMES[card]}"' not in text
    assert all(v["player2"]["id"] == 2 for v in seen_views)


@pytest.mark.parametrize("spec", ["random", "rule", "mcts:iterations=40"])
def test_reproducible_with_a_seed(spec: str) -> None:
    a = play_match(spec, "rule", seed=9)
    b = play_match(spec, "rule", seed=9)
    assert [r.move for r in a.records] == [r.move for r in b.records]
    assert a.result == b.result


def test_mcts_seed_parameter_makes_choices_reproducible() -> None:
    state = new_game(2)
    view = seat_view(state, as_player2=1)
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


def test_rule_agent_blocks_an_opponent_science_win() -> None:
    view = seat_view(new_game(0))
    view.update({"step": "PLAY_CARD", "age": 3, "currentPlayerNumber": 2,
                 "wondersAvailable": [], "wondersUnavailable": OUT, "tokensAvailable": []})
    view["player1"]["wonders"] = {"THE_PYRAMIDS": 0, "THE_SPHINX": 0, "THE_COLOSSUS": 0,
                                  "PIRAEUS": 0}
    view["player2"]["wonders"] = {"THE_APPIAN_WAY": 0, "CIRCUS_MAXIMUS": 0,
                                  "THE_GREAT_LIBRARY": 0, "THE_MAUSOLEUM": 0}
    view["player1"]["sortedHand"] = {"SCIENTIFIC_BUILDING": [
        "APOTHECARY", "WORKSHOP", "SCRIPTORIUM", "PHARMACIST", "UNIVERSITY"]}
    view["player1"]["money"] = 10
    view["player2"]["money"] = 1
    view["visiblePyramid"] = {"0": {"cardName": "ACADEMY", "isActive": True},
                              "1": {"cardName": "PALACE", "isActive": True}}
    state = InfoSet.from_view(view).sample(random.Random(0))
    assert opponent_winning_cards(state, 0) == [0]
    d = RuleAgent().choose(view, state.legal_moves(), random.Random(0))
    assert d.move.card_index == 0 and d.details["rule"] == "stop the opponent winning"


@pytest.mark.parametrize("spec, message", [
    ("nosuch", "unknown agent 'nosuch'; valid agents: dqn, llm, mcts, random, rule"),
    ("mcts:iters=5", "unknown parameter 'iters'; valid parameters: iterations, time"),
    ("mcts:iterations=abc", "iterations must be int, got 'abc'"),
    ("mcts:iterations", "expected key=value"),
    ("mcts:rollout=smart", "rollout must be 'uniform' or 'heuristic'"),
    ("random:x=1", "unknown parameter 'x'; valid parameters: (none)"),
])
def test_spec_errors_name_the_valid_choices(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_agent(spec)


def test_spec_parses_parameters() -> None:
    agent = make_agent("mcts:time=1.5,c=0.9,seed=3,rollout=uniform")
    assert isinstance(agent, MCTSAgent)
    assert (agent.time, agent.c, agent.rollout, agent.iterations) == (1.5, 0.9, "uniform", 0)
    assert agent.spec == "mcts:time=1.5,c=0.9,seed=3,rollout=uniform"


def test_agent_rngs_do_not_depend_on_the_deal() -> None:
    assert agent_rng(3, 0).random() == agent_rng(3, 0).random()
    assert agent_rng(3, 0).random() != agent_rng(3, 1).random()


def test_tournament_cli_runs_resumes_and_reports(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "t"
    args = ["tournament", "--p1", "rule", "--p2", "random", "--games", "4", "--seed", "5",
            "--out", str(out), "--no-progress"]
    assert main(args) == 0
    report = capsys.readouterr().out
    assert "rule vs random: 4 games" in report and "95% CI" in report
    lines = (out / "games.jsonl").read_text().splitlines()
    games = [json.loads(line) for line in lines]
    assert len(games) == 4
    assert {(g["seed"], g["player1"]) for g in games} == {(5, "rule"), (5, "random"),
                                                           (6, "rule"), (6, "random")}
    for g in games:
        assert set(g) == {"seed", "player1", "player2", "winner", "victory", "scores", "moves",
                          "seconds"}
    # resuming plays nothing again; two more games are added for --games 6
    assert main(args[:6] + ["6"] + args[7:]) == 0
    assert len((out / "games.jsonl").read_text().splitlines()) == 6


def test_tournament_with_two_processes(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["tournament", "--p1", "rule", "--p2", "random", "--games", "4", "--jobs", "2",
                 "--no-progress"]) == 0
    assert "4 games" in capsys.readouterr().out


def test_match_cli_prints_a_readable_log(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["match", "--p1", "mcts:iterations=20", "--p2", "rule", "--seed", "7",
                 "--no-transcript"]) == 0
    out = capsys.readouterr().out
    assert "Player 1 selected wonder" in out and "Result:" in out and "TOTAL" in out
    assert "military" in out and "coins" in out


def test_match_cli_bad_spec_exits_2(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["match", "--p1", "bogus", "--p2", "rule"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "duel match: unknown agent 'bogus'; valid agents: dqn, llm, mcts, random, rule"
