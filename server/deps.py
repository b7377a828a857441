"""Typed dependencies of the routes: the game manager, the caller's token, the game named in the
path and the caller's seat in it.

FastAPI resolves dependencies before it validates the request body, so a request for an unknown
game is 404 and one without a valid token is 401/403 whatever its body holds; only then is the
body checked (422)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Query, Request

from server.games import GameError, GameManager, LiveGame


def manager(request: Request) -> GameManager:
    m: GameManager = request.app.state.manager
    return m


Manager = Annotated[GameManager, Depends(manager)]


def bearer(authorization: Annotated[str | None, Header()] = None,
           token: Annotated[str | None, Query(max_length=200)] = None) -> str | None:
    """The caller's token: `Authorization: Bearer T`, or `?token=T` (EventSource cannot set
    headers)."""
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise GameError(401, "expected an Authorization: Bearer token")
        return value.strip()
    return token


Token = Annotated[str | None, Depends(bearer)]


def game(code: str, m: Manager) -> LiveGame:
    """The game named in the path (404 if there is none)."""
    return m.get(code)


Game = Annotated[LiveGame, Depends(game)]


def seat(g: Game, m: Manager, token: Token) -> int:
    """The caller's seat in the game: a token is required (401 none or unknown, 403 another
    game's)."""
    return m.seat_of(g.code, token)


def viewer(g: Game, m: Manager, token: Token) -> int | None:
    """The caller's seat, or None for a spectator without a token (a token given must be
    valid)."""
    return m.seat_of(g.code, token) if token else None


Seat = Annotated[int, Depends(seat)]
Viewer = Annotated[int | None, Depends(viewer)]
