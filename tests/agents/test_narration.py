"""The match log: `duel match` prints a readable game, each move line names its price, the
military and the turn order."""

from __future__ import annotations

import re

from duel.cli import main
from duel.engine import new_game
from duel.match import play_match


def test_match_cli_prints_a_readable_log(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["match", "--p1", "mcts:iterations=20", "--p2", "rule", "--seed", "7",
                 "--no-transcript"]) == 0
    out = capsys.readouterr().out
    assert "Player 1 takes " in out and "Result:" in out and "total" in out
    assert not re.search(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b", out), "an identifier in the log"
    assert "military" in out and "coins" in out


def test_move_lines_name_prices_military_and_turn_order() -> None:
    from duel.words.narrate import military, numbered_line

    result = play_match("rule", "rule", seed=6)
    state = new_game(6)
    lines = []
    for r in result.records:
        after = state.apply(r.move)
        lines.append(numbered_line(r.ply, state, r.move, after))
        if r.move.kind == "DISCARD":
            assert " discards " in lines[-1] and " coin" in lines[-1].split("(")[0]
        if after.age != state.age:
            assert lines[-1].endswith(f"[Age {'I' * after.age} begins]")
        state = after
    text = "\n".join(lines)
    assert "military even" in text and ("military P1 +" in text or "military P2 +" in text)
    assert " for " in text and "coins" in text
    assert text.count("begins]") == result.final.age - 1
    s = new_game(0)
    s.military = -4
    assert military(s) == "military P2 +4"
