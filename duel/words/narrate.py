"""Readable, one-line-per-move text for logs (random games, matches, replays).

A move line reads, e.g.::

     21. Age I  Player 1 builds Piraeus with Baths for 7 coins; plays again  (...)
     22. Age I  Player 1 discards Glassworks for 3 coins  (coins 3-3, military P1 +1, ...)

in the words of duel.words (the one writer of texts for people, the pages' too), with the price paid
(trading included), chains, play-again turns and military tokens that cost coins; then the coins of
both players after the move, the military track (who the pawn favours and by how many steps) and how
many progress tokens each player holds (a token taken is named in its own line). Under an LLM move,
`duel match -v` adds the lines of :func:`llm_lines`: its calls, their tokens, the start of each
call's thinking and, with tools=on, each tool call it made.
"""

from __future__ import annotations

import json
from typing import Any

from duel.engine import GameState, Move
from duel.words.agents import CATEGORY, details_words
from duel.words.moves import move_json_text
from duel.words.moves import move_text as move_words
from duel.words.names import AGES, SCORE, VICTORY, fill

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
    text = fill(move_words(before, move, after), NAMES)
    return f"Player {before.current + 1} {text}"


def numbered_line(ply: int, before: GameState, move: Move, after: GameState) -> str:
    text = move_text(before, move, after)
    age = AGES.get(before.age, "") if before.step != 0 else "Draft"
    age_note = f" [{AGES[after.age]} begins]" if after.age != before.age else ""
    return f"{ply:3d}. {age:8} {text}  ({status(after)}){age_note}"


def details_lines(before: GameState, details: dict[str, Any]) -> list[str]:
    """A non-LLM agent's details in words, for `duel match -v`: a search's statistics and top
    moves, a rule's reason."""
    lines = details_words(details)
    if isinstance(details.get("top"), list):
        lines.append(f"search: {details.get('iterations', '?')} iterations in "
                     f"{details.get('seconds', '?')} s")
        for row in details["top"]:
            text = move_json_text(before, row.get("move")) if isinstance(row, dict) else None
            if text:
                lines.append(f"  {fill(text, NAMES)}: {row.get('visits')} visits, "
                             f"win rate {100 * float(row.get('value') or 0):.0f}%")
    return lines


def result_lines(state: GameState) -> list[str]:
    result = state.result()
    if result is None:
        return ["game not over"]
    lines = []
    who = "shared victory" if result.winner is None else f"{result.winner} wins"
    lines.append(f"Result: {who} {VICTORY.get(result.victory, result.victory)}")
    width = max(len(name) for _, name in SCORE)
    lines.append(f"  {'':{width}}  P1  P2")
    s1, s2 = state.score(0), state.score(1)
    for k, name in SCORE:
        lines.append(f"  {name:{width}} {s1[k]:3d} {s2[k]:3d}")
    return lines


def clip(text: str, limit: int = THINKING_CHARS) -> str:
    """`text` on one line (runs of white space made one space), cut at `limit` characters with
    "..." after."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "..."


def llm_lines(llm: dict[str, Any]) -> list[str]:
    """An LLM move's account for `duel match -v`: the outcome (with the seat's harness
    settings, when not the defaults), each adaptation of the model's parameters, then per call
    its category, tokens (reasoning ones too), latency, error, and the start of the thinking it
    returned; then the note it kept (notes=on)."""
    if llm.get("fallback"):
        outcome = f"no legal move: fallback {llm['fallback']}"
    else:
        outcome = f"legal at attempt {llm.get('legal_at_attempt')}"
    lines = [f"LLM: {outcome}" + (f" (harness {llm['harness']})" if llm.get("harness")
                                    else "")]
    for a in llm.get("adaptations") or []:
        lines.append(f"adapted {a.get('parameter')}: {a.get('change')} ({a.get('reason')})")
    for c in llm.get("calls") or []:
        reasoning = c.get("reasoning_tokens") or 0
        category = CATEGORY.get(str(c.get("category")), str(c.get("category")))
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
        lines.extend(f"  {line}" for line in tool_lines(c.get("tool_calls") or []))
    if llm.get("tools"):
        t = llm["tools"]
        lines.append(f"tools: {t.get('used')} of {t.get('steps')} look-ups used")
    image = llm.get("image")
    if isinstance(image, dict):
        lines.append(f"board image: {image.get('width')}x{image.get('height')} PNG, "
                     f"{image.get('bytes')} bytes (about {image.get('tokens_openai')} input "
                     f"tokens on OpenAI, {image.get('tokens_anthropic')} on Anthropic)")
    if llm.get("note"):
        lines.append(f"note kept: {clip(str(llm['note']))}")
    return lines


def tool_lines(calls: list[dict[str, Any]]) -> list[str]:
    """Tool calls (their records' JSON form), one line each: the tool, its arguments, then the
    size of the answer and the time, or why the call was refused."""
    lines = []
    for t in calls:
        args = t.get("arguments")
        shown = clip(json.dumps(args, separators=(",", ":")), 120) if args \
            else clip(str(t.get("raw") or ""), 120)
        text = f"tool {t.get('tool')}({shown})"
        if t.get("error"):
            text += f": refused: {clip(str(t['error']), 160)}"
        elif t.get("chars") is not None:
            text += f" -> {t['chars']} chars"
        if t.get("seconds") is not None:
            text += f", {float(t['seconds']):.3f} s"
        lines.append(text)
    return lines
