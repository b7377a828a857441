"""Agents: legality everywhere, no peeking at hidden cards, reproducibility, spec strings."""

from __future__ import annotations

import functools
import json
import random
from typing import Any

import pytest

from duel.agents import make_agent
from duel.agents.mcts import MCTSAgent
from duel.agents.rule_based import RuleAgent, opponent_winning_cards
from duel.cli import main
from duel.engine import CARDS, Deal, GameState, InfoSet, Move, Seat, new_game, seat_view
from duel.engine.data import PURPLE
from duel.engine.perspective import Perspective
from duel.engine.state import STEP_NAMES, WONDER_SELECTION
from duel.errors import SpecError
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
        steps.update(r.step for r in result.records if r.seat.player == 1)
        result = play_match("random", spec, seed=seed)
        steps.update(r.step for r in result.records if r.seat.player == 2)
        assert result.final.is_terminal()
    assert {"WONDER_SELECTION", "PLAY_CARD"} <= steps


def test_rule_agent_covers_every_step() -> None:
    steps: set[str] = set()
    for seed in range(60):
        result = play_match("rule", "rule", seed=seed)
        steps.update(r.step for r in result.records)
    # every step the engine can ask for, except the end
    assert steps == set(STEP_NAMES) - {"GAME_END"}




# ---------------------------------------------------------------------------- no peeking
def twin_deal(state: GameState, history: list[Move], rng: random.Random) -> Deal:
    """A deal that agrees with `state`'s on everything the players have seen by now, and is
    drawn afresh everywhere else: face-down cards of the current Age (with the cards set aside),
    later Ages, round 2 of the wonder draft while round 1 is on (and so the wonders out of the
    game), the order of the token box until the Great Library draws from it, and the order of
    the cards set aside in past Ages."""
    d = state.deal
    drafting = state.step == WONDER_SELECTION
    age = 0 if drafting else state.age
    layouts = [list(d.age1), list(d.age2), list(d.age3)]
    removed = [list(d.removed1), list(d.removed2), list(d.removed3)]
    guilds_out = list(d.removed_guilds)
    for a in (1, 2, 3):
        lay, rem = layouts[a - 1], removed[a - 1]
        if a < age:
            rng.shuffle(rem)
            if a == 3:
                rng.shuffle(guilds_out)
        elif a == age:
            hidden = [s for s in range(20)
                      if state.pyramid[s] >= 0 and not (state.face_up >> s) & 1]
            for guild in (False, True):  # a guild's back tells it from other Age III cards
                slots = [s for s in hidden if (CARDS[lay[s]].color == PURPLE) == guild]
                pool = [lay[s] for s in slots] + (guilds_out if guild else rem)
                rng.shuffle(pool)
                for s in slots:
                    lay[s] = pool.pop()
                if guild:
                    guilds_out = pool
                else:
                    removed[a - 1] = pool
        elif a < 3:
            pool = lay + rem
            rng.shuffle(pool)
            layouts[a - 1], removed[a - 1] = pool[:20], pool[20:]
        else:
            plain = [c for c in lay if CARDS[c].color != PURPLE] + rem
            guilds = [c for c in lay if CARDS[c].color == PURPLE] + guilds_out
            rng.shuffle(plain)
            rng.shuffle(guilds)
            layout = plain[:17] + guilds[:3]
            rng.shuffle(layout)
            layouts[2], removed[2], guilds_out = layout, plain[17:], guilds[3:]
    round1, round2, out = list(d.wonder_draft[:4]), list(d.wonder_draft[4:]), list(d.wonders_out)
    if drafting and state.draft_pick < 4:
        rest = round2 + out
        rng.shuffle(rest)
        round2, out = rest[:4], rest[4:]
    rng.shuffle(out)
    box = list(d.tokens_box)
    if not any(m.kind == "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD" or m.wonder == "THE_GREAT_LIBRARY"
               for m in history):
        rng.shuffle(box)
    return Deal(tuple(round1 + round2), tuple(out), d.tokens_board, tuple(box),
                tuple(layouts[0]), tuple(layouts[1]), tuple(layouts[2]),
                tuple(removed[0]), tuple(removed[1]), tuple(removed[2]), tuple(guilds_out))


def twin_game(state: GameState, history: list[Move], rng: random.Random) -> GameState:
    """The same moves replayed, checked, on a twin deal: another game with the same history."""
    twin = new_game(deal=twin_deal(state, history, rng), open_box=state.open_box)
    for move in history:
        twin = twin.apply(move)
    return twin


def public(view: dict) -> dict:
    # The game code is a hash of the whole deal (engine: deal_code), so twins differ in it.
    return {k: v for k, v in view.items() if k != "code"}


