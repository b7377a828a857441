"""The one place an error becomes an HTTP answer: the status of each of duel's error classes,
and the handlers that send `{"detail": ...}` with it. Nothing below the routes knows a status.

An error's class picks its status (the nearest class in the table, walking up from the error's
own); its `detail` attribute, when it has one (an illegal move's reason and legal moves), is
the body's detail, else its message."""

from __future__ import annotations

import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from duel.errors import (
    AuthError,
    BusyError,
    ConflictError,
    DuelError,
    ForbiddenError,
    GameNotFoundError,
    MisdirectedError,
    SlowClientError,
    StoreError,
    TooLargeError,
)
from server.deps import check_caller
from server.schemas import ErrorOut

STATUS: dict[type[DuelError], int] = {
    AuthError: 401,
    ForbiddenError: 403,
    GameNotFoundError: 404,
    SlowClientError: 408,
    ConflictError: 409,
    StoreError: 409,  # a write that lost a race: the game moved on
    TooLargeError: 413,
    MisdirectedError: 421,
    BusyError: 429,
    DuelError: 422,  # everything else duel refuses is bad input: a spec, a state, a move
}

# The error answers every route documents in the OpenAPI document.
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut} for status in sorted(set(STATUS.values()))}


def status_of(exc: DuelError) -> int:
    """The status of the nearest class of `exc` in the table (DuelError itself is there)."""
    return next(STATUS[cls] for cls in type(exc).__mro__ if cls in STATUS)


def error_response(exc: DuelError) -> JSONResponse:
    """The answer to `exc`: its status, its detail, and the headers its status calls for (a
    401 names the scheme; a 429 says when to retry; a 408 closes the connection)."""
    detail = getattr(exc, "detail", None)
    headers: dict[str, str] = {}
    if isinstance(exc, AuthError):
        headers["www-authenticate"] = "Bearer"
    if isinstance(exc, BusyError) and exc.retry_after is not None:
        headers["retry-after"] = str(math.ceil(exc.retry_after))
    if isinstance(exc, SlowClientError):
        headers["connection"] = "close"
    return JSONResponse({"detail": str(exc) if detail is None else detail}, status_of(exc),
                        headers=headers or None)


def install(app: FastAPI) -> None:
    """Register the error handlers on `app`."""

    @app.exception_handler(DuelError)
    async def duel_error(request: Request, exc: DuelError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI decodes a JSON body before it resolves the dependencies that check the game
        # and the token; an undecodable move body still gets 404/401/403 first, like any other.
        code = request.path_params.get("code")
        if isinstance(code, str) and request.method == "POST":
            try:
                await check_caller(request, code)
            except DuelError as denied:
                return error_response(denied)
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")}
                  for e in exc.errors()]
        return JSONResponse({"detail": errors}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # Starlette answers an undecodable body (not UTF-8, not JSON) with a bare 400; it is a
        # malformed request like any other, so it gets the documented 422.
        status = 422 if exc.status_code == 400 else exc.status_code
        return JSONResponse({"detail": exc.detail}, status, headers=exc.headers)
