"""Readable, one-line-per-move text for logs (random games, matches, replays).

A move line reads, e.g.::

     21. Age I  Player 1 builds Piraeus with Baths for 7 coins; plays again  (...)
     22. Age I  Player 1 discards Glassworks for 3 coins  (coins 3-3, military P1 +1, ...)

in the words of duel.words (the one writer of texts for people, the pages' too), with the price paid
(trading included), chains, play-again turns and military tokens that cost coins; then the coins of
both players after the move, the military track (who the pawn favours and by how many steps) and how
many progress tokens each player holds (a token taken is named in its own line). Under an LLM move,
`duel match -v` adds the lines of :func:`llm_lines`: its calls, their tokens and the start of each
call's thinking.
"""

from __future__ import annotations

from typing import Any

from duel import words
from duel.engine import GameState, Move

NAMES = {1: "player 1", 2: "player 2"}
THINKING_CHARS = 400  # of a call's thinking shown under a move: enough to see where it went


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


def move_text(before: GameState, move: Move, after: GameState) -> str:
    """`move` from `before` in words, with what followed: 'Player 1 discards Glassworks for 3
    coins', 'Player 2 builds The Appian Way with Baths for 4 coins; plays again'."""
    text = words.fill(words.move_text(before, move, after), NAMES)
    return f"Player {before.current + 1} {text}"


def numbered_line(ply: int, before: GameState, move: Move, after: GameState) -> str:
    text = move_text(before, move, after)
    age = words.AGES.get(before.age, "") if before.step != 0 else "Draft"
    age_note = f" [{words.AGES[after.age]} begins]" if after.age != before.age else ""
    return f"{ply:3d}. {age:8} {text}  ({status(after)}){age_note}"


def details_lines(before: GameState, details: dict[str, Any]) -> list[str]:
    """A non-LLM agent's details in words, for `duel match -v`: a search's statistics and top
    moves, a rule's reason."""
    lines = words.details_words(details)
    if isinstance(details.get("top"), list):
        lines.append(f"search: {details.get('iterations', '?')} iterations in "
                     f"{details.get('seconds', '?')} s")
        for row in details["top"]:
            text = words.move_json_text(before, row.get("move")) if isinstance(row, dict) else None
            if text:
                lines.append(f"  {words.fill(text, NAMES)}: {row.get('visits')} visits, "
                             f"win rate {100 * float(row.get('value') or 0):.0f}%")
    return lines


def result_lines(state: GameState) -> list[str]:
    result = state.result()
    if result is None:
        return ["game not over"]
    lines = []
    who = "shared victory" if result.winner is None else f"{result.winner} wins"
    lines.append(f"Result: {who} {words.VICTORY.get(result.victory, result.victory)}")
    width = max(len(name) for _, name in words.SCORE)
    lines.append(f"  {'':{width}}  P1  P2")
    s1, s2 = state.score(0), state.score(1)
    for k, name in words.SCORE:
        lines.append(f"  {name:{width}} {s1[k]:3d} {s2[k]:3d}")
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
        category = words.CATEGORY.get(str(c.get("category")), str(c.get("category")))
        cached = c.get("cached_tokens") or 0
        text = (f"attempt {c.get('attempt')}: {category}, {c.get('input_tokens', 0)} "
                f"in" + (f" ({cached} cached)" if cached else "")
                + f" / {c.get('output_tokens', 0)} out"
                + (f" ({reasoning} reasoning)" if reasoning else "")
                + f", {float(c.get('latency_s') or 0):.1f} s")
        if c.get("error"):
            text += f": {c['error']}"
        lines.append(text)
        if c.get("thinking"):
            lines.append(f"  thinking: {clip(str(c['thinking']))}")
    return lines