@functools.cache
def histories() -> list[tuple[int, bool, tuple[Move, ...]]]:
    """Rule-vs-rule games, open and hidden box, until every step has occurred."""
    wanted = set(STEP_NAMES) - {"GAME_END"}
    seen: set[str] = set()
    out = []
    for seed in range(200):
        open_box = seed % 2 == 0
        result = play_match("rule", "rule", seed=seed, open_box=open_box)
        steps = {r.step for r in result.records}
        if steps - seen:
            out.append((seed, open_box, tuple(r.move for r in result.records)))
            seen |= steps
        if seen == wanted:
            return out
    raise AssertionError(f"no game reached {wanted - seen}")


def comparable(details: dict) -> dict:
    return {k: v for k, v in details.items() if k != "seconds"}  # wall time


@pytest.mark.parametrize("spec", ["random", "rule", "mcts:iterations=12",
                                  "mcts:iterations=12,rollout=uniform,c=1.2"])
def test_no_peeking_twin_games_give_the_same_decisions(spec: str) -> None:
    """Two games that differ only in hidden cards: at every ply of games that go through every
    step, a twin game is built with the same moves on a deal that differs in everything still
    hidden. The seats' views are the same (but for the game code, a hash of the deal), and each
    agent, with the same seed, makes the same decision with the same details in both."""
    agent = make_agent(spec)
    steps: set[str] = set()
    compared = twins_differ = 0
    for seed, open_box, moves in histories():
        state = new_game(seed, open_box=open_box)
        for ply, move in enumerate(moves):
            twin = twin_game(state, list(moves[:ply]), random.Random(ply))
            twins_differ += twin.deal != state.deal
            for seat in (None, 1, 2):
                assert public(Perspective.of_player(seat).view(twin)) == \
                    public(Perspective.of_player(seat).view(state)), f"seed {seed} ply {ply}"
            assert twin.legal_moves() == state.legal_moves()
            a = decide(agent, state, random.Random(ply))
            b = decide(agent, twin, random.Random(ply))
            assert a[0] == b[0], f"seed {seed} ply {ply} {state.step_name}: {a[0]} != {b[0]}"
            assert comparable(a[1]) == comparable(b[1])
            steps.add(state.step_name)
            compared += 1
            state = state.apply(move)
    assert steps == set(STEP_NAMES) - {"GAME_END"}
    assert twins_differ >= compared > 100


def test_twin_games_really_hide_different_cards() -> None:
    """The twins above differ where it matters: face-down cards in the pyramid and later Ages."""
    seed, open_box, moves = histories()[0]
    state = new_game(seed, open_box=open_box)
    for move in moves[:12]:  # into Age I
        state = state.apply(move)
    twin = twin_game(state, list(moves[:12]), random.Random(0))
    down = [s for s in range(20) if state.pyramid[s] >= 0 and not (state.face_up >> s) & 1]
    assert [state.pyramid[s] for s in down] != [twin.pyramid[s] for s in down]
    assert state.deal.age2 != twin.deal.age2 and state.deal.age3 != twin.deal.age3
    assert [state.pyramid[s] for s in range(20) if (state.face_up >> s) & 1] == \
        [twin.pyramid[s] for s in range(20) if (twin.face_up >> s) & 1]


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


