"""The pages for people: the lobby and a game's play page (duel/viewer/pages.py). They read
and play through the same REST endpoints and event stream as bots; these routes only serve
the documents. No token ever reaches them: the play page reads its seat's token from the URL
fragment, which browsers never send."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from duel.viewer.pages import lobby_page, play_page
from server.deps import Game

router = APIRouter(include_in_schema=False)

# The pages talk only to this server and are never framed. (Scripts are left unrestricted:
# browser automation evaluates code in the page, and the pages render outside text as text.)
HEADERS = {
    "Content-Security-Policy": "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


@router.get("/", response_class=HTMLResponse)
async def lobby() -> HTMLResponse:
    return HTMLResponse(lobby_page(), headers=HEADERS)


@router.get("/games/{code}/play", response_class=HTMLResponse)
async def play(code: str, game: Game) -> HTMLResponse:
    return HTMLResponse(play_page(game.code), headers=HEADERS)
