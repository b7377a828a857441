"""The leaderboard of the games this server played (duel.leaderboard), at /leaderboard: the
same pages, JSON and plots as `duel leaderboard` writes, each game opening in its viewer page
(/games/{code}/view).

Only finished games count, each read through the transcript export, which refuses a game that
is not over: nothing of a game in play (an agent's thinking, a hidden card) reaches these
pages. A finished game never changes, so each is read once; the board is made again when the
set of finished games has changed since it was last made. Every page is served under the
same content security policy as the lobby and the play page (server/routes/pages.py)."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from duel.errors import DuelError, GameNotFoundError
from duel.leaderboard import Board, Game
from duel.leaderboard.figures import build as figures
from duel.leaderboard.games import from_lines
from duel.leaderboard.pages import index_page, player_page, slug
from duel.transcripts import Transcript
from server.games.manager import GameManager
from server.routes.pages import new_nonce, page_headers

router = APIRouter(include_in_schema=False)
BASE = "/leaderboard"
PLOT_HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
                "X-Content-Type-Options": "nosniff"}


class ServerLinks:
    """The routes of this server: player pages under /leaderboard, games' viewer pages."""

    def index(self) -> str:
        return BASE

    def player(self, name: str) -> str:
        return f"{BASE}/players/{slug(name)}"

    def game(self, key: str, ply: int | None = None) -> str | None:
        return f"/games/{key}/view" + ("" if ply is None else f"#ply={ply}")

    def plot(self, name: str) -> str:
        return f"{BASE}/plots/{name}"

    def data(self) -> str:
        return f"{BASE}/leaderboard.json"

    def schema(self) -> str:
        return f"{BASE}/leaderboard.schema.json"


@dataclass
class Built:
    board: Board | None  # None: no finished game yet
    plots: dict[str, bytes] = field(default_factory=dict)  # file name -> SVG
    slugs: dict[str, str] = field(default_factory=dict)  # page name -> player


@dataclass
class Leaderboard:
    """The finished games read so far (by code), and the board of the last set seen."""

    games: dict[str, Game | None] = field(default_factory=dict)  # None: could not be read
    made_for: frozenset[str] | None = None
    built: Built = field(default_factory=lambda: Built(None))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def current(self, m: GameManager) -> Built:
        async with self.lock:
            rows = await asyncio.to_thread(m.store.games)
            finished = frozenset(r.code for r in rows if r.over)
            if finished == self.made_for:
                return self.built
            for code in sorted(finished - set(self.games)):
                self.games[code] = await self._read(m, code)
            games = [g for code in finished if (g := self.games.get(code)) is not None]
            notes = [f"game {code} could not be read back from the store; left out"
                     for code in sorted(finished) if self.games.get(code) is None]
            self.built = await asyncio.to_thread(_build, games, notes)
            self.made_for = finished
            return self.built

    @staticmethod
    async def _read(m: GameManager, code: str) -> Game | None:
        try:
            lines = await m.transcript(await m.find(code))
        except (GameNotFoundError, DuelError):
            return None
        t = Transcript(lines[0], [x for x in lines if x["type"] == "move"],
                       lines[-1] if lines[-1]["type"] == "result" else None)
        return from_lines(t, code, link=f"/games/{code}/view")


def _build(games: list[Game], notes: list[str]) -> Built:
    if not games:
        return Built(None)
    from duel.leaderboard import plots

    board = figures(games, notes)
    with tempfile.TemporaryDirectory(prefix="duel-leaderboard-") as tmp:
        drawn = plots.draw(board, Path(tmp))
        svg = {name: (Path(tmp) / name).read_bytes() for name in drawn.values()}
    return Built(board, svg, {slug(p["player"]): p["player"] for p in board.players})


def leaderboard_of(request: Request) -> Leaderboard:
    state = request.app.state
    if not hasattr(state, "leaderboard"):
        state.leaderboard = Leaderboard()
    found: Leaderboard = state.leaderboard
    return found


async def current(request: Request) -> Built:
    manager: GameManager = request.app.state.manager
    return await leaderboard_of(request).current(manager)


Current = Annotated[Built, Depends(current)]


def _page(html: str, nonce: str) -> HTMLResponse:
    return HTMLResponse(html, headers=page_headers(nonce))


@router.get(BASE, response_class=HTMLResponse)
async def index(built: Current) -> HTMLResponse:
    nonce = new_nonce()
    if built.board is None:
        return _page(_empty(nonce), nonce)
    names = {name: f"{name}.svg" for name in ("ratings", "cost", "loss")
             if f"{name}.svg" in built.plots}
    return _page(index_page(built.board, ServerLinks(), names, nonce), nonce)


@router.get(BASE + "/players/{name}", response_class=HTMLResponse)
async def player(name: str, built: Current) -> HTMLResponse:
    if built.board is None or name not in built.slugs:
        raise GameNotFoundError(f"no player page {name!r} on the leaderboard")
    nonce = new_nonce()
    return _page(player_page(built.board, built.slugs[name], ServerLinks(), nonce), nonce)


@router.get(BASE + "/leaderboard.json")
async def data(built: Current) -> JSONResponse:
    from duel.leaderboard.site import empty_json, to_json

    if built.board is None:
        return JSONResponse(empty_json())
    return JSONResponse(to_json(built.board, ServerLinks()))


@router.get(BASE + "/leaderboard.schema.json")
async def schema() -> JSONResponse:
    from duel.schemas import schema as published

    return JSONResponse(published("leaderboard"))


@router.get(BASE + "/plots/{name}")
async def plot(name: str, built: Current) -> Response:
    if name not in built.plots:
        raise GameNotFoundError(f"no plot {name!r}")
    return Response(built.plots[name], media_type="image/svg+xml", headers=PLOT_HEADERS)


def _empty(nonce: str) -> str:
    from duel.leaderboard.pages import empty_page

    return empty_page(nonce)
