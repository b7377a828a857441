"""The `duel` command: new, moves, apply, random-game, and one-line errors with exit status 2.

Most tests call ``duel.cli.main([...])`` in process (fast); a few run ``python3 -m duel.cli`` to
check the real exit status and streams.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.games import play_out, random_game_states

from duel.cli import main
from duel.engine import Deal, InfoSet, Move, Result, new_game, seat_view
from duel.engine.perspective import Perspective
from duel.engine.state import GameState
from duel.schemas import schema_error

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "duel.cli", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def write(tmp_path: Path, name: str, obj: Any) -> str:
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def game_states(seed: int) -> list[GameState]:
    return random_game_states(seed)


def assert_one_line_error(code: int, out: str, err: str, command: str) -> str:
    assert code == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"duel {command}: ")
    return err


# ---------------------------------------------------------------------------- new
def test_new_prints_a_valid_initial_state(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "new", "--seed", "12")
    assert code == 0 and err == ""
    view = json.loads(out)
    assert schema_error("state", view) is None
    assert view == seat_view(new_game(12))
    assert view["step"] == "WONDER_SELECTION" and view["previousMove"] == ""
    # The wonders out of the game show from round 2 of the draft (round 2 is hidden till then).
    assert len(view["tokensUnavailable"]) == 5 and view["wondersUnavailable"] == []
    # The same seed gives the same game, code included.
    assert json.loads(run(capsys, "new", "--seed", "12")[1]) == view


def test_new_hidden_box(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "new", "--seed", "12", "--hidden-box")
    view = json.loads(out)
    assert code == 0 and schema_error("state", view) is None
    assert view["tokensUnavailable"] == [] and view["wondersUnavailable"] == []
    assert view == seat_view(new_game(12, open_box=False))


# ---------------------------------------------------------------------------- moves
@pytest.mark.parametrize("ply", [0, 8, 30, 55])
@pytest.mark.parametrize("as_player2", [2, 1])
def test_moves_lists_legal_moves_with_engine_prices(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path, ply: int,
                                                    as_player2: int) -> None:
    state = game_states(4)[ply]
    view = Perspective.of_player(as_player2).view(state)
    code, out, err = run(capsys, "moves", write(tmp_path, "state.json", view))
    assert code == 0 and err == ""
    listed = json.loads(out)
    assert isinstance(listed, list) and listed
    for entry in listed:
        assert set(entry) == {"move", "moveData", "price"}
        assert isinstance(entry["price"], int) and entry["price"] >= 0
    # The true state's moves and prices (hidden cards do not change them).
    expected = [{**m.to_json(), "price": p} for m, p in state.priced_moves()]
    if as_player2 == 1:
        key = json.dumps
        assert sorted(listed, key=key) == sorted(
            [{**e, "moveData": {"playerNumber": 3 - e["moveData"]["playerNumber"]}}
             if e["move"] == "CHOOSE_STARTING_PLAYER" else e for e in expected], key=key)
    else:
        assert listed == expected


def test_moves_prices_match_every_ply(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    for state in game_states(2)[8::6]:
        if state.is_terminal():
            continue
        path.write_text(json.dumps(seat_view(state)))
        code, out, _ = run(capsys, "moves", str(path))
        assert code == 0
        assert [(e["move"], e["moveData"], e["price"]) for e in json.loads(out)] == \
            [(m.kind, m.to_json()["moveData"], p) for m, p in state.priced_moves()]


def test_moves_of_a_finished_game_is_empty(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    final = game_states(0)[-1]
    code, out, _ = run(capsys, "moves", write(tmp_path, "s.json", seat_view(final)))
    assert code == 0 and json.loads(out) == []


# ---------------------------------------------------------------------------- apply
def test_apply_prints_the_next_state(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    states = game_states(5)
    for ply in (0, 3, 8, 20, 40):
        state = states[ply]
        view = seat_view(state)
        move = random.Random(ply).choice(state.legal_moves())
        code, out, err = run(capsys, "apply", write(tmp_path, "s.json", view),
                             write(tmp_path, "m.json", move.to_json()), "--seed", "7")
        assert code == 0 and err == ""
        after = json.loads(out)
        assert schema_error("state", after) is None
        # Exactly what the engine gives from the state the CLI samples with that seed.
        expected = InfoSet.from_view(view).sample(random.Random(7)).apply(move)
        assert after == seat_view(expected)
        # And the public facts of the true next state.
        true_after = seat_view(state.apply(move))
        for key in ("step", "age", "currentPlayerNumber", "player1", "player2", "military",
                    "discardedCards", "tokensAvailable", "previousMove"):
            assert after[key] == true_after[key], key


def test_apply_reveals_nothing_new_equals_the_true_state(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    """Taking slot 14 of Age I uncovers nothing: the next state is the true one exactly."""
    state = next(s for s in game_states(5) if s.step_name == "PLAY_CARD")
    move = Move("DISCARD", card_index=14)
    code, out, _ = run(capsys, "apply", write(tmp_path, "s.json", seat_view(state)),
                       write(tmp_path, "m.json", move.to_json()))
    assert code == 0
    assert json.loads(out) == seat_view(state.apply(move))


def test_apply_seed_makes_revealed_cards_reproducible(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    """Taking slots 14 then 15 uncovers slot 9 (face down): the CLI samples it from the unseen
    Age I cards, the same way for the same seed."""
    state = next(s for s in game_states(5) if s.step_name == "PLAY_CARD")
    state = state.apply(Move("DISCARD", card_index=14))
    s = write(tmp_path, "s.json", seat_view(state))
    m = write(tmp_path, "m.json", {"move": "DISCARD", "moveData": {"cardIndex": 15}})
    first = run(capsys, "apply", s, m, "--seed", "1")[1]
    assert run(capsys, "apply", s, m, "--seed", "1")[1] == first
    view = json.loads(first)
    assert not view["visiblePyramid"]["9"]["cardName"].endswith("_BACK")  # slot 9 turned up
    assert view["visiblePyramid"]["9"]["isActive"] is True


# ---------------------------------------------------------------------------- bad input
def test_non_json_state_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", "{not json")
    err = assert_one_line_error(*run(capsys, "moves", path), "moves")
    assert "is not JSON" in err


def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = assert_one_line_error(*run(capsys, "moves", str(tmp_path / "nope.json")), "moves")
    assert "cannot read" in err


def test_schema_invalid_state_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    view = seat_view(new_game(1))
    view["player1"]["money"] = -3
    err = assert_one_line_error(*run(capsys, "moves", write(tmp_path, "s.json", view)), "moves")
    assert "player1/money" in err
    del view["step"]
    m = write(tmp_path, "m.json", {"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"}})
    err = assert_one_line_error(*run(capsys, "apply", write(tmp_path, "s.json", view), m),
                                "apply")
    assert "step" in err


def test_inconsistent_state_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = next(s for s in game_states(1) if s.age == 2 and s.discard)
    view = seat_view(state)
    # A face-up pyramid card also in the discard pile: schema-valid, but impossible.
    view["discardedCards"] = view["discardedCards"] + [
        next(e["cardName"] for e in view["visiblePyramid"].values()
             if not e["cardName"].endswith("_BACK"))]
    err = assert_one_line_error(*run(capsys, "moves", write(tmp_path, "s.json", view)), "moves")
    assert "twice" in err


def test_state_with_cards_of_a_later_age_exits_2(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    """Age II cards in the discard pile during Age I cannot happen. Taking the last card of
    Age I from such a state must not print an Age II structure short of cards."""
    state = game_states(1)[0]
    while not (state.age == 1 and state.remaining == 1 and state.step_name == "PLAY_CARD"):
        state = state.apply(random.Random(state.ply).choice(state.legal_moves()))
    view = seat_view(state)
    view["discardedCards"] += ["SAWMILL", "BRICKYARD", "SHELF_QUARRY", "GLASSBLOWER",
                               "DRYING_ROOM", "COURTHOUSE"]
    s = write(tmp_path, "s.json", view)
    m = write(tmp_path, "m.json", {"move": "DISCARD",
                                   "moveData": {"cardIndex": state.accessible_slots()[0]}})
    code, out, err = run(capsys, "apply", s, m)
    shown = len(json.loads(out)["visiblePyramid"]) if code == 0 else None
    assert code == 2, f"exit {code}; printed an Age II structure of {shown} cards"
    assert_one_line_error(code, out, err, "apply")


def test_illegal_move_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = next(s for s in game_states(0) if s.step_name == "PLAY_CARD")
    s = write(tmp_path, "s.json", seat_view(state))
    m = write(tmp_path, "m.json", {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 0}})
    err = assert_one_line_error(*run(capsys, "apply", s, m), "apply")
    assert "card 0 is covered by slot(s) [2, 3]" in err
    m = write(tmp_path, "m.json", {"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"}})
    err = assert_one_line_error(*run(capsys, "apply", s, m), "apply")
    assert "expected CONSTRUCT_BUILDING or DISCARD or CONSTRUCT_WONDER" in err


def test_malformed_moves_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = next(s for s in game_states(0) if s.step_name == "PLAY_CARD")
    s = write(tmp_path, "s.json", seat_view(state))
    cases = [
        ({"move": "DESTROY_CARD", "moveData": {"cardName": "QUARY"}}, "QUARY"),
        ({"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": "3"}}, "cardIndex"),
        ({"move": "CONSTRUCT_BUILDING"}, "moveData"),
        ({"move": "FLY", "moveData": {}}, "FLY"),
        ([1, 2], "move"),
    ]
    for obj, needle in cases:
        err = assert_one_line_error(*run(capsys, "apply", s, write(tmp_path, "m.json", obj)),
                                    "apply")
        assert needle in err, err
    err = assert_one_line_error(*run(capsys, "apply", s, write(tmp_path, "m.json", "DISCARD")),
                                "apply")
    assert "is not JSON" in err


def test_errors_in_a_real_process() -> None:
    """The installed entry point: exit status 2, one line on stderr, nothing on stdout."""
    proc = run_process("apply", "/nonexistent/state.json", "/nonexistent/move.json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("duel apply: ")


def test_unknown_card_in_a_real_process(tmp_path: Path) -> None:
    state = next(s for s in game_states(0) if s.step_name == "PLAY_CARD")
    s = write(tmp_path, "s.json", seat_view(state))
    m = write(tmp_path, "m.json", {"move": "CONSTRUCT_FROM_DISCARD",
                                   "moveData": {"cardName": "UNICORN"}})
    proc = run_process("apply", s, m)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "duel apply: unknown card 'UNICORN'\n"


# ---------------------------------------------------------------------------- random-game
@pytest.mark.parametrize("seed", [3, 0, 2008])
def test_random_game_readable(capsys: pytest.CaptureFixture[str], seed: int) -> None:
    code, out, err = run(capsys, "random-game", "--seed", str(seed))
    assert code == 0 and err == ""
    lines = out.splitlines()
    final = game_states(seed)[-1]
    n = final.ply
    assert lines[0] == f"Random game, seed {seed} (code {final.code}), {n} moves"
    move_lines = lines[1:n + 1]
    for i, line in enumerate(move_lines, 1):
        assert line.startswith((f"{i:3d}. Age ", f"{i:3d}. Draft ")) and "Player " in line, line
    result = final.result()
    assert result is not None
    who = "shared victory" if result.winner is None else f"player {result.winner_label} wins"
    how = {"military": "by military supremacy", "science": "by scientific supremacy",
           "civilian": "on points"}[result.victory]
    assert lines[n + 1] == f"Result: {who} {how}"
    assert any(line.split()[:1] == ["total"] and line.split()[1:] ==
               [str(result.scores[0]["TOTAL"]), str(result.scores[1]["TOTAL"])]
               for line in lines[n + 2:])


@pytest.mark.parametrize("seed", [0, 3, 2008])
def test_random_game_json_replays(capsys: pytest.CaptureFixture[str], seed: int) -> None:
    code, out, err = run(capsys, "random-game", "--seed", str(seed), "--json")
    assert code == 0 and err == ""
    record = json.loads(out)
    assert set(record) == {"deal", "moves", "result"}
    assert schema_error("deal", record["deal"]) is None
    deal = Deal.from_json(record["deal"])
    assert deal == new_game(seed).deal
    result = record["result"]
    assert set(result) == {"winner", "victory", "scores", "forfeit"}  # Result.to_json()
    state = new_game(deal=deal)
    moves = []
    for entry in record["moves"]:
        assert set(entry) == {"player", "move", "moveData"}
        assert entry["player"] == state.current_player
        move = Move.from_json({"move": entry["move"], "moveData": entry["moveData"]})
        moves.append(move)
        state = state.apply(move)
    assert state.result() == Result.from_json(result)
    assert play_out(deal, moves).result() == Result.from_json(result)
    assert Result.from_json(result) == game_states(seed)[-1].result()


def test_moves_reads_stdin_in_a_real_process() -> None:
    state = game_states(6)[20]
    proc = subprocess.run([sys.executable, "-m", "duel.cli", "moves", "-"], cwd=ROOT,
                          input=json.dumps(seat_view(state)), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout) == [{**m.to_json(), "price": p}
                                       for m, p in state.priced_moves()]


def test_random_game_json_in_a_real_process() -> None:
    proc = run_process("random-game", "--seed", "9", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    record = json.loads(proc.stdout)
    deal = Deal.from_json(record["deal"])
    moves = [Move.from_json({"move": e["move"], "moveData": e["moveData"]})
             for e in record["moves"]]
    assert play_out(deal, moves).result() == Result.from_json(record["result"])
