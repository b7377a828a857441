"""What the harness settings (harness.py) change in one decision's exchange with the model: the
turn message (the game so far, the seat's last note, how to answer), the reply schema (a
``reasoning`` string before the move, a ``note`` after it), and reading the reply (the last move
object of a free-text answer, the reasoning and the note taken out before the engine judges the
move).

With the default harness every text and schema is exactly the plain seat's."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from duel.agents.llm.schema import json_objects, last_json_object
from duel.prompts.harness import NOTE_CHARS, THINK_CHARS, Harness

# The variant's closing line (duel.prompts.Variant.turn_message), which the harness rewrites.
ANSWER_LINE = ('Answer with only the JSON object of your move, in the form '
               '{"move": ..., "moveData": {...}}.')
REASK_LINE = 'Answer again with only the JSON object {"move": ..., "moveData": {...}}.'
STRUCTURED_MODES = ("json_schema", "tool", "json_object")  # the reply is one JSON object
REASONING = "reasoning"
NOTE = "note"
_NOTE_EXAMPLE = f'"{NOTE}": "..."'


@dataclass
class Taken:
    """A reply's move object with the harness's fields taken out: the reasoning (recorded as
    the call's thinking) and the note (kept for the next turn)."""

    move: Any
    reasoning: str = ""
    note: str | None = None


def _form(h: Harness, structured: bool) -> str:
    keys = []
    if h.think == "text" and structured:
        keys.append(f'"{REASONING}": "..."')
    keys += ['"move": ...', '"moveData": {...}']
    if h.notes:
        keys.append(_NOTE_EXAMPLE)
    return "{" + ", ".join(keys) + "}"


def answer_line(h: Harness, structured: bool, bounded: bool = False) -> str:
    """How to answer: the variant's own line with the default harness. `bounded`: the
    reasoning field's length is held by the server's grammar, and the model is told so."""
    if h.is_default or (h.think == "off" and not h.notes):
        return ANSWER_LINE
    parts = []
    form = _form(h, structured)
    if h.think == "text" and structured:
        limit = f" (at most {THINK_CHARS} characters)" if bounded else ""
        parts.append(f"Answer with one JSON object, {form}: in \"{REASONING}\" think step by "
                     f"step in words{limit} about the position and your options, then give your "
                     "move.")
    elif h.think == "text":
        parts.append("First think step by step in words about the position and your options. "
                     f"Then end your answer with the JSON object of your move, in the form "
                     f"{form}.")
    else:
        parts.append(f"Answer with only the JSON object of your move, in the form {form}.")
    if h.notes:
        parts.append(f'In "{NOTE}" you may keep a short plan for your next turns (at most '
                     f"{NOTE_CHARS} characters; longer is cut): it is given back to you next "
                     "turn, and only you see it until the game is over.")
    return " ".join(parts)


def reask_line(h: Harness, structured: bool) -> str:
    if h.think == "off" and not h.notes:
        return REASK_LINE
    if h.think == "text" and not structured:
        return ("Think again in words if you need to, then end your answer with the JSON object "
                f"{_form(h, structured)}.")
    return f"Answer again with the JSON object {_form(h, structured)}."


def turn_message(h: Harness, plain: str, history: list[str] | None, note: str | None,
                 structured: bool, bounded: bool = False) -> str:
    """The variant's turn message `plain` with the harness's parts: the game so far before
    the state, the seat's last note after it, and its own closing line."""
    if h.is_default:
        return plain
    head, sep, _ = plain.rpartition(ANSWER_LINE)
    body = head.rstrip("\n") if sep else plain
    parts = []
    if h.history:
        parts.append(history_block(h, history))
    parts.append(body)
    if h.notes:
        parts.append(f"Your note from your last move: {note}" if note
                     else "You have kept no note yet.")
    parts.append(answer_line(h, structured, bounded))
    return "\n\n".join(parts)


def history_block(h: Harness, lines: list[str] | None) -> str:
    if lines is None:
        return "The game so far: not known (this position is asked on its own)."
    if not lines:
        return "The game so far: no move has been played yet."
    shown = lines if h.history < 0 else lines[-h.history:]
    what = "every move" if len(shown) == len(lines) else f"the last {len(shown)} moves"
    return (f"The game so far ({what}, oldest first; you are player 2):\n"
            + "\n".join(shown))


def reply_schema(h: Harness, schema: dict[str, Any], bounded: bool = False) -> dict[str, Any]:
    """`schema` (an object, or an anyOf of objects) with a reasoning string before the move and
    a note after it, as the harness asks for them; `bounded`: with their lengths as maxLength
    (for a server whose grammar holds the reply to it: its provider's `grammar` capability,
    llama.cpp's and vLLM's; OpenAI's and Anthropic's strict subsets take no length)."""
    if h.think == "off" and not h.notes:
        return schema
    if "anyOf" in schema and "properties" not in schema:
        return {**schema, "anyOf": [reply_schema(h, b, bounded) for b in schema["anyOf"]]}

    def text(chars: int) -> dict[str, Any]:
        return {"type": "string", "maxLength": chars} if bounded else {"type": "string"}

    props: dict[str, Any] = {}
    if h.think == "text":
        props[REASONING] = text(THINK_CHARS)
    props.update(schema["properties"])
    if h.notes:
        props[NOTE] = text(NOTE_CHARS)
    extra = [k for k in (REASONING, NOTE) if k in props and k not in schema["properties"]]
    required = [k for k in props if k in (*schema.get("required", []), *extra)]
    return {**schema, "properties": props, "required": required}


def last_move_object(text: str) -> tuple[Any, int] | None:
    """The last top-level JSON object of `text` with a "move" key (else the last object), and
    where it starts; None if there is none. Never guesses a move out of prose."""
    found: tuple[Any, int] | None = None
    move: tuple[Any, int] | None = None
    for obj, start in json_objects(text):
        found = (obj, start)
        if "move" in obj:
            move = (obj, start)
    if move is not None or found is not None:
        return move or found
    # the prompt's own example writes the move name bare: the plain parser repairs that
    repaired = last_json_object(text)
    return (repaired, max(0, text.rfind("{"))) if repaired is not None else None


def take(h: Harness, obj: Any, text: str = "", start: int | None = None) -> Taken:
    """The move object without the harness's fields. `text` and `start`: a free-text reply
    and where its object starts, whose words before it are the reasoning."""
    if not isinstance(obj, dict) or (h.think == "off" and not h.notes):
        return Taken(obj)
    move = dict(obj)
    reasoning = ""
    if h.think == "text":
        said = move.pop(REASONING, None)
        if isinstance(said, str):
            reasoning = said
        elif start is not None:
            reasoning = text[:start]
        reasoning = reasoning.strip().removesuffix("```json").removesuffix("```").strip()
    note = None
    if h.notes:
        said = move.pop(NOTE, None)
        if said is not None:
            note = (said if isinstance(said, str) else json.dumps(said))[:NOTE_CHARS]
    return Taken(move, reasoning, note)
