"""TRL's environment: the class TRL's GRPOTrainer builds (reset, get_reward and the tool set's
tools as its only public methods, typed and documented as TRL reads them), whole games played
through its tools to the end against random and MCTS, a refused move raised as ValueError (TRL's
tool error) until the fallback plays, and a look-up that never holds a hidden card."""

from __future__ import annotations

import inspect
import json
import random
from pathlib import Path

import pytest
from helpers.seat_tables import twin_deal

from duel.engine import new_game
from duel.envs.trl import DuelToolEnv
from duel.errors import SpecError
from duel.transcripts import read, verified_result

TOOLS = {"get_state", "legal_moves", "explain", "simulate", "make_move"}


def play_out(env: DuelToolEnv, seed: int) -> list[str]:
    rng = random.Random(seed)
    answers = [env.reset(seed=seed)]
    while not env.env.done:
        moves = json.loads(env.legal_moves())["moves"]
        pick = rng.choice(moves)
        answers.append(env.make_move(pick["move"], pick["moveData"]))
    return answers


def test_its_public_methods_are_trl_s_reserved_ones_and_the_tool_set() -> None:
    public = {n for n, _ in inspect.getmembers(DuelToolEnv, inspect.isfunction)
              if not n.startswith("_")}
    assert public == TOOLS | {"reset", "get_reward"}
    utils = pytest.importorskip("transformers.utils", reason="the trl extra is not installed")
    get_json_schema = utils.get_json_schema  # how TRL describes a tool to the model

    env = DuelToolEnv()
    schema = get_json_schema(env.make_move)["function"]
    assert schema["parameters"]["required"] == ["move", "moveData"]
    assert schema["parameters"]["properties"]["moveData"]["type"] == "object"
    assert get_json_schema(env.legal_moves)["function"]["parameters"]["properties"][
        "why_not"]["type"] == "boolean"


@pytest.mark.parametrize("opponent", ["random", "mcts:iterations=20"])
def test_whole_games_through_the_tools(opponent: str, tmp_path: Path) -> None:
    env = DuelToolEnv(opponent=opponent, seat="alternate", transcripts=tmp_path)
    for seed in (3, 4):
        answers = play_out(env, seed)
        assert "make_move" in answers[0] and "You are" in answers[0]
        last = json.loads(answers[-1])
        assert last["over"] is True and last["result"]["you"] in ("won", "lost", "draw")
        outcome = {"won": 1.0, "draw": 0.0, "lost": -1.0}[last["result"]["you"]]
        assert env.get_reward() == pytest.approx(outcome)  # outcome+legal, all moves legal
        assert len(env.rewards) == len(answers) - 1 > 15
        t = read(Path(env.infos[-1]["transcript"]))
        assert verified_result(t).to_json() == env.infos[-1]["result"]
        with pytest.raises(ValueError, match="game is over"):
            env.make_move("DISCARD", {"cardIndex": 0})


def test_a_refused_move_is_a_value_error_then_the_fallback_plays() -> None:
    env = DuelToolEnv(max_attempts=2)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"attempt 1 of 2.*not legal"):
        env.make_move("DISCARD", {"cardIndex": 0})  # wonders are drafted first
    answer = env.make_move("NO_SUCH_MOVE", {})
    first, _, rest = answer.partition("\n\n")
    assert "the fallback played" in json.loads(first)["note"] and rest
    assert env.get_reward() == pytest.approx(-0.1 - 0.6 + -1.0)  # penalties, unfinished
    assert env.infos[-1]["fallback"] == "random"


def test_look_ups_answer_from_the_seat_s_view_and_refusals_are_value_errors() -> None:
    env = DuelToolEnv()
    with pytest.raises(ValueError, match="reset"):
        env.get_state()
    env.reset(seed=5)
    state = json.loads(env.get_state())
    assert state["your_turn"] is True and state["seat"] == 1
    move = json.loads(env.legal_moves())["moves"][0]
    assert "coins" in env.simulate(move["move"], move["moveData"])
    assert "LUMBER_YARD" in env.explain("LUMBER_YARD")
    with pytest.raises(ValueError, match="no card|not"):
        env.explain("NO_SUCH_CARD")
    with pytest.raises(ValueError, match="not legal"):
        env.simulate("CONSTRUCT_BUILDING", {"cardIndex": 0})


def test_no_answer_holds_a_hidden_card() -> None:
    """Twin deals, different only in cards unseen before Age II: every answer is the same."""
    deal = new_game(12).deal
    seen = []
    for d in (deal, twin_deal(deal)):
        env = DuelToolEnv(seat=2)
        answers = [env.reset(seed=12, deal=d, code="TWINS")]
        rng = random.Random(0)
        while env.env.state.age == 1 and not env.env.done:
            answers += [env.get_state(), env.legal_moves(why_not=True)]
            moves = json.loads(answers[-1])["moves"]
            pick = rng.choice(moves)
            answers.append(env.make_move(pick["move"], pick["moveData"]))
        seen.append(answers[:-1])  # the last answer is Age II's first turn: its cards are seen
    assert len(seen[0]) > 10 and seen[0] == seen[1]


def test_a_bad_setting_is_refused_when_the_trainer_builds_the_env() -> None:
    with pytest.raises(SpecError, match="iterations"):
        DuelToolEnv(opponent="mcts:iterations=x")
