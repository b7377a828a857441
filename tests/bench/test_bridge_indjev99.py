"""The bridge to indjev99/7-Wonders-Duel-AI (duel bench versus-indjev99): its name tables, the
translation of every move both ways, the reveals it refuses to give early, the comparison of the
two engines' states, and (only where DUEL_INDJEV99_REPO names a checkout of theirs, which CI has
not) whole games against their agent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from duel.bench.yardstick import bridge
from duel.engine import CARDS, TOKEN_NAMES, WONDER_NAMES, new_game, seat_view
from duel.errors import BenchError


def test_the_name_table_covers_every_card_wonder_and_token_once() -> None:
    names = bridge.THEIR_NAMES
    assert len(names) == len(set(names)) == 95
    assert set(names) == {c.name for c in CARDS} | set(WONDER_NAMES) | set(TOKEN_NAMES)
    by_name = {c.name: c for c in CARDS}
    # Their ids come in type ranges (objects.h); the destroy action's type is read from them.
    assert all(by_name[n].color == 0 for n in names[:bridge.LAST_BROWN + 1])
    assert all(by_name[n].color == 1 for n in names[bridge.LAST_BROWN + 1:bridge.LAST_GRAY + 1])
    assert all(n.endswith("_GUILD") for n in names[bridge.FIRST_GUILD:bridge.FIRST_TOKEN])
    assert set(names[bridge.FIRST_TOKEN:bridge.FIRST_WONDER]) == set(TOKEN_NAMES)
    assert set(names[bridge.FIRST_WONDER:]) == set(WONDER_NAMES)


def test_every_legal_move_round_trips_through_their_action() -> None:
    kinds: set[str] = set()
    for state in bridge.random_positions(seed=11, count=1500):
        view = seat_view(state)
        moves = state.legal_moves()
        actions = [bridge.move_to_action(view, m) for m in moves]
        assert len(set(actions)) == len(actions), "two moves, one action"
        for move, action in zip(moves, actions, strict=True):
            assert bridge.action_to_move(view, action) == move
            kinds.add(str(move.kind))
    # Random games reach every kind of decision (a destroy and the Mausoleum included).
    assert len(kinds) == 9, kinds


def test_an_action_duel_cannot_take_is_an_error_not_a_substitute() -> None:
    state = new_game(3)
    while state.step_name != "PLAY_CARD":
        state = state.apply(state.legal_moves()[0])
    view = seat_view(state)
    active = {c["cardName"] for c in view["visiblePyramid"].values() if c["isActive"]}
    elsewhere = next(n for n in bridge.THEIR_NAMES[:bridge.FIRST_TOKEN] if n not in active)
    with pytest.raises(BenchError, match="not an active card"):
        bridge.action_to_move(view, (bridge.PLAY_PYRAMID_CARD, bridge.THEIR_ID[elsewhere], -1))
    with pytest.raises(BenchError, match="no duel move"):
        bridge.action_to_move(view, (99, 0, 0))
    # A card their game asks for must already be face up in duel's view.
    slot = next(int(s) for s, c in view["visiblePyramid"].items()
                if c["cardName"].endswith("_BACK"))
    with pytest.raises(BenchError, match=f"slot {slot}, which duel shows face down"):
        bridge.reveal(view, bridge.REVEAL_PYRAMID_CARD, slot, set())


def test_reveals_come_from_the_view_once_each() -> None:
    state = new_game(4)
    view = seat_view(state)
    sent: set[tuple[int, int]] = set()
    tokens = [bridge.reveal(view, bridge.REVEAL_GAME_TOKEN, -100, sent)[1] for _ in range(5)]
    assert [bridge.THEIR_NAMES[t] for t in tokens] == view["tokensAvailable"]
    with pytest.raises(BenchError, match="duel shows none left"):
        bridge.reveal(view, bridge.REVEAL_GAME_TOKEN, -100, sent)
    assert bridge.reveal(view, bridge.REVEAL_FIRST_PLAYER, -100, sent) == (-6, 0, -100)


def test_the_first_field_that_differs_is_named() -> None:
    state = new_game(5)
    for _ in range(12):
        state = state.apply(state.legal_moves()[0])
    view = seat_view(state)
    ours = bridge.duel_fields(view, False)
    built = [[bridge.THEIR_ID[c] for cards in view[f"player{n}"]["sortedHand"].values()
              for c in cards] for n in (1, 2)]
    taken = ours["taken"]
    m = view["military"]["militaryPosition"]
    line = (f"state 12 {view['age'] - 1} {view['player1']['money']} {view['player2']['money']} "
            f"{max(m, 0)} {max(-m, 0)} {taken} 0 {len(built[0])} {' '.join(map(str, built[0]))} "
            f"{len(built[1])} {' '.join(map(str, built[1]))}")
    theirs = bridge.their_fields(bridge.TheirState.parse(line))
    assert bridge.first_difference(ours, theirs) is None
    theirs["player 2's coins"] += 1
    assert (bridge.first_difference(ours, theirs) or "").startswith("player 2's coins: duel ")


def test_the_command_says_when_repo_is_not_their_checkout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from duel.cli import main

    assert bridge.PLAY_DRIVER.is_file()
    assert main(["bench", "versus-indjev99", "--repo", str(tmp_path), "--games", "2"]) != 0
    assert "is not a checkout of indjev99/7-Wonders-Duel-AI" in capsys.readouterr().err


REPO = os.environ.get("DUEL_INDJEV99_REPO")


@pytest.mark.skipif(not REPO, reason="DUEL_INDJEV99_REPO names no checkout of their engine")
def test_whole_games_against_their_agent(tmp_path: Path) -> None:
    """Both seats of one deal, duel's MCTS against theirs at 0.02 s a move, two games at once:
    every move agreed by both engines (play_game raises on the first difference), each game
    kept in the JSONL."""
    assert REPO is not None
    out = tmp_path / "games.jsonl"
    lines: list[str] = []
    summary = bridge.versus(REPO, "mcts:time=0.02", 2, 0.02, 8, str(out), echo=lines.append,
                            jobs=2)
    assert summary["games"] == 2 and len(lines) == 2 and len(out.read_text().splitlines()) == 2
    assert summary["duel_wins"] + summary["their_wins"] + summary["draws"] == 2
    assert summary["their_sims_per_move"] > 0 and summary["flagged_games"] == 0