@pytest.mark.parametrize("spec, message", [
    ("nosuch", "unknown agent 'nosuch'; valid agents: dqn, llm, mcts, random, rule"),
    ("mcts:iters=5", "unknown parameter 'iters'; valid parameters: iterations, time"),
    ("mcts:iterations=abc", "iterations must be int, got 'abc'"),
    ("mcts:iterations", "expected key=value"),
    ("mcts:rollout=smart", "rollout must be 'uniform' or 'heuristic'"),
    ("random:x=1", "unknown parameter 'x'; valid parameters: (none)"),
    ("mcts:iters=5", "valid parameters: iterations, time, c, rollout, build_bias, margin, seed, "
                     "workers"),
    ("mcts:iterations=-5", "iterations must be >= 0"),
    ("mcts:time=-1", "time must be >= 0 seconds"),
    ("mcts:c=-0.5", "c must be >= 0"),
    ("mcts:margin=3", "margin must be between 0 and 1"),
    ("mcts:build_bias=1.5", "build_bias must be between 0 and 1"),
    ("mcts:workers=0", "workers must be >= 1"),
    ("mcts:seed=-7", "seed must be >= 0, or -1"),
    ("mcts:c=1,c=2", "parameter 'c' is given twice"),
    ("mcts:time=nan", "time must be >= 0 seconds"),
    ("mcts:time=inf", "time must be >= 0 seconds"),
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
    assert agent_rng(3, Seat.P1).random() == agent_rng(3, Seat.P1).random()
    assert agent_rng(3, Seat.P1).random() != agent_rng(3, Seat.P2).random()


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
    for g in games:  # the format, in its order
        assert list(g) == ["seed", "player1", "player2", "winner", "victory", "scores", "moves",
                           "seconds"]
        assert g["winner"] in (1, 2, "draw")
        assert g["victory"] in ("military", "science", "civilian")
        assert len(g["scores"]) == 2 and all(isinstance(x, int) for x in g["scores"])
        assert isinstance(g["moves"], int) and isinstance(g["seconds"], float)
    # resuming plays nothing again; two more games are added for --games 6
    assert main(args[:6] + ["6"] + args[7:]) == 0
    assert "rule vs random: 6 games" in capsys.readouterr().out
    again = (out / "games.jsonl").read_text().splitlines()
    assert again[:4] == lines and len(again) == 6
    assert {(json.loads(line)["seed"]) for line in again[4:]} == {7}


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
    assert err.strip() == ("duel match: unknown agent 'bogus'; valid agents: dqn, llm, mcts, "
                           "random, rule")


# ---------------------------------------------------------------------------- tournaments
def test_tournament_resumes_after_a_kill_mid_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from duel.tournament import run

    out = tmp_path / "t"
    run("rule", "random", 2, seed=3, out=str(out), progress=False)
    path = out / "games.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:25])  # killed while writing game 2
    standings = run("rule", "random", 2, seed=3, out=str(out), progress=False)
    assert len(standings.games) == 2
    games = []
    for line in path.read_text().splitlines():
        try:
            games.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    def key(g: dict) -> dict:
        return {k: v for k, v in g.items() if k != "seconds"}

    assert [key(g) for g in games] == [key(json.loads(line)) for line in lines]


def test_tournament_specs_are_normalised_and_self_play_keeps_both_seats(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from duel.tournament import run

    # A spec with stray spaces is recorded stripped; A is still told from B.
    s = run(" rule ", "random", 4, seed=1, progress=False)
    assert s.a == "rule" and s.counts()[0] == 4
    # Self-play: both games of a deal have the same (seed, player1, player2); a resumed run must
    # find both, and A is player 1 in one and player 2 in the other.
    out = tmp_path / "self"
    first = run("rule", "rule", 4, seed=2, out=str(out), progress=False)
    assert [s.player for s in first.seats] == [1, 2, 1, 2]
    again = run("rule", "rule", 4, seed=2, out=str(out), progress=False)
    assert len((out / "games.jsonl").read_text().splitlines()) == 4
    assert again.counts() == first.counts()
    assert sorted(s.player for s in again.seats) == [1, 1, 2, 2]
    wins, draws, losses = again.counts()
    assert wins == losses  # the same deterministic game, once from each side
    assert "rule (A) won by" in again.report()


def test_tournament_report_counts_draws_and_forfeits() -> None:
    from duel.records import GameSummary
    from duel.tournament import Standings

    s = Standings("a", "b")
    base = {"player1": "a", "player2": "b", "scores": [50, 40], "moves": 60, "seconds": 1.0}
    s.add(GameSummary.from_json({**base, "seed": 0, "winner": 1, "victory": "science"}))
    s.add(GameSummary.from_json({**base, "seed": 0, "player1": "b", "player2": "a",
                                 "winner": "draw", "victory": "civilian"}))
    s.add(GameSummary.from_json({**base, "seed": 1, "winner": 2, "victory": "forfeit"}))
    assert s.counts() == (1, 1, 1)
    report = s.report()
    assert "a: 1 wins, 1 draws, 1 losses" in report
    assert "a won by: science 1" in report and "b won by: forfeit 1" in report
    assert "shared: civilian 1" in report
    assert "score rate (draw = 1/2) 50.0%" in report
    assert "mean score a 46.7, b 43.3" in report  # a has 50, 40, 50


def test_wilson_interval() -> None:
    from duel.stats import wilson

    lo, hi = wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(50, 100)
    assert (lo, hi) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))
    assert wilson(100, 100)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)


# ---------------------------------------------------------------------------- MCTS
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


# ---------------------------------------------------------------------------- rule agent
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


# ---------------------------------------------------------------------------- narration
def test_move_lines_name_prices_military_and_turn_order() -> None:
    from duel.narrate import military, move_line

    result = play_match("rule", "rule", seed=6)
    state = new_game(6)
    lines = []
    for r in result.records:
        after = state.apply(r.move)
        lines.append(move_line(r.ply, state, r.move, after))
        if r.move.kind == "DISCARD":
            assert " and gained " in lines[-1] and " for " not in lines[-1].split("(")[0]
        if after.age != state.age:
            assert lines[-1].endswith(f"[Age {after.age} begins]")
        state = after
    text = "\n".join(lines)
    assert "military even" in text and ("military P1 +" in text or "military P2 +" in text)
    assert " for " in text and "coins" in text
    assert text.count("begins]") == result.final.age - 1
    s = new_game(0)
    s.military = -4
    assert military(s) == "military P2 +4"
