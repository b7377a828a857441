"""Readable, one-line-per-move text for logs (random games, matches, replays)."""

from __future__ import annotations

from duel.engine import GameState, Move
from duel.engine.moves import CONSTRUCT_BUILDING, CONSTRUCT_WONDER
from duel.engine.view import previous_move_text


def describe(after: GameState) -> str:
    """The move that led to `after`, in words, e.g. 'Player 1 constructed QUARRY for 0 coins'."""
    return previous_move_text(after, flip=False)


def status(state: GameState) -> str:
    """Coins, military and tokens after a move: the facts a reader follows between moves."""
    a, b = state.players
    return (f"coins {a.coins}-{b.coins}, military {state.military:+d}, "
            f"tokens {len(a.token_list)}-{len(b.token_list)}")


def move_line(ply: int, before: GameState, move: Move, after: GameState) -> str:
    note = ""
    if move.kind in (CONSTRUCT_BUILDING, CONSTRUCT_WONDER) and after.age != before.age:
        note = f" [Age {after.age} begins]"
    return f"{ply:3d}. Age {before.age} {describe(after)}  ({status(after)}){note}"


def result_lines(state: GameState) -> list[str]:
    result = state.result()
    if result is None:
        return ["game not over"]
    lines = []
    winner = result["winner"]
    who = "shared victory" if winner == "draw" else f"player {winner} wins"
    lines.append(f"Result: {who} ({result['victory']} victory)")
    keys = list(state.score(0))
    width = max(len(k) for k in keys)
    lines.append(f"  {'':{width}}  P1  P2")
    s1, s2 = state.score(0), state.score(1)
    for k in keys:
        lines.append(f"  {k:{width}} {s1[k]:3d} {s2[k]:3d}")
    return lines
