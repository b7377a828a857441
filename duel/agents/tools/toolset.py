"""The one tool set: what a seat may ask about its game, and its move, as tools.

Each tool is defined once here (`TOOLS`: a name, a description and the JSON Schema of its
arguments, the move's built from the engine's move model in `schemas.py`, which also derives
the providers' forms) and answered once here (`SeatTools.call`), from the seat's `SeatStatus`
only. The MCP server (`duel.mcp`) publishes them with a `game` argument added; the LLM seat's
tool loop offers them as function tools. Both check the arguments they receive here, against
the published schema (after the slips clients are known to make are repaired and named:
`lenient.py`), so a client reads exactly the rules it is held to.

Tools that only read (`get_state`, `legal_moves`, `explain`, `simulate`) never change the game;
`make_move` commits the seat's turn through the game's host (a `Table`) and answers with the
state once the opponent has answered. A malformed or illegal move is refused with the engine's
reason and changes nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from jsonschema import Draft202012Validator, validators

from duel.engine import IllegalMoveError, InvalidMoveError, Move, Seat
from duel.engine.explain import unavailable
from duel.engine.layout import COVERED_BY
from duel.engine.moves import MoveKind
from duel.errors import ConflictError, TooLargeError, UsageError

from .lenient import expected_shape, loosen
from .record import ToolCall
from .schemas import move_params
from .simulate import simulate
from .status import OPPONENT, SeatStatus
from .words import explain, move_text

ARGUMENTS_LIMIT = 2_000  # characters of a call's arguments as JSON: a move is about 80
MOVE_ARGS = ("move", "moveData")
STRUCTURE_MOVES = (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD, MoveKind.CONSTRUCT_WONDER)


@dataclass(frozen=True)
class ToolDef:
    """One tool: its name, what it does (for the model or client that calls it) and its
    arguments' JSON Schemas. `move` tools take the prompt's move JSON as `move` and
    `moveData`, checked by the engine's parser (its messages name the wrong field)."""

    name: str
    description: str
    params: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    move: bool = False
    commits: bool = False  # changes the game (all others only read)

    def schema(self, extra: Mapping[str, dict[str, Any]] | None = None,
               extra_required: tuple[str, ...] = ()) -> dict[str, Any]:
        """The arguments' JSON Schema; `extra` arguments (the MCP server's `game`) first."""
        props = {**(extra or {}), **self.params}
        return {"type": "object", "properties": props,
                "required": [*extra_required, *self.required], "additionalProperties": False}


_SEAT_NOTE = ("You are always player2 in the state; player1 is your opponent. ")

TOOLS: tuple[ToolDef, ...] = (
    ToolDef("get_state",
            "The game state as you see it (the rules prompt's JSON; no hidden card), whether "
            "it is your turn, whether the game is over and, once it is, its result. "
            + _SEAT_NOTE),
    ToolDef("legal_moves",
            "Your legal moves now, each as the {move, moveData} to send to make_move, with its "
            "price in coins and a line in words. With why_not=true, also the structure's "
            "moves you cannot make and why (covered, too dear, wonder already built).",
            {"why_not": {"type": "boolean", "default": False,
                         "description": "also list the moves you cannot make, with reasons"}}),
    ToolDef("explain",
            "A card, wonder or progress token in words: its cost, its effect, its chains, "
            "where it is in this game and what it would cost you.",
            {"name": {"type": "string", "minLength": 1, "maxLength": 100,
                      "description": "the name as the state spells it, e.g. LUMBER_YARD"}},
            ("name",)),
    ToolDef("simulate",
            "What a move would change, without playing it: your coins and your opponent's, "
            "the military pawn and its tokens, points, science symbols, chains, what comes "
            "next, and which cards it uncovers (a face-down card stays unknown). An illegal "
            "move is an error with the reason.",
            move_params(), MOVE_ARGS, move=True),
    ToolDef("make_move",
            "Play your move: the {move, moveData} JSON of the rules prompt. Answers with the "
            "state once your opponent has answered, and the moves played since, in words. An "
            "illegal or malformed move is an error with the reason and changes nothing.",
            move_params(), MOVE_ARGS, move=True, commits=True),
)
TOOLS_BY_NAME: dict[str, ToolDef] = {t.name: t for t in TOOLS}

# JSON Schema counts 1.0 as an integer; a tool's integer is an int (never a bool, either).
_STRICT = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer",
                                                            lambda _, x: type(x) is int))
_VALIDATORS: dict[str, dict[str, Any]] = {}


def _validators(tool: ToolDef) -> dict[str, Any]:
    if tool.name not in _VALIDATORS:
        _VALIDATORS[tool.name] = {k: _STRICT(s) for k, s in tool.params.items()
                                  if not (tool.move and k in MOVE_ARGS)}
    return _VALIDATORS[tool.name]


