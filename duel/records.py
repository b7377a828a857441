"""The one move-record type (a decision as the match runner, the server's store and the
transcripts keep it) and the one game summary (a finished game in a line).

A record is in true labels (the engine's), whatever labels the agent saw; its JSON form is the
transcript's move line without ``"type"``, and the store keeps exactly that JSON.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duel.accounting.totals import checked_totals
from duel.agents.account import SeatAccount, accounts_json, checked_accounts
from duel.agents.search_time import SearchTime, checked_search_times, search_times_json
from duel.engine import GameState, Move, Perspective, Result, Seat
from duel.errors import DuelError, InvalidStateError


def view_hash(view: dict[str, Any]) -> str:
    """A stable hash of a view (canonical JSON): a record's proof of what its player saw."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def mover_view_hash(state: GameState) -> str:
    """The hash of the view the player to move has of `state`."""
    return view_hash(Perspective.to_move(state).view(state))


@dataclass(frozen=True)
class MoveRecord:
    """One decision. A resignation is a record too (``details["forfeit"]``, its move never
    played, price 0), the last of its game."""

    ply: int  # 1 for the game's first decision
    seat: Seat
    step: str
    move: Move  # true labels
    price: int
    view_hash: str  # of the view the player decided from
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)  # true labels (Perspective.details_in)

    @property
    def is_forfeit(self) -> bool:
        return self.details.get("forfeit") is True

    @staticmethod
    def decided(state: GameState, move: Move, seconds: float, details: dict[str, Any],
                forfeit: bool = False) -> MoveRecord:
        """The record of the player to move in `state` choosing `move` (or resigning)."""
        return MoveRecord(state.ply + 1, Seat.of_index(state.current), state.step_name, move,
                          0 if forfeit else state.price(move), mover_view_hash(state),
                          round(seconds, 4), {**details, "forfeit": True} if forfeit
                          else details)

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "player": self.seat.player, "step": self.step,
                "move": self.move.to_json(), "price": self.price, "view_hash": self.view_hash,
                "seconds": self.seconds, "details": self.details}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MoveRecord:
        """Read :meth:`to_json`'s form (a transcript line already checked against its schema,
        or a row of the store)."""
        return MoveRecord(obj["ply"], Seat.of_player(obj["player"]), obj["step"],
                          Move.from_json(obj["move"]), obj["price"], obj["view_hash"],
                          obj["seconds"], obj["details"])


@dataclass(frozen=True)
class GameSummary:
    """One finished game in a line: a tournament's ``games.jsonl`` record, and what ratings and
    grading read from a verified transcript."""

    seed: int | None
    specs: tuple[str, str]  # player 1's agent spec, player 2's
    result: Result
    moves: int
    seconds: float
    totals: dict[str, Any] | None = None  # each seat's LLM totals by player ("1", "2"), if any
    # whose moves each seat's were, by player ("1", "2"); None: a line written before accounts
    accounts: dict[str, SeatAccount] | None = None
    # each seat's searched moves' times and iterations, by player; None: no seat searched (or a
    # line written before they were counted)
    search: dict[str, SearchTime] | None = None

    def points(self, seat: Seat) -> float:
        return self.result.points(seat)

    def account(self, seat: Seat) -> SeatAccount | None:
        return None if self.accounts is None else self.accounts[str(seat.player)]

    def search_time(self, seat: Seat) -> SearchTime | None:
        return None if self.search is None else self.search.get(str(seat.player))

    def to_json(self) -> dict[str, Any]:
        """``{"seed", "player1", "player2", "winner", "victory", "scores": [total1, total2],
        "moves", "seconds"}``: the tournament file's line; games with an LLM seat add
        ``"totals"``, each seat's LLM totals as the transcript's result line has them, and
        games with a searching seat ``"search"``, its searched moves' times
        (duel.agents.search_time)."""
        r = self.result
        line: dict[str, Any] = {
            "seed": self.seed, "player1": self.specs[0], "player2": self.specs[1],
            "winner": r.winner_label, "victory": r.victory,
            "scores": [r.total(Seat.P1), r.total(Seat.P2)],
            "moves": self.moves, "seconds": self.seconds}
        if self.accounts is not None:
            line["accounts"] = accounts_json(self.accounts)
        if self.totals:
            line["totals"] = self.totals
        if self.search:
            line["search"] = search_times_json(self.search)
        return line

    @staticmethod
    def from_json(obj: Any) -> GameSummary:
        """Read :meth:`to_json`'s form; InvalidStateError names a bad field."""
        if not isinstance(obj, dict):
            raise InvalidStateError("a game record must be a JSON object")
        try:
            scores = obj["scores"]
            if not (isinstance(scores, list) and len(scores) == 2
                    and all(type(x) is int for x in scores)):
                raise InvalidStateError("game record field scores must be two integers")
            winner = obj["winner"]
            victory = obj["victory"]
            forfeit = None
            if victory == "forfeit":
                forfeit = Seat.of_player(winner).other
            result = Result.from_json({
                "winner": winner, "victory": victory,
                "forfeit": None if forfeit is None else forfeit.player,
                "scores": {"player1": {"TOTAL": scores[0]}, "player2": {"TOTAL": scores[1]}}})
            specs = (str(obj["player1"]), str(obj["player2"]))
            moves, seconds, seed = obj["moves"], obj["seconds"], obj["seed"]
        except KeyError as exc:
            raise InvalidStateError(f"game record field {exc.args[0]} is missing") from None
        if type(moves) is not int or not isinstance(seconds, int | float) \
                or not (seed is None or type(seed) is int):
            raise InvalidStateError("game record fields seed, moves and seconds must be numbers")
        return GameSummary(seed, specs, result, moves, float(seconds),
                           checked_totals(obj.get("totals")),
                           checked_accounts(obj.get("accounts")),
                           checked_search_times(obj.get("search")))


def read_games(path: Path) -> list[GameSummary]:
    """The games of a tournament file. A line cut short by a kill, or not a game record, is
    skipped: that game is simply played again."""
    done = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                done.append(GameSummary.from_json(json.loads(line)))
            except (json.JSONDecodeError, DuelError):
                continue
    return done
