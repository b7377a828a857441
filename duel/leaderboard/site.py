"""The static site: `SITE/index.html` (the ranking table and the plots), `SITE/players/*.html`,
`SITE/games/*.html` (the replay viewer's page of every game with a transcript, the analysis in
it where there is one), `SITE/plots/*.svg`, `SITE/leaderboard.json` and the JSON Schema it
follows. Every link is relative and nothing is fetched from elsewhere, so the folder reads
the same from file:// and from any static host.

Viewer pages are the slow part (each game is re-played and checked): they are made in `jobs`
processes, and a page already made from the same transcript, analysis and duel version is kept
(`games/pages.json` records what each was made from), so a site built again costs only its new
games."""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from duel import __version__
from duel.errors import TranscriptError

from . import plots
from .figures import FORMAT_VERSION, Board
from .games import Game
from .pages import index_page, player_page, slug

GAMES: Final = "games"
PLAYERS: Final = "players"
PLOTS: Final = "plots"
DATA: Final = "leaderboard.json"
SCHEMA: Final = "leaderboard.schema.json"
MADE: Final = "pages.json"  # under games/: what each viewer page was made from


@dataclass(frozen=True)
class StaticLinks:
    """Relative links from a page `depth` folders below the site's root."""

    pages: frozenset[str]  # the games that have a viewer page
    depth: int = 0

    @property
    def up(self) -> str:
        return "../" * self.depth

    def index(self) -> str:
        return f"{self.up}index.html"

    def player(self, name: str) -> str:
        return f"{self.up}{PLAYERS}/{slug(name)}.html"

    def game(self, key: str, ply: int | None = None) -> str | None:
        if key not in self.pages:
            return None
        return f"{self.up}{GAMES}/{key}.html" + ("" if ply is None else f"#ply={ply}")

    def plot(self, name: str) -> str:
        return f"{self.up}{PLOTS}/{name}"

    def data(self) -> str:
        return f"{self.up}{DATA}"

    def schema(self) -> str:
        return f"{self.up}{SCHEMA}"


def to_json(board: Board, links: Any) -> dict[str, Any]:
    """leaderboard.json: every figure of the table (each player's row, its page), the results
    between players, the games (each with its replay, where it has one) and the notes."""
    dates = sorted(g.started_at for g in board.games if g.started_at)
    return {
        "format_version": FORMAT_VERSION, "duel_version": __version__, "method": board.method,
        "summary": {"players": len(board.players), "games": len(board.games),
                    "first_game": dates[0] if dates else None,
                    "last_game": dates[-1] if dates else None, "dated_games": len(dates)},
        "players": [{**p, "page": links.player(p["player"])} for p in board.players],
        "pairings": board.pairings,
        "games": [{"key": g.key, "players": list(board.seats[g.key]), "specs": list(g.specs),
                   "winner": g.winner, "victory": g.victory, "scores": list(g.scores),
                   "moves": g.moves, "seed": g.seed, "started_at": g.started_at,
                   "replay": links.game(g.key)} for g in board.games],
        "notes": board.notes,
    }


def empty_json() -> dict[str, Any]:
    """leaderboard.json of no game (a server that has finished none yet)."""
    from .figures import PROVISIONAL, RESAMPLES

    return {"format_version": FORMAT_VERSION, "duel_version": __version__,
            "method": {"resamples": RESAMPLES, "seed": 0, "level": 0.95, "anchor": None,
                       "provisional_below_games": PROVISIONAL},
            "summary": {"players": 0, "games": 0, "first_game": None, "last_game": None,
                        "dated_games": 0},
            "players": [], "pairings": [], "games": [], "notes": []}


def write(board: Board, out: Path, jobs: int = 2, games: bool = True) -> list[str]:
    """Write the site into `out`; notes on the games whose viewer page could not be made.
    `games`: False leaves the viewer pages out (the games are listed without replays)."""
    from duel.schemas import schema

    out.mkdir(parents=True, exist_ok=True)
    pages: frozenset[str] = frozenset()
    notes: list[str] = []
    if games:
        pages, notes = viewer_pages(board, out / GAMES, jobs)
    board.notes.extend(notes)
    drawn = plots.draw(board, out / PLOTS)
    top = StaticLinks(pages)
    (out / DATA).write_text(json.dumps(to_json(board, top), indent=1) + "\n")
    (out / SCHEMA).write_text(json.dumps(schema("leaderboard"), indent=2) + "\n")
    (out / "index.html").write_text(index_page(board, top, drawn))
    below = StaticLinks(pages, depth=1)
    (out / PLAYERS).mkdir(exist_ok=True)
    for p in board.players:
        (out / PLAYERS / f"{slug(p['player'])}.html").write_text(
            player_page(board, p["player"], below))
    return notes


def _stamp(game: Game) -> str:
    """What a game's viewer page is made from: the transcript (its key is its hash), the
    analysis shown and the duel that drew it."""
    analysis = json.dumps(game.analysis, sort_keys=True) if game.analysis else ""
    return hashlib.sha256(f"{__version__}\n{game.key}\n{analysis}".encode()).hexdigest()[:16]


def viewer_pages(board: Board, folder: Path, jobs: int) -> tuple[frozenset[str], list[str]]:
    """The viewer page of every game with a transcript, made anew only where what it is made
    from changed; pages of games no longer on the board are removed. The games that have a
    page, and notes on those whose transcript did not re-play (they get no page, so no
    link)."""
    folder.mkdir(parents=True, exist_ok=True)
    made_path = folder / MADE
    try:
        made: dict[str, str] = json.loads(made_path.read_text())
    except (OSError, ValueError):
        made = {}
    wanted = {g.key: g for g in board.games if g.transcript is not None}
    for key in set(made) - set(wanted):
        (folder / f"{key}.html").unlink(missing_ok=True)
        del made[key]
    todo = [g for key, g in wanted.items()
            if made.get(key) != _stamp(g) or not (folder / f"{key}.html").exists()]
    tasks = [(str(g.transcript), g.analysis, _title(board, g), str(folder / f"{g.key}.html"))
             for g in todo]
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_page, tasks, chunksize=max(1, len(tasks) // (4 * jobs))))
    else:
        results = [_page(t) for t in tasks]
    notes = []
    for g, problem in zip(todo, results, strict=True):
        if problem is None:
            made[g.key] = _stamp(g)
        else:
            made.pop(g.key, None)
            (folder / f"{g.key}.html").unlink(missing_ok=True)
            notes.append(f"{g.origin}: no replay: {problem}")
    made_path.write_text(json.dumps(made, indent=0, sort_keys=True) + "\n")
    return frozenset(made), notes


def _title(board: Board, g: Game) -> str:
    a, b = board.seats[g.key]
    deal = f", deal {g.seed}" if g.seed is not None else ""
    return f"{a} vs {b}{deal}"


def _page(task: tuple[str, dict[str, Any] | None, str, str]) -> str | None:
    """Make one viewer page (in a worker process): the transcript re-played and its result
    checked first. None, or what was wrong."""
    from duel.transcripts import check_result, initial_state, read, replay
    from duel.viewer import render

    path, analysis, title, target = task
    try:
        t = read(path)
        steps = list(replay(t))  # once, for the result's check and for the page
        check_result(t, steps[-1].after if steps else initial_state(t))
        page = render(t, title=title, analysis=analysis, steps=steps)
    except (TranscriptError, OSError) as exc:
        return str(exc)
    partial = f"{target}.part"
    with open(partial, "w") as f:
        f.write(page)
    os.replace(partial, target)
    return None