def check_arguments(tool: ToolDef, arguments: Any, skip: tuple[str, ...] = ()
                    ) -> dict[str, Any]:
    """`arguments` checked against `tool`'s schema (names in `skip` are the caller's own, such
    as the MCP server's `game`); defaults filled in. UsageError names what is wrong."""
    return checked_arguments(tool, arguments, skip)[0]


def checked_arguments(tool: ToolDef, arguments: Any, skip: tuple[str, ...] = ()
                      ) -> tuple[dict[str, Any], list[str]]:
    """`check_arguments`, after the known slips of clients are repaired (`lenient.loosen`),
    and the repairs made."""
    if not isinstance(arguments, dict):
        raise UsageError(f"{tool.name} takes a JSON object of arguments, got "
                         f"{type(arguments).__name__}")
    size = len(json.dumps(arguments, default=str))
    if size > ARGUMENTS_LIMIT:
        raise TooLargeError(f"{tool.name}'s arguments are {size} characters of JSON; at most "
                            f"{ARGUMENTS_LIMIT}")
    args, repairs = loosen(dict(tool.params), tool.required, tool.move,
                           {k: v for k, v in arguments.items() if k not in skip})
    unknown = sorted(set(args) - set(tool.params))
    if unknown:
        takes = ", ".join(tool.params) or "no arguments"
        raise UsageError(f"{tool.name} has no argument(s) {unknown}; it takes {takes}")
    missing = [k for k in tool.required if k not in args]
    if missing:
        raise UsageError(f"{tool.name} needs argument(s) {missing}")
    out = {k: s["default"] for k, s in tool.params.items() if "default" in s}
    for key, value in args.items():
        validator = _validators(tool).get(key)
        if validator is not None:
            error = next(iter(validator.iter_errors(value)), None)
            if error is not None:
                raise UsageError(f"{tool.name} argument {key}: {error.message}")
        out[key] = value
    return out, repairs


class Table(Protocol):
    """A seat's game, wherever it is hosted: in this process (`duel.mcp.hosted`), on a `duel
    serve` server (`duel.mcp.remote`), or one turn handed to an agent. `play` commits a move
    the tool set has checked (in the seat's labels: it is player2), raising ConflictError if
    the game has moved on meanwhile, and returns the new status and the moves played since,
    in words."""

    def status(self) -> SeatStatus: ...

    def play(self, move: Move, details: dict[str, Any]) -> tuple[SeatStatus, list[str]]: ...


class OneTurn:
    """The `Table` of one decision's view alone (the seat is player2 in it, the number of moves
    played unknown), as the LLM seat's tool loop and Inspect's suite positions have it:
    make_move's move is the decision's answer, for the attempt policy to judge, and nothing is
    played here."""

    def __init__(self, view: dict[str, Any]) -> None:
        self._status = SeatStatus(Seat.P2, view, None, False)

    def status(self) -> SeatStatus:
        return self._status

    def play(self, move: Move, details: dict[str, Any]) -> tuple[SeatStatus, list[str]]:
        raise ConflictError("make_move is the decision's answer: nothing is played here")


def state_answer(status: SeatStatus) -> dict[str, Any]:
    """get_state's answer (and the start of make_move's)."""
    out: dict[str, Any] = {"state": status.view, "your_turn": status.your_turn,
                           "over": status.over, "seat": status.seat.player}
    if status.ply is not None:
        out["ply"] = status.ply
    if status.over:
        out["result"] = status.result_json()
    elif not status.your_turn:
        out["note"] = f"your opponent (player{OPPONENT} in the state) is to move"
    return out


def _turn(status: SeatStatus, tool: str) -> None:
    """ConflictError unless the seat is to move."""
    if status.over:
        raise ConflictError(f"{tool}: the game is over")
    if not status.your_turn:
        raise ConflictError(f"{tool}: it is not your turn; your opponent (player{OPPONENT} "
                            "in the state) is to move")


def legal_moves_answer(status: SeatStatus, why_not: bool = False) -> dict[str, Any]:
    """legal_moves' answer: every legal move with its price and a line in words, and with
    `why_not` the structure's moves that cannot be made, each with its reason."""
    if not status.your_turn:
        return {"moves": [], "your_turn": False, "over": status.over,
                "note": "the game is over" if status.over else
                "not your turn: your opponent is to move"}
    t = status.info.template
    moves = [{**m.to_json(), "price": p, "text": move_text(t, m, p)}
             for m, p in t.priced_moves()]
    out: dict[str, Any] = {"moves": moves, "your_turn": True, "over": False,
                           "step": status.view["step"]}
    if why_not:
        out["unavailable"] = _refused(status)
    return out


