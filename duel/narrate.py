"""Readable, one-line-per-move text for logs (random games, matches, replays).

A move line reads, e.g.::

     21. Age 1 Player 1 constructed wonder PIRAEUS with BATHS for 7 coins; plays again  (...)
     22. Age 1 Player 1 discarded GLASSWORKS and gained 3 coins  (coins 3-3, military P1 +1, ...)

with the price paid (trading included), chains, play-again turns and military tokens that cost
coins; then the coins of both players after the move, the military track (who the pawn favours
and by how many steps) and how many progress tokens each player holds (a token taken is named in
its own line). Under an LLM move, `duel match -v` adds the lines of :func:`llm_lines`: its calls,
their tokens and the start of each call's thinking.
"""

from __future__ import annotations

from typing import Any

from duel.engine import CARDS, GameState, Move
from duel.engine.data import CHAIN_FROM
from duel.engine.moves import MoveKind
from duel.engine.steps import CHOOSE_START, LOOT2_P1, LOOT2_P2, LOOT5_P1, LOOT5_P2, PLAY_CARD
from duel.engine.view import previous_move_text

_LOOT = ((LOOT2_P1, 1, 2), (LOOT5_P1, 1, 5), (LOOT2_P2, 2, 2), (LOOT5_P2, 2, 5))
THINKING_CHARS = 400  # of a call's thinking shown under a move: enough to see where it went


def describe(after: GameState) -> str:
    """The move that led to `after`, in words, e.g. 'Player 1 constructed QUARRY for 0 coins'."""
    return previous_move_text(after, flip=False)


def military(state: GameState) -> str:
    """The pawn: 'military even', or 'military P1 +3' (3 steps towards player 2's capital)."""
    pos = state.military
    if pos == 0:
        return "military even"
    return f"military P{1 if pos > 0 else 2} +{abs(pos)}"


def status(state: GameState) -> str:
    """Coins, military and tokens after a move: the facts a reader follows between moves."""
    a, b = state.players
    return (f"coins {a.coins}-{b.coins}, {military(state)}, "
            f"tokens {len(a.token_list)}-{len(b.token_list)}")


def _notes(before: GameState, move: Move, after: GameState) -> list[str]:
    notes = []
    seat = before.current
    if move.kind == MoveKind.CONSTRUCT_BUILDING:
        card = before.pyramid[move.card_index]
        source = CHAIN_FROM[card]
        if source >= 0 and before.players[seat].has_card(source):
            notes.append(f"chained from {CARDS[source].name}")
    for bit, victim, coins in _LOOT:
        if before.loot & bit and not after.loot & bit:
            notes.append(f"military token: player {victim} loses {coins} coins")
    # The turn is over and the same player goes on (a play-again wonder, Theology).
    if (after.step == PLAY_CARD and after.current == seat and before.step != CHOOSE_START
            and after.age == before.age):
        notes.append("plays again")
    return notes


def move_text(before: GameState, move: Move, after: GameState) -> str:
    """`move` from `before` in words, with its notes: 'Player 1 discarded GLASSWORKS and
    gained 3 coins', 'Player 2 constructed ...; plays again'."""
    text = describe(after)
    if move.kind == MoveKind.DISCARD:
        # The engine's text says "for N coins": coins gained, not paid.
        text = text.replace(" for ", " and gained ", 1)
    notes = _notes(before, move, after)
    if notes:
        text += "; " + "; ".join(notes)
    return text


def numbered_line(ply: int, before: GameState, move: Move, after: GameState) -> str:
    text = move_text(before, move, after)
    age_note = f" [Age {after.age} begins]" if after.age != before.age else ""
    return f"{ply:3d}. Age {before.age} {text}  ({status(after)}){age_note}"


def result_lines(state: GameState) -> list[str]:
    result = state.result()
    if result is None:
        return ["game not over"]
    lines = []
    who = "shared victory" if result.winner is None else f"{result.winner} wins"
    lines.append(f"Result: {who} ({result.victory} victory)")
    keys = list(state.score(0))
    width = max(len(k) for k in keys)
    lines.append(f"  {'':{width}}  P1  P2")
    s1, s2 = state.score(0), state.score(1)
    for k in keys:
        lines.append(f"  {k:{width}} {s1[k]:3d} {s2[k]:3d}")
    return lines


def clip(text: str, limit: int = THINKING_CHARS) -> str:
    """`text` on one line (runs of white space made one space), cut at `limit` characters with
    "..." after."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "..."


def llm_lines(llm: dict[str, Any]) -> list[str]:
    """An LLM move's account for `duel match -v`: the outcome, each adaptation of the model's
    parameters, then per call its category, tokens (reasoning ones too), latency, error, and
    the start of the thinking it returned."""
    if llm.get("fallback"):
        outcome = f"no legal move: fallback {llm['fallback']}"
    else:
        outcome = f"legal at attempt {llm.get('legal_at_attempt')}"
    lines = [f"LLM: {outcome}"]
    for a in llm.get("adaptations") or []:
        lines.append(f"adapted {a.get('parameter')}: {a.get('change')} ({a.get('reason')})")
    for c in llm.get("calls") or []:
        reasoning = c.get("reasoning_tokens") or 0
        text = (f"attempt {c.get('attempt')}: {c.get('category')}, {c.get('input_tokens', 0)} "
                f"in / {c.get('output_tokens', 0)} out"
                + (f" ({reasoning} reasoning)" if reasoning else "")
                + f", {float(c.get('latency_s') or 0):.1f} s")
        if c.get("error"):
            text += f": {c['error']}"
        lines.append(text)
        if c.get("thinking"):
            lines.append(f"  thinking: {clip(str(c['thinking']))}")
    return lines
