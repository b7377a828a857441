"""The games one `duel mcp` process serves, by id: hosted here (the opponent one of the
operator's agents, under `duel serve`'s catalogue and search caps), or seats of a `duel serve`
game reached through its REST API (`--server URL`). Each has the tool set bound to it.

Game management has tools of its own (`new_game`, `join_game`), defined like the seat's
(`ToolDef`, checked by `check_arguments`) but answered here.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duel.agents.tools import SeatTools, ToolDef, check_arguments, state_answer
from duel.engine import Seat
from duel.errors import BusyError, GameNotFoundError, UsageError
from duel.util.numbers import SEED_MAX

from .hosted import HostedGame
from .kept import Kept
from .remote import RemoteSeat, Server

DEFAULT_OPPONENT = "mcts:time=1"
MAX_GAMES = 50  # games held at once; the oldest finished ones make room
GAME_PARAM = {"game": {"type": "string", "minLength": 1, "maxLength": 64,
                       "description": "the game's id, as new_game answered"}}

NEW_GAME = ToolDef(
    "new_game",
    "Start a game against an opponent agent. You play seat 1 (player 1: drafts first) or 2; "
    "in every state you see you are player2. A seed fixes the deal (the same seed, the same "
    "deal: anyone who knows it can compute the cards, so leave it out for a secret one). "
    "Answers with the game's id, the state, and whether it is your turn.",
    {"opponent": {"type": "string", "minLength": 1, "maxLength": 300,
                  "default": DEFAULT_OPPONENT,
                  "description": "an agent spec (random, rule, mcts:time=1, "
                                 "mcts:iterations=2000, dqn) or an agent the operator "
                                 "configured, by name"},
     "seat": {"type": "integer", "enum": [1, 2], "default": 1,
              "description": "your true seat: 1 moves first in the wonder draft"},
     "seed": {"type": "integer", "minimum": 0, "maximum": SEED_MAX,
              "description": "the deal's seed (omit for a random deal)"}})

JOIN_GAME = ToolDef(
    "join_game",
    "Take a seat of a game on the duel server this MCP server plays on (duel mcp --server): "
    "its code and your seat's token. Answers like new_game.",
    {"code": {"type": "string", "minLength": 1, "maxLength": 64,
              "description": "the game's code on the server"},
     "token": {"type": "string", "minLength": 1, "maxLength": 200,
               "description": "your seat's bearer token"}},
    ("code", "token"))


@dataclass
class Entry:
    """One game: its table (hosted or remote) and the tool set bound to it."""

    table: HostedGame | RemoteSeat
    tools: SeatTools
    lock: threading.Lock
    opponent: str = ""  # as new_game was asked (a kept game's opponent is built anew from it)


class Games:
    """The games of one MCP server. `catalogue` builds hosted games' opponents (the operator's
    agents and the public built-ins, with `duel serve`'s caps); with `server`, games are seats
    of that `duel serve` server instead; with `keep` (a folder), hosted games are kept there
    for any process to go on with (`kept.py`)."""

    def __init__(self, catalogue: Any = None, transcripts: Path | None = None,
                 server: Server | None = None, wait: float = 120.0,
                 max_games: int = MAX_GAMES, open_box: bool = True,
                 keep: Path | None = None) -> None:
        if catalogue is None:
            from server.work.catalogue import Catalogue

            catalogue = Catalogue()
        self.catalogue = catalogue
        self.transcripts = transcripts
        self.server = server
        self.wait = wait
        self.max_games = max_games
        self.open_box = open_box
        if keep is not None and server is not None:
            raise UsageError("--games keeps hosted games; a duel server keeps its own")
        self.kept = Kept(keep) if keep is not None else None
        self.games: dict[str, Entry] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ management tools
    def new_game(self, arguments: Any) -> dict[str, Any]:
        args = check_arguments(NEW_GAME, arguments)
        opponent = args["opponent"].strip()
        seat = Seat.of_player(args["seat"])
        seed = args.get("seed")
        self._room()
        if self.server is not None:
            code, token = self.server.create(opponent, seat, seed)
            return self._join(code, token, wait=self.wait)
        agent = self.catalogue.build(opponent)  # SpecError: not offered, or over the caps
        if seed is None:
            seed = secrets.randbelow(SEED_MAX)  # unpredictable: the deal stays secret
        if self.kept is None:
            return self._start(f"g{next(self._ids)}", seat, agent, seed, opponent)
        with self.kept.lock():
            return self._start(self.kept.new_id(), seat, agent, seed, opponent)

    def _start(self, gid: str, seat: Seat, agent: Any, seed: int, opponent: str
               ) -> dict[str, Any]:
        game = HostedGame(gid, seat, agent, seed, self.transcripts, self.open_box)
        entry = self._add(gid, game, opponent)
        with entry.lock:
            played = game.start()
            self._keep(entry)
        return self._answer(gid, entry, played)

    def join_game(self, arguments: Any) -> dict[str, Any]:
        args = check_arguments(JOIN_GAME, arguments)
        if self.server is None:
            raise UsageError("join_game plays a seat of a duel server's game: start duel mcp "
                             "with --server URL")
        self._room()
        return self._join(args["code"].strip(), args["token"].strip())

    def _join(self, code: str, token: str, wait: float = 0.0) -> dict[str, Any]:
        """A seat of a server's game; with `wait`, its first turn is waited for (the
        opponent agent of a game just created may draft first)."""
        assert self.server is not None
        seat = RemoteSeat("", self.server, code, token, self.wait)
        if wait > 0:
            seat.wait_turn(wait)
        gid = code if code not in self.games else f"{code}-p{seat.seat.player}"
        if gid in self.games:
            raise UsageError(f"game {code}'s seat {seat.seat.player} is already joined as "
                             f"{gid}")
        seat.id = gid
        entry = self._add(gid, seat)
        return self._answer(gid, entry, [])

    def _answer(self, gid: str, entry: Entry, played: list[str]) -> dict[str, Any]:
        out = {"game": gid, **state_answer(entry.table.status())}
        if played:
            out["played"] = played
        return out

    def _room(self) -> None:
        """Make room for a game: the oldest finished game goes, else BusyError."""
        with self._lock:
            if len(self.games) < self.max_games:
                return
            for gid, entry in self.games.items():
                table = entry.table
                if isinstance(table, HostedGame) and table.result is not None:
                    del self.games[gid]
                    return
        raise BusyError(f"this MCP server holds {self.max_games} games already; finish one "
                        "(or restart it)")

    def _add(self, gid: str, table: HostedGame | RemoteSeat, opponent: str = "") -> Entry:
        entry = Entry(table, SeatTools(table), threading.Lock(), opponent)
        with self._lock:
            self.games[gid] = entry
        return entry

    # ------------------------------------------------------------------ seat tools
    def entry(self, arguments: Any) -> Entry:
        """The game named by the call's `game` argument (GameNotFoundError names the known
        ones)."""
        gid = arguments.get("game") if isinstance(arguments, dict) else None
        if not isinstance(gid, str) or not gid:
            raise UsageError("this tool needs the game's id as argument game (new_game "
                             "answers it)")
        entry = self.games.get(gid)
        if self.kept is not None and (entry is None or self.kept.changed(gid)):
            entry = self._reload(gid) or entry
        if entry is None:
            known = ", ".join(list(self.games)[-10:]) or "none yet: call new_game"
            raise GameNotFoundError(f"no game {gid[:64]!r} on this MCP server; games: {known}")
        return entry

    def _reload(self, gid: str) -> Entry | None:
        """A kept game, as the folder has it now (another process may have moved it)."""
        assert self.kept is not None
        loaded = self.kept.load(gid, self.catalogue.build)
        if loaded is None:
            return None
        game, opponent, calls = loaded
        old = self.games.get(gid)
        if old is not None and isinstance(old.table, HostedGame):
            old.table.detach()
        entry = self._add(gid, game, opponent)
        entry.tools.calls = calls
        return entry

    def _keep(self, entry: Entry) -> None:
        if self.kept is not None and isinstance(entry.table, HostedGame):
            self.kept.save(entry.table, entry.opponent, entry.tools.calls)

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        """A seat tool's answer for the game the arguments name."""
        if self.kept is None:
            return self._call(name, arguments)
        with self.kept.lock():
            return self._call(name, arguments)

    def _call(self, name: str, arguments: Any) -> dict[str, Any]:
        entry = self.entry(arguments)
        with entry.lock:  # one call at a time per game: its tool calls form one log
            try:
                return entry.tools.call(name, arguments, skip=("game",))
            finally:
                self._keep(entry)  # a refused call is in the log too

    def wait_turn(self, arguments: Any, seconds: float) -> None:
        """For a server's game: wait up to `seconds` for the seat's turn (a person may take
        a while); a hosted game's opponent has always answered already."""
        table = self.entry(arguments).table
        if isinstance(table, RemoteSeat) and seconds > 0:
            table.wait_turn(seconds)

    def close(self) -> None:
        for entry in list(self.games.values()):
            if isinstance(entry.table, HostedGame):
                if self.kept is not None:  # another process may go on with it: still sealed
                    entry.table.detach()
                else:
                    entry.table.close()
        if self.server is not None:
            self.server.close()


__all__ = ["DEFAULT_OPPONENT", "Games", "JOIN_GAME", "NEW_GAME"]
