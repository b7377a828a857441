"""`duel bench versus-indjev99`: duel's agents against indjev99/7-Wonders-Duel-AI's
AgentMctsBlindReveals, whole games at equal time, through the driver indjev99_play.cpp.

duel's engine is the referee: the game comes from a seeded duel deal, duel's seat is asked
exactly as the match runner asks it (duel.match.decide), and their agent's answer must be one of
duel's legal moves. Their engine runs beside it in the driver, fed only what duel's game has made
public when their game asks for it (the reveals: the first player, the board's tokens, each
draft round's wonders, the guilds' slots, each card as it turns face up, the Great Library's
draw), so their agent never sees a hidden card before duel shows it. After every move both
engines' states are compared on what they share (coins, military, cities, taken slots, the end),
and the first difference stops the game with a BenchError naming the field: a random move is
never substituted.

Their objects are named here by duel's spelling, indexed by their object id (their
src/game/objects.h); their pyramid positions are duel's slots (both number the structure left to
right from the far row, rules.md §5). Their player 0 is always duel's player 1 (the first
drafter), so a seat swap is a change of which of their players their agent plays.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, TypeVar

from duel.errors import BenchError

if TYPE_CHECKING:
    from duel.agents.base import Agent
    from duel.engine import GameState, Move, Result

PLAY_DRIVER: Final = Path(__file__).with_name("indjev99_play.cpp")

# Their object ids (src/game/objects.h, 0-94; 95 and 96 are the loot tokens, which duel shows
# as flags) in duel's spellings. Five of their names are spelt differently: THEATER (THEATRE),
# ALTAR (ALTER), ROSTRUM (POSTRUM), TOWN_HALL (TOWNHALL), CUSOMS_HOUSE (CUSTOMS_HOUSE).
THEIR_NAMES: Final[tuple[str, ...]] = (
    # brown 0-8
    "LUMBER_YARD", "LOGGING_CAMP", "CLAY_POOL", "CLAY_PIT", "QUARRY", "STONE_PIT", "SAWMILL",
    "BRICKYARD", "SHELF_QUARRY",
    # grey 9-12
    "GLASSWORKS", "PRESS", "GLASSBLOWER", "DRYING_ROOM",
    # blue 13-26
    "THEATRE", "ALTER", "BATHS", "STATUE", "TEMPLE", "AQUEDUCT", "POSTRUM", "COURTHOUSE",
    "GARDENS", "PANTHEON", "SENATE", "PALACE", "TOWNHALL", "OBELISK",
    # red 27-40
    "STABLE", "GARRISON", "PALISADE", "GUARD_TOWER", "HORSE_BREEDERS", "BARRACKS",
    "ARCHERY_RANGE", "PARADE_GROUND", "WALLS", "FORTIFICATIONS", "SIEGE_WORKSHOP", "CIRCUS",
    "ARSENAL", "PRETORIUM",
    # green 41-52
    "SCRIPTORIUM", "PHARMACIST", "WORKSHOP", "APOTHECARY", "LIBRARY", "DISPENSARY", "SCHOOL",
    "LABORATORY", "UNIVERSITY", "OBSERVATORY", "ACADEMY", "STUDY",
    # yellow 53-65
    "TAVERN", "STONE_RESERVE", "CLAY_RESERVE", "WOOD_RESERVE", "BREWERY", "FORUM",
    "CARAVANSERY", "CUSTOMS_HOUSE", "LIGHTHOUSE", "ARENA", "CHAMBER_OF_COMMERCE", "PORT",
    "ARMORY",
    # guilds 66-72
    "MERCHANTS_GUILD", "SHIPOWNERS_GUILD", "BUILDERS_GUILD", "MAGISTRATES_GUILD",
    "SCIENTISTS_GUILD", "MONEYLENDERS_GUILD", "TACTICIANS_GUILD",
    # tokens 73-82
    "AGRICULTURE", "ARCHITECTURE", "ECONOMY", "LAW", "MASONRY", "MATHEMATICS", "PHILOSOPHY",
    "STRATEGY", "THEOLOGY", "URBANISM",
    # wonders 83-94
    "THE_APPIAN_WAY", "CIRCUS_MAXIMUS", "THE_COLOSSUS", "THE_GREAT_LIBRARY",
    "THE_GREAT_LIGHTHOUSE", "THE_HANGING_GARDENS", "THE_MAUSOLEUM", "PIRAEUS", "THE_PYRAMIDS",
    "THE_SPHINX", "THE_STATUE_OF_ZEUS", "THE_TEMPLE_OF_ARTEMIS",
)
THEIR_ID: Final[dict[str, int]] = {name: i for i, name in enumerate(THEIR_NAMES)}
FIRST_GUILD, FIRST_TOKEN, FIRST_WONDER = 66, 73, 83
OT_BROWN, OT_GRAY, LAST_BROWN, LAST_GRAY = 0, 1, 8, 12  # their object types and id ranges

# Their action types and arguments (src/game/action.h).
PLAY_PYRAMID_CARD, BUILD_GAME_TOKEN, BUILD_BOX_TOKEN, BUILD_DISCARDED = 0, 1, 2, 3
DESTROY_OBJECT, SELECT_WONDER, CHOOSE_START_PLAYER = 4, 5, 6
REVEAL_GUILD, REVEAL_PYRAMID_CARD, REVEAL_GAME_TOKEN, REVEAL_BOX_TOKEN = -1, -2, -3, -4
REVEAL_WONDER, REVEAL_FIRST_PLAYER = -5, -6
ARG2_BUILD, ARG2_DISCARD, ARG_NONE = -1, -2, -100
# Their results (src/game/results.h), for their player 0 (duel's player 1); the sign says who.
_VICTORY_OF_RESULT: Final = {1: "civilian", 2: "science", 3: "military", 4: "civilian"}

Action = tuple[int, int, int]
T = TypeVar("T")


def their_id(name: str, where: str) -> int:
    """Their object id of a duel name; BenchError if they have none."""
    found = THEIR_ID.get(name)
    if found is None:
        raise BenchError(f"no object of theirs for {name!r} ({where})")
    return found


def move_to_action(view: dict[str, Any], move: Move) -> Action:
    """duel's move (true labels) to their action, in the spectator's `view` of the position it
    is played in (which card lies in the move's slot)."""
    kind = str(move.kind)
    if kind in ("CONSTRUCT_BUILDING", "DISCARD", "CONSTRUCT_WONDER"):
        slot = view["visiblePyramid"].get(str(move.card_index))
        if slot is None or not slot["isActive"]:
            raise BenchError(f"{move} takes slot {move.card_index}, which is not active")
        card = their_id(slot["cardName"], f"slot {move.card_index}")
        arg2 = {"CONSTRUCT_BUILDING": ARG2_BUILD, "DISCARD": ARG2_DISCARD}.get(kind)
        if arg2 is None:
            arg2 = their_id(move.wonder, "a wonder")
        return (PLAY_PYRAMID_CARD, card, arg2)
    if kind == "SELECT_WONDER":
        return (SELECT_WONDER, their_id(move.wonder, "a wonder"), ARG_NONE)
    if kind == "CHOOSE_PROGRESS_TOKEN":
        return (BUILD_GAME_TOKEN, their_id(move.token, "a token"), ARG_NONE)
    if kind == "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD":
        return (BUILD_BOX_TOKEN, their_id(move.token, "a token"), ARG_NONE)
    if kind == "CONSTRUCT_FROM_DISCARD":
        return (BUILD_DISCARDED, their_id(move.card_name, "the discard pile"), ARG_NONE)
    if kind == "DESTROY_CARD":
        card = their_id(move.card_name, "a card to destroy")
        if card > LAST_GRAY:
            raise BenchError(f"{move}: only brown and grey cards are destroyed")
        return (DESTROY_OBJECT, card, OT_BROWN if card <= LAST_BROWN else OT_GRAY)
    if kind == "CHOOSE_STARTING_PLAYER":
        return (CHOOSE_START_PLAYER, move.player_number - 1, ARG_NONE)
    raise BenchError(f"no action of theirs for {move}")


def action_to_move(view: dict[str, Any], action: Action) -> Move:
    """Their action to duel's move (true labels), in the spectator's `view` of the position."""
    from duel.engine import Move

    kind, arg1, arg2 = action

    def name(lo: int, hi: int, what: str) -> str:
        if not lo <= arg1 < hi:
            raise BenchError(f"their action {action} names object {arg1}, not {what}")
        return THEIR_NAMES[arg1]

    if kind == PLAY_PYRAMID_CARD:
        card = name(0, FIRST_TOKEN, "a card")
        slots = [int(s) for s, c in view["visiblePyramid"].items()
                 if c["cardName"] == card and c["isActive"]]
        if len(slots) != 1:
            raise BenchError(f"their action {action} plays {card}, which is not an active card "
                             "of duel's structure")
        if arg2 == ARG2_BUILD:
            return Move("CONSTRUCT_BUILDING", card_index=slots[0])
        if arg2 == ARG2_DISCARD:
            return Move("DISCARD", card_index=slots[0])
        if not FIRST_WONDER <= arg2 < len(THEIR_NAMES):
            raise BenchError(f"their action {action} builds object {arg2}, not a wonder")
        return Move("CONSTRUCT_WONDER", card_index=slots[0], wonder=THEIR_NAMES[arg2])
    if kind == SELECT_WONDER:
        return Move("SELECT_WONDER", wonder=name(FIRST_WONDER, len(THEIR_NAMES), "a wonder"))
    if kind == BUILD_GAME_TOKEN:
        return Move("CHOOSE_PROGRESS_TOKEN", token=name(FIRST_TOKEN, FIRST_WONDER, "a token"))
    if kind == BUILD_BOX_TOKEN:
        return Move("CHOOSE_PROGRESS_TOKEN_FROM_DISCARD",
                    token=name(FIRST_TOKEN, FIRST_WONDER, "a token"))
    if kind == BUILD_DISCARDED:
        return Move("CONSTRUCT_FROM_DISCARD", card_name=name(0, FIRST_TOKEN, "a card"))
    if kind == DESTROY_OBJECT:
        return Move("DESTROY_CARD", card_name=name(0, LAST_GRAY + 1, "a brown or grey card"))
    if kind == CHOOSE_START_PLAYER and arg1 in (0, 1):
        return Move("CHOOSE_STARTING_PLAYER", player_number=arg1 + 1)
    raise BenchError(f"their action {action} has no duel move")


def _is_guild(card_name: str) -> bool:
    return card_name == "GUILD_BACK" or card_name.endswith("_GUILD")


def reveal(view: dict[str, Any], kind: int, arg2: int, sent: set[tuple[int, int]]) -> Action:
    """The reveal their game asks for (`kind`, and the slot for a card), from what duel's
    spectator `view` shows now; `sent` keeps what was revealed already (kind, id or slot).
    BenchError when duel has not made it public: their agent must never learn it earlier."""

    def nxt(names: Sequence[str], what: str) -> int:
        for n in names:
            key = (kind, their_id(n, what))
            if key not in sent:
                sent.add(key)
                return key[1]
        raise BenchError(f"their game asks for a reveal of {what}, but duel shows none left "
                         f"(step {view['step']})")

    if kind == REVEAL_FIRST_PLAYER:
        return (kind, 0, ARG_NONE)  # duel's player 1 drafts first and is their player 0
    if kind == REVEAL_GAME_TOKEN:
        return (kind, nxt(view["tokensAvailable"], "a board token"), ARG_NONE)
    if kind == REVEAL_WONDER:
        return (kind, nxt(view["wondersAvailable"], "a draft wonder"), ARG_NONE)
    if kind == REVEAL_BOX_TOKEN:
        return (kind, nxt(view["tokensFromUnavailable"], "a Great Library token"), ARG_NONE)
    if kind == REVEAL_GUILD:
        # Guilds have their own back (state-format.md, "Structure"): their slots are public.
        slots = sorted(int(s) for s, c in view["visiblePyramid"].items()
                       if view["age"] == 3 and _is_guild(c["cardName"]))
        for slot in slots:
            if (kind, slot) not in sent:
                sent.add((kind, slot))
                return (kind, slot, ARG_NONE)
        raise BenchError("their game asks for a guild's slot, but duel shows no guild left "
                         f"(age {view['age']}, step {view['step']})")
    if kind == REVEAL_PYRAMID_CARD:
        slot = view["visiblePyramid"].get(str(arg2))
        if slot is None or slot["cardName"].endswith("_BACK"):
            shown = "taken" if slot is None else "face down"
            raise BenchError(f"their game asks for the card in slot {arg2}, which duel shows "
                             f"{shown} (age {view['age']}, step {view['step']})")
        return (kind, their_id(slot["cardName"], f"slot {arg2}"), arg2)
    raise BenchError(f"their game asks for an unknown reveal {kind}")


@dataclass
class TheirState:
    """A driver's state line: their game after a player move."""

    ply: int
    age: int  # theirs: -1 during the draft, then 0-2
    coins: tuple[int, int]
    military: tuple[int, int]  # shields on each side; the pawn is their difference
    taken: int  # pyramid slots taken (bitmask), -1 before Age I
    terminal: bool
    built: tuple[frozenset[str], frozenset[str]]

    @staticmethod
    def parse(line: str) -> TheirState:
        f = [int(x) for x in line.split()[1:]]
        n0 = f[8]
        n1 = f[9 + n0]
        ids0, ids1 = f[9:9 + n0], f[10 + n0:10 + n0 + n1]
        return TheirState(f[0], f[1], (f[2], f[3]), (f[4], f[5]), f[6], bool(f[7]),
                          (frozenset(THEIR_NAMES[i] for i in ids0),
                           frozenset(THEIR_NAMES[i] for i in ids1)))


def duel_fields(view: dict[str, Any], terminal: bool) -> dict[str, Any]:
    """What duel's spectator view says of the fields both engines keep."""
    out: dict[str, Any] = {"terminal": terminal}
    drafting = view["step"] == "WONDER_SELECTION"
    out["age"] = None if drafting else view["age"]
    out["taken"] = None if drafting else sum(
        1 << s for s in range(20) if str(s) not in view["visiblePyramid"])
    out["military position"] = view["military"]["militaryPosition"]
    for n in (1, 2):
        p = view[f"player{n}"]
        out[f"player {n}'s coins"] = p["money"]
        out[f"player {n}'s buildings"] = frozenset(c for cards in p["sortedHand"].values()
                                                   for c in cards)
        out[f"player {n}'s wonders built"] = frozenset(w for w, age in p["wonders"].items()
                                                       if age)
        out[f"player {n}'s tokens"] = frozenset(p["tokens"])
    return out


def their_fields(s: TheirState) -> dict[str, Any]:
    """The same fields of their state."""
    out: dict[str, Any] = {"terminal": s.terminal}
    out["age"] = None if s.age < 0 else s.age + 1
    out["taken"] = None if s.age < 0 else s.taken
    out["military position"] = max(-9, min(9, s.military[0] - s.military[1]))
    for n in (1, 2):
        built = s.built[n - 1]
        out[f"player {n}'s coins"] = s.coins[n - 1]
        out[f"player {n}'s buildings"] = frozenset(b for b in built
                                                   if THEIR_ID[b] < FIRST_TOKEN)
        out[f"player {n}'s wonders built"] = frozenset(b for b in built
                                                       if THEIR_ID[b] >= FIRST_WONDER)
        out[f"player {n}'s tokens"] = frozenset(b for b in built
                                                if FIRST_TOKEN <= THEIR_ID[b] < FIRST_WONDER)
    return out


def first_difference(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """The first field that differs, described, or None."""
    for key, value in ours.items():
        other = theirs[key]
        if value != other:
            if isinstance(value, frozenset):
                return (f"{key}: duel has {sorted(value - other)} that theirs has not, theirs "
                        f"{sorted(other - value)}")
            return f"{key}: duel {value}, theirs {other}"
    return None


@dataclass
class GameRecord:
    """One game against their agent, as the JSONL keeps it."""

    seed: int
    duel_player: int  # 1 or 2
    spec: str
    their_seconds: float
    winner: str  # "duel", "indjev99" or "draw"
    victory: str
    points: float  # duel's: 1, 1/2 or 0
    plies: int
    scores: dict[str, int]  # totals: "duel", "indjev99"
    duel_moves: int = 0
    duel_seconds: float = 0.0
    their_moves: int = 0
    their_elapsed: float = 0.0
    their_sims: int = 0
    account: dict[str, Any] = field(default_factory=dict)
    resigned: bool = False  # duel's agent resigned (the game is its loss)
    flagged: bool = False  # duel's agent fell back or resigned in this game

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def line(self) -> str:
        """One line for people."""
        who = {"duel": f"duel ({self.spec}) wins", "indjev99": "indjev99 wins",
               "draw": "shared victory"}[self.winner]
        searched = self.their_sims / self.their_moves if self.their_moves else 0.0
        flag = "  FLAGGED: duel's agent fell back or resigned" if self.flagged else ""
        return (f"seed {self.seed}, duel as player {self.duel_player}: {who} by {self.victory} "
                f"({self.scores['duel']}-{self.scores['indjev99']}), {self.plies} plies; "
                f"s/move duel {_mean(self.duel_seconds, self.duel_moves):.3f}, indjev99 "
                f"{_mean(self.their_elapsed, self.their_moves):.3f} ({searched:.0f} sims/move)"
                f"{flag}")


def _mean(total: float, n: int) -> float:
    return total / n if n else 0.0


class _Driver:
    """The driver process, one line at a time; its stderr kept in a file for messages."""

    def __init__(self, binary: str, seconds: float, seed: int, seat: int) -> None:
        self.err: IO[str] = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen([binary, "play", f"{seconds!r}", str(seed), str(seat)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, bufsize=1)

    def read(self) -> list[str]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.err.seek(0)
            raise BenchError(f"the driver stopped ({self.proc.returncode}): "
                             f"{self.err.read()[-500:]}")
        words = line.split()
        if words[0] == "error":
            raise BenchError(f"their engine: {line[6:].strip()}")
        return words

    def send(self, action: Action) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{action[0]} {action[1]} {action[2]}\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.err.close()


def play_game(binary: str, agent: Agent, seed: int, duel_player: int,
              seconds: float) -> GameRecord:
    """One game on the deal of `new_game(seed)`: duel's `agent` as player `duel_player`, their
    agent at `seconds` a move as the other. BenchError on the first disagreement."""
    from duel.agents.account import SeatAccount
    from duel.agents.observe import inform
    from duel.engine import Seat, new_game, seat_view
    from duel.match import agent_rng, decide, take

    state = new_game(seed)
    duel_seat = Seat.of_player(duel_player)
    their_player = 1 - duel_seat.index  # their player 0 is duel's player 1
    rng = agent_rng(seed, duel_seat)
    agents: list[Any] = [None, None]
    agents[duel_seat.index] = agent
    sent: set[tuple[int, int]] = set()
    details: list[dict[str, Any]] = []
    record = GameRecord(seed, duel_player, agent.spec, seconds, "", "", 0.0, 0, {})
    driver = _Driver(binary, seconds, seed * 2 + their_player, their_player)
    result = None
    try:
        if driver.read() != ["ready"]:
            raise BenchError("the driver did not start")
        while True:
            words = driver.read()
            view = seat_view(state)
            where = f"seed {seed}, ply {state.ply}, step {view['step']}"
            mismatch = _mismatcher(where, view)

            if words[0] == "reveal":
                driver.send(_named(mismatch, reveal, view, int(words[1]), int(words[2]), sent))
                continue
            if words[0] == "end":
                result = state.result()
                if result is None:
                    raise mismatch("their game ended, duel's did not")
                _check_result(result, int(words[1]), mismatch)
                break
            if state.result() is not None:
                raise mismatch(f"duel's game is over, theirs asks for {' '.join(words)}")
            if words[0] == "move":
                if state.current != duel_seat.index or int(words[1]) != their_player ^ 1:
                    raise mismatch(f"who moves: duel says player {state.current + 1}, theirs "
                                   f"asks duel's seat")
                t0 = time.perf_counter()
                move, det, resigned = decide(agent, state, rng)
                spent = time.perf_counter() - t0
                record.duel_moves += 1
                record.duel_seconds += spent
                taken = take(state, move, spent, det, resigned)
                details.append(taken.record.details)
                if resigned:
                    record.resigned = True
                    result = taken.result
                    break
                driver.send(_named(mismatch, move_to_action, view, move))
                inform(agents, state, move, taken.after)
                state = taken.after
            elif words[0] == "act":
                if state.current == duel_seat.index:
                    raise mismatch("who moves: duel says duel's seat, theirs moved")
                action = (int(words[1]), int(words[2]), int(words[3]))
                move = _named(mismatch, action_to_move, view, action)
                if move not in state.legal_moves():
                    raise mismatch(f"their action {action} is {move}, not legal in duel: "
                                   f"{state.why_illegal(move)}")
                record.their_moves += 1
                record.their_sims += int(words[4])
                record.their_elapsed += float(words[5])
                after = state.apply(move)
                inform(agents, state, move, after)
                state = after
            else:
                raise mismatch(f"the driver said {' '.join(words)!r}")
            line = driver.read()
            if line[0] != "state":
                raise mismatch(f"the driver said {' '.join(line)!r}, not its state")
            diff = first_difference(duel_fields(seat_view(state), state.result() is not None),
                                    their_fields(TheirState.parse(" ".join(line))))
            if diff is not None:
                raise _mismatcher(f"seed {seed}, ply {state.ply}", seat_view(state))(
                    f"after {move}: {diff}")
    finally:
        driver.close()
    assert result is not None
    account = SeatAccount.of_decisions(details)
    record.plies = state.ply + (1 if result.forfeit is not None else 0)
    record.winner = ("draw" if result.winner is None
                     else "duel" if result.winner is duel_seat else "indjev99")
    record.victory = result.victory
    record.points = result.points(duel_seat)
    record.scores = {"duel": result.total(duel_seat), "indjev99": result.total(duel_seat.other)}
    record.account = account.to_json()  # the one account format, as transcripts write it
    record.flagged = record.resigned or not account.clean
    return record


def _named(mismatch: Callable[[str], BenchError], f: Callable[..., T], *args: Any) -> T:
    """`f(*args)`, its BenchError told again with the ply and duel's state."""
    try:
        return f(*args)
    except BenchError as e:
        raise mismatch(str(e)) from None


def _mismatcher(where: str, view: dict[str, Any]) -> Callable[[str], BenchError]:
    """The error for a disagreement at `where`: the ply, what differs, and duel's state (its
    spectator view, so the message holds nothing hidden)."""

    def mismatch(what: str) -> BenchError:
        return BenchError(f"{where}: {what}; duel's state: {json.dumps(view)}")

    return mismatch


def _check_result(result: Result, theirs: int, mismatch: Callable[[str], BenchError]) -> None:
    """Their getResult(0) against duel's result: the winner and the kind of victory."""
    winner = None if result.winner is None else result.winner.index
    their_winner = None if theirs == 0 else 0 if theirs > 0 else 1
    their_victory = _VICTORY_OF_RESULT.get(abs(theirs), "civilian")
    if winner != their_winner:
        raise mismatch(f"the winner: duel {result.describe()}, theirs result {theirs}")
    if result.victory != their_victory:
        raise mismatch(f"the kind of victory: duel {result.victory}, theirs {their_victory}")


def _one_game(binary: str, spec: str, seed: int, duel_player: int,
              seconds: float) -> GameRecord:
    from duel.agents.spec import make_agent

    # A fresh agent a game, as the match runner's callers do.
    return play_game(binary, make_agent(spec), seed, duel_player, seconds)


def versus(repo: str, spec: str, games: int, seconds: float, seed: int,
           out: str | None = None, echo: Callable[[str], None] = print,
           jobs: int = 1) -> dict[str, Any]:
    """`games` games (seat-swapped pairs on the deals of seeds seed, seed+1, ...: duel's agent
    first, then second) of duel's `spec` against their agent at `seconds` a move; the summary.
    Each game is echoed as it ends and appended to `out` (JSONL) when given. `jobs` games run
    at once, each in its own process: one searching side a game, so one core a job."""
    from duel.bench.yardstick import build_driver

    plan = [(seed + g // 2, 1 + g % 2) for g in range(games)]
    records: list[GameRecord] = []

    def keep(record: GameRecord) -> None:
        records.append(record)
        echo(f"game {len(records)}/{games}: {record.line()}")
        if out is not None:
            with open(out, "a") as f:
                f.write(json.dumps(record.to_json()) + "\n")

    with tempfile.TemporaryDirectory(prefix="duel-versus-") as folder:
        binary = build_driver(repo, folder, PLAY_DRIVER)
        if jobs <= 1:
            for s, player in plan:
                keep(_one_game(binary, spec, s, player, seconds))
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed

            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(_one_game, binary, spec, s, player, seconds)
                           for s, player in plan]
                for future in as_completed(futures):
                    keep(future.result())
    records.sort(key=lambda r: (r.seed, r.duel_player))
    return summarise(records, spec, seconds)


def summarise(records: Sequence[GameRecord], spec: str, seconds: float) -> dict[str, Any]:
    """The summary of games against their agent."""
    from duel.stats import wilson

    n = len(records)
    points = sum(r.points for r in records)
    lo, hi = wilson(points, n)
    duel_moves = sum(r.duel_moves for r in records)
    their_moves = sum(r.their_moves for r in records)
    return {
        "spec": spec, "their_seconds": seconds, "games": n,
        "duel_wins": sum(r.winner == "duel" for r in records),
        "their_wins": sum(r.winner == "indjev99" for r in records),
        "draws": sum(r.winner == "draw" for r in records),
        "score": points / n if n else 0.0, "score_ci": [lo, hi],
        "duel_seconds_per_move": _mean(sum(r.duel_seconds for r in records), duel_moves),
        "their_seconds_per_move": _mean(sum(r.their_elapsed for r in records), their_moves),
        "their_sims_per_move": _mean(sum(r.their_sims for r in records), their_moves),
        "fallbacks": sum(r.account.get("fallbacks", 0) for r in records),
        "forfeits": sum(r.account.get("forfeits", 0) for r in records),
        "reasks": sum(r.account.get("reasks", 0) for r in records),
        "flagged_games": sum(r.flagged for r in records),
    }


def random_positions(seed: int, count: int) -> list[GameState]:
    """`count` positions of random games (every step a game reaches), for the round-trip test."""
    from duel.engine import new_game

    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count:
        state = new_game(rng.randrange(1 << 30))
        while state.result() is None and len(out) < count:
            out.append(state)
            state = state.apply(rng.choice(state.legal_moves()))
    return out
