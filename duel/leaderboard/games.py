"""The games a leaderboard is built from, one record type whatever their source: tournament and
ladder folders (games.jsonl, each line naming its transcript when the tournament recorded one),
grading folders, Inspect log directories (the transcripts their samples name) and loose
transcripts (each re-played before it counts), with the analyser's
sidecar where a transcript has a fresh one; or the finished games of a server's store
(server/routes/leaderboard.py builds those)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duel.accounting.totals import checked_totals
from duel.agents.account import SeatAccount
from duel.analysis import sidecar
from duel.engine import Seat
from duel.errors import InvalidStateError, TranscriptError, UsageError
from duel.leaderboard import inspect_logs
from duel.runs.ratings import FoundGame, found_games
from duel.transcripts import Transcript

SEATS = (1, 2)


@dataclass(frozen=True)
class Game:
    """One finished game. `key` names it (its viewer page); `winner` is 1, 2 or None for a
    shared victory; per-seat tuples are player 1's first."""

    key: str
    specs: tuple[str, str]
    winner: int | None
    victory: str
    scores: tuple[int, int]
    moves: int
    seed: int | None = None
    totals: tuple[dict[str, Any] | None, dict[str, Any] | None] = (None, None)
    prompts: tuple[str | None, str | None] = (None, None)  # prompt variants' hashes
    started_at: str | None = None  # "2026-01-31T12:00:00Z"
    transcript: Path | None = None
    analysis: dict[str, Any] | None = field(default=None, compare=False)  # a fresh sidecar
    link: str | None = None  # where its replay is, when not a page of the site (the server)
    origin: str = ""  # the file it was read from, for notes
    # whose moves each seat's were (duel.agents.account); None: recorded before accounts
    accounts: tuple[SeatAccount | None, SeatAccount | None] = field(default=(None, None),
                                                                    compare=False)

    def points(self, seat: int) -> float:
        """1 for a win, 1/2 for a shared victory, 0 for a loss, of player `seat` (1 or 2)."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == seat else 0.0


@dataclass
class Loaded:
    games: list[Game]
    notes: list[str]  # what was read and what was left out, and why


def load(folders: Sequence[str]) -> Loaded:
    """Every finished game under `folders` (see duel.runs.ratings.found_games: a tournament line
    and the transcript it names are one game; each loose transcript is re-played first), with
    its transcript's date, prompt hashes and fresh analysis. A game found twice (the same
    transcript in two folders) counts once."""
    for folder in folders:
        if not Path(folder).is_dir():
            raise UsageError(f"{folder} is not a folder")
    notes: list[str] = []
    games: dict[str, Game] = {}
    # An Inspect log directory: its samples' transcripts are read where they were written.
    named = {str(t.parent) for f in folders for t in inspect_logs.transcripts(Path(f), notes)}
    for found in found_games([*folders, *sorted(named)]):
        game = _game(found, notes)
        if game.key in games:
            notes.append(f"{game.origin}: the same game as {games[game.key].origin}; counted "
                         "once")
            continue
        games[game.key] = game
    return Loaded(list(games.values()), notes)


def _game(found: FoundGame, notes: list[str]) -> Game:
    s = found.summary
    where = str(found.origin) if found.line is None else f"{found.origin}:{found.line}"
    totals: tuple[dict[str, Any] | None, dict[str, Any] | None] = (
        (s.totals or {}).get("1"), (s.totals or {}).get("2"))
    base = Game(_key(found), s.specs, None if s.result.winner is None else s.result.winner.player,
                s.result.victory, (s.result.total(Seat.P1), s.result.total(Seat.P2)), s.moves,
                s.seed, totals, origin=where,
                accounts=(s.account(Seat.P1), s.account(Seat.P2)))
    if found.transcript is None:
        return base
    try:
        t = ends(found.transcript)
    except TranscriptError as exc:
        notes.append(f"{where}: its transcript is not linked: {exc}")
        return base
    why = _differs(t, base)
    if why:
        notes.append(f"{where}: its transcript {found.transcript} is not linked: {why}")
        return base
    if totals == (None, None) and t.footer and t.footer.get("totals"):
        try:
            checked = checked_totals(t.footer["totals"]) or {}
            totals = (checked.get("1"), checked.get("2"))
        except InvalidStateError as exc:
            notes.append(f"{where}: its LLM totals are left out: {exc}")
    analysis = None
    try:
        analysis = sidecar.load(found.transcript)
    except TranscriptError as exc:
        notes.append(f"{where}: its analysis is left out: {exc}")
    started = t.header.get("started_at")
    return Game(_file_key(found.transcript), base.specs, base.winner, base.victory, base.scores,
                base.moves, base.seed, totals, (_prompt(t, 1), _prompt(t, 2)),
                started if isinstance(started, str) else None, found.transcript, analysis,
                origin=where, accounts=base.accounts)


def ends(path: Path) -> Transcript:
    """A transcript's header and result lines only (no moves): what the table needs of a
    game whose moves are checked elsewhere (a loose transcript before it counts, every
    transcript when its viewer page is made). TranscriptError if either is not there."""
    try:
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
        header, footer = (json.loads(lines[0]), json.loads(lines[-1])) if lines else ({}, {})
    except (OSError, ValueError) as exc:
        raise TranscriptError(f"{path} cannot be read: {exc}") from None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise TranscriptError(f"{path}: the first line is not a transcript header")
    if not isinstance(footer, dict) or footer.get("type") != "result":
        raise TranscriptError(f"{path}: the last line is not a result line")
    return Transcript(header, [], footer)


def _differs(t: Transcript, game: Game) -> str | None:
    """Why a transcript is not the game its tournament line records (None: it is). The moves
    are re-played when its viewer page is made."""
    if t.footer is None:
        return "it has no result line"
    specs = (t.spec(1), t.spec(2))
    if specs != game.specs:
        return f"its players are {specs[0]} and {specs[1]}"
    winner = t.footer.get("winner")
    scores = t.footer.get("scores") or {}
    totals = tuple((scores.get(f"player{p}") or {}).get("TOTAL") for p in SEATS)
    if (None if winner == "draw" else winner) != game.winner \
            or t.footer.get("victory") != game.victory or totals != game.scores:
        return "its result is not the line's"
    return None


def _prompt(t: Transcript, player: int) -> str | None:
    entry = (t.header.get("players") or {}).get(str(player)) or {}
    prompt = entry.get("prompt") if isinstance(entry, dict) else None
    value = prompt.get("hash") if isinstance(prompt, dict) else None
    return value if isinstance(value, str) else None


def _file_key(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _key(found: FoundGame) -> str:
    """A transcript's content hash, so a copy elsewhere is the same game; a line's, its file,
    line number and text."""
    if found.transcript is not None:
        try:
            return _file_key(found.transcript)
        except OSError:
            pass  # unreadable now: the line's own key below still counts the game once
    text = json.dumps([str(found.origin.resolve()), found.line, found.summary.to_json()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def from_lines(t: Transcript, key: str, link: str | None = None, origin: str = "") -> Game:
    """A finished game from its transcript's lines as they stand (the server's export of a
    game it played and checked move by move: server/routes/leaderboard.py)."""
    footer = t.footer
    if footer is None:
        raise TranscriptError(f"game {key} is not over")
    scores = footer["scores"]
    totals = footer.get("totals") or {}
    winner = footer["winner"]
    started = t.header.get("started_at")
    return Game(key, (t.spec(1) or "?", t.spec(2) or "?"), None if winner == "draw" else winner,
                footer["victory"], (scores["player1"]["TOTAL"], scores["player2"]["TOTAL"]),
                footer["moves"], t.header.get("seed"), (totals.get("1"), totals.get("2")),
                (_prompt(t, 1), _prompt(t, 2)), started if isinstance(started, str) else None,
                link=link, origin=origin or f"game {key}",
                accounts=_accounts(t) if t.moves else (None, None))


def _accounts(t: Transcript) -> tuple[SeatAccount, SeatAccount]:
    """Each seat's account from the transcript's moves."""
    one, two = (SeatAccount.of_decisions(m.get("details") or {} for m in t.moves
                                         if m.get("player") == p) for p in SEATS)
    return one, two
