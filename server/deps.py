"""Typed dependencies of the routes: the game manager, the caller's token, the game named in the
path and the caller's seat in it.

FastAPI resolves dependencies before it validates the request body, so a request for an unknown
game is 404 and one without a valid token is 401/403 whatever its body holds; only then is the
body checked (422).

Every dependency is `async def`: FastAPI runs a plain `def` dependency on a worker thread, and
those thread hops (several per request, for dictionary lookups) were the largest cost of a
move under load (py-spy, `duel bench server --clients 50`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import unquote_plus

from fastapi import Depends, Header, Request

from duel.engine import Seat
from duel.errors import AuthError
from server.games.live import LiveGame
from server.games.manager import GameManager
from server.guard.address_shares import client_key

TOKEN_QUERY = "token"  # the one query name a token may travel under (EventSource)
TOKEN_MAX = 200  # characters of a token in the query; a longer one is refused (401)


def bearer_token(authorization: str | None, query_token: str | None) -> str | None:
    """The caller's token: `Authorization: Bearer T`, else `?token=T` (EventSource cannot set
    headers); None if there is neither. Another scheme, or none, is an AuthError."""
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise AuthError("expected an Authorization: Bearer token")
        return value.strip()
    return query_token


def query_token(query_string: bytes) -> str | None:
    """The token in a raw query string: the value of the one pair named `token`, spelled so.
    A name that only decodes to it (`%74oken`, `tok%65n`) or a second `token` is refused
    (AuthError): a token is read in one spelling only, the one the log filter looks for."""
    found: list[str] = []
    for pair in query_string.decode("latin-1").split("&"):
        name, _, value = pair.partition("=")
        if unquote_plus(name) != TOKEN_QUERY:
            continue
        if name != TOKEN_QUERY:
            raise AuthError(f"the token's query parameter is spelled {TOKEN_QUERY!r}, "
                            "without escapes")
        found.append(unquote_plus(value))
    if len(found) > 1:
        raise AuthError(f"the query gives {TOKEN_QUERY!r} {len(found)} times")
    if found and len(found[0]) > TOKEN_MAX:
        raise AuthError(f"the query's token is over {TOKEN_MAX} characters: no token is")
    return found[0] if found else None


def request_token(request: Request) -> str | None:
    """The token a request carries (see `bearer_token` and `query_token`)."""
    return bearer_token(request.headers.get("authorization"),
                        query_token(request.scope.get("query_string", b"")))


def manager_of(request: Request) -> GameManager:
    m: GameManager = request.app.state.manager
    return m


async def manager(request: Request) -> GameManager:
    return manager_of(request)


Manager = Annotated[GameManager, Depends(manager)]


async def header_bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The operator's token, from an `Authorization: Bearer` header alone. Routes open to
    everyone read it, so another scheme (a proxy's) is no token rather than an error."""
    try:
        return bearer_token(authorization, None)
    except AuthError:
        return None


HeaderToken = Annotated[str | None, Depends(header_bearer)]


async def game(request: Request, code: str) -> LiveGame:
    """The game named in the path (GameNotFoundError if there is none); a finished game no
    longer in memory is read back from the store. For routes open to everyone."""
    return await manager_of(request).find(code)


Game = Annotated[LiveGame, Depends(game)]

# The routes that depend on the caller's seat resolve the manager, the game and the seat in one
# dependency: FastAPI's cost grows with each dependency it solves, and a chain of them (game <-
# manager, seat <- game, manager, token) was most of a move's server time in a profile of
# `duel bench server`. For the same reason the token's two ways in are documented on those
# routes (`openapi_extra=TOKEN_PARAMETERS`) instead of declared as parameters: FastAPI parsed
# and validated both on every request, a tenth of a move's server time, while the raw request
# decides which counts (`request_token`: FastAPI would also take a query name that merely
# decodes to `token`).
_NULLABLE = {"anyOf": [{"type": "string"}, {"type": "null"}]}
TOKEN_PARAMETERS: dict[str, Any] = {"parameters": [
    {"name": "token", "in": "query", "required": False,
     "description": "the seat's token, for EventSource (which cannot set headers); prefer the "
                    "Authorization header",
     "schema": {"anyOf": [{"type": "string", "maxLength": TOKEN_MAX}, {"type": "null"}],
                "title": "Token"}},
    {"name": "authorization", "in": "header", "required": False,
     "description": "Bearer TOKEN: the seat's token", "schema": {**_NULLABLE,
                                                                   "title": "Authorization"}}]}


@dataclass(frozen=True, slots=True)
class At:
    """The manager, the game named in the path, and the caller's seat in it."""

    m: GameManager
    game: LiveGame
    seat: Seat


@dataclass(frozen=True, slots=True)
class Watch:
    """The manager, the game named in the path, and the caller's seat (None: a spectator)."""

    m: GameManager
    game: LiveGame
    seat: Seat | None


async def seated(request: Request, code: str) -> At:
    """The game (404 first), then the seat of the caller's token: required (AuthError for none
    or an unknown one, ForbiddenError for another game's)."""
    m = manager_of(request)
    g = await m.find(code)
    return At(m, g, m.seat_of(g.code, request_token(request)))


async def watching(request: Request, code: str) -> Watch:
    """The game, then the seat of a token given (None: a spectator without one; a token given
    must be valid)."""
    m = manager_of(request)
    g = await m.find(code)
    given = request_token(request)
    return Watch(m, g, m.seat_of(g.code, given) if given else None)


Seated = Annotated[At, Depends(seated)]
Watching = Annotated[Watch, Depends(watching)]


def address_of(request: Request) -> str:
    """Who a request comes from, by address (an IPv6 one by its /64; the forwarded address
    only behind a proxy the operator trusts): the key of every per-client limit, and the owner
    of the games it creates (whose agent seats share that owner's caps)."""
    return "addr:" + client_key(request.client.host if request.client else None)


async def client_address(request: Request) -> str:
    return address_of(request)


def caller_of(request: Request) -> str:
    """Who a request comes from, for the rate limit and the caps on agent work: its address
    (server/guard/address_shares.py). Not its seat token: `POST /games` hands out tokens to
    anyone, so a share per token would be as many shares as a client cares to make."""
    return address_of(request)


async def caller(request: Request) -> str:
    return caller_of(request)


Caller = Annotated[str, Depends(caller)]
Address = Annotated[str, Depends(client_address)]


async def check_caller(request: Request, code: str) -> Seat:
    """What the dependencies check, for a request whose body failed validation first: the game
    exists and the caller holds a seat in it."""
    m = manager_of(request)
    await m.find(code)
    return m.seat_of(code, request_token(request))
