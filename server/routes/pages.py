"""The pages for people: the lobby and a game's play page (duel/viewer/pages.py). They read
and play through the same REST endpoints and event stream as bots; these routes only serve
the documents. No token ever reaches them: the play page reads its seat's token from the URL
fragment, which browsers never send."""

from __future__ import annotations

import secrets

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from duel.viewer.pages import lobby_page, play_page
from server.deps import Game

router = APIRouter(include_in_schema=False)

def page_headers(nonce: str, styles: tuple[str, ...] = ()) -> dict[str, str]:
    """A page's headers: it runs only its own inline script and style (those carrying this
    response's `nonce`: nothing injected, no inline handler, no eval; and the `styles` named
    by their hashes), talks only to this server and is never framed. (Browser automation's
    evaluation goes through the debugging protocol, which a policy does not block.)"""
    style = " ".join((f"'nonce-{nonce}'", *styles))
    return {
        "Content-Security-Policy": f"default-src 'none'; script-src 'nonce-{nonce}'; "
                                   f"style-src {style}; connect-src 'self'; "
                                   "img-src 'self' data:; base-uri 'none'; form-action 'self'; "
                                   "frame-ancestors 'none'",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }


def new_nonce() -> str:
    return secrets.token_urlsafe(18)


@router.get("/", response_class=HTMLResponse)
async def lobby() -> HTMLResponse:
    nonce = new_nonce()
    return HTMLResponse(lobby_page(nonce), headers=page_headers(nonce))


@router.get("/games/{code}/play", response_class=HTMLResponse)
async def play(code: str, game: Game) -> HTMLResponse:
    nonce = new_nonce()
    specs = (game.row.seats[0], game.row.seats[1])
    return HTMLResponse(play_page(game.code, nonce, specs), headers=page_headers(nonce))