def _refused(status: SeatStatus) -> list[dict[str, Any]]:
    """The structure's moves the seat cannot make, slot by slot: a covered card once (a
    face-down one too: the view tells its slot, never its name), then an uncovered card's
    building and wonders that are too dear or already built (the engine's reasons)."""
    t = status.info.template
    if t.step_name != "PLAY_CARD":
        return []
    hidden = {slot for slot, _ in status.info.hidden_slots}
    by_slot: dict[int, list[dict[str, Any]]] = {}
    for m, why, p in unavailable(t):
        if (t.accessible >> m.card_index) & 1:  # the engine's covered cards: below
            by_slot.setdefault(m.card_index, []).append(
                {**m.to_json(), "reason": why, **({"price": p} if p is not None else {})})
    out: list[dict[str, Any]] = []
    for slot in range(20):
        present = t.pyramid[slot] >= 0 or slot in hidden
        if present and not (t.accessible >> slot) & 1:
            covering = [s for s in COVERED_BY[t.age - 1][slot]
                        if t.pyramid[s] >= 0 or s in hidden]
            face = "face down, covered by " if slot in hidden else "covered by "
            out.append({**Move(MoveKind.CONSTRUCT_BUILDING, card_index=slot).to_json(),
                        "reason": face + " and ".join(str(s) for s in covering)})
        out.extend(by_slot.get(slot, []))
    return out


def checked_move(status: SeatStatus, tool: str, move_json: dict[str, Any]) -> Move:
    """The seat's move, parsed and judged legal by the engine from its view: InvalidMoveError
    (malformed), ConflictError (not its turn) or IllegalMoveError (with the engine's reason)."""
    try:
        move = Move.from_json(move_json)
    except InvalidMoveError as exc:
        raise InvalidMoveError(f"{exc}; {expected_shape(move_json.get('move'))}") from None
    _turn(status, tool)
    t = status.info.template
    if move not in t.legal_moves():
        raise IllegalMoveError(f"{tool}: that move is not legal: {why_illegal(status, move)} "
                               "(legal_moves lists the legal ones)")
    return move


def why_illegal(status: SeatStatus, move: Move) -> str:
    """The engine's reason, from the view: where the view's template knows no card (a face-down
    one), the structure's words are said here as the engine says them of the true state."""
    t = status.info.template
    slot = move.card_index
    if move.kind in STRUCTURE_MOVES and t.step_name == "PLAY_CARD" and 0 <= slot < 20:
        hidden = {s for s, _ in status.info.hidden_slots}
        if slot in hidden or (t.pyramid[slot] >= 0 and not (t.accessible >> slot) & 1):
            covering = [s for s in COVERED_BY[t.age - 1][slot]
                        if t.pyramid[s] >= 0 or s in hidden]
            return (f"card {slot} is covered by slot(s) {covering}; active slots: "
                    f"{t.accessible_slots()}")
    return t.why_illegal(move)


class SeatTools:
    """The tool set bound to one seat's game (`table`). `call` answers a tool call by name with
    a JSON-able dict, or raises a DuelError naming what was wrong; `calls` records each call
    since the seat's last move (`ToolCall`: tool, arguments, answer size, seconds), handed to
    the move's details when make_move commits."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.calls: list[ToolCall] = []

    def call(self, name: str, arguments: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
        start = time.perf_counter()
        tool = TOOLS_BY_NAME.get(name)
        record = ToolCall(str(name)[:100])
        try:
            if tool is None:
                raise UsageError(f"no tool is named {str(name)[:60]!r}; tools: "
                                 f"{', '.join(TOOLS_BY_NAME)}")
            args, repairs = checked_arguments(tool, arguments, skip)
            record.arguments = args
            record.repairs = repairs or None
            answer = self._answer(tool, args)
            record.chars = len(json.dumps(answer))
            return answer
        except Exception as exc:
            record.error = str(exc)[:300]
            raise
        finally:
            record.seconds = round(time.perf_counter() - start, 4)
            if tool is not None and tool.commits and record.error is None:
                self.calls = []
            else:
                self.calls.append(record)

    def _answer(self, tool: ToolDef, args: dict[str, Any]) -> dict[str, Any]:
        status = self.table.status()
        if tool.name == "get_state":
            return state_answer(status)
        if tool.name == "legal_moves":
            return legal_moves_answer(status, args["why_not"])
        if tool.name == "explain":
            return explain(status.info.template, args["name"])
        move = checked_move(status, tool.name, {k: args[k] for k in MOVE_ARGS})
        if tool.name == "simulate":
            return simulate(status.info, move)
        details = {"tool_calls": [c.to_json() for c in self.calls]} if self.calls else {}
        after, played = self.table.play(move, details)
        return {**state_answer(after), "played": played}
