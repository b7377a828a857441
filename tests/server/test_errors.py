"""The one table from duel's error classes to HTTP statuses (server/errors.py): every error
class has a status, a structured detail is sent as is, a 401 names its scheme and a 429 says
when to retry; and no module under the routes knows about HTTP."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import pytest

import duel.errors as errors_module
from duel.errors import (
    AuthError,
    BusyError,
    ConflictError,
    DuelError,
    ForbiddenError,
    GameNotFoundError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    SpecError,
    StoreError,
    TooLargeError,
    TransportError,
    UsageError,
)
from server.errors import ERRORS, error_response, status_of

SERVER = Path(__file__).resolve().parents[2] / "server"


@pytest.mark.parametrize("exc,status", [
    (AuthError("unknown token"), 401),
    (ForbiddenError("another game's token"), 403),
    (GameNotFoundError("no game 'X'"), 404),
    (ConflictError("stale ply"), 409),
    (StoreError("ply taken"), 409),
    (TooLargeError("too big"), 413),
    (BusyError("busy", retry_after=1), 429),
    (InvalidStateError("bad state"), 422),
    (InvalidMoveError("bad move"), 422),
    (IllegalMoveError("illegal"), 422),
    (SpecError("unknown agent"), 422),
    (UsageError("seed or deal"), 422),
    (TransportError("peer down"), 422),
    (DuelError("anything else"), 422),
])
def test_each_error_class_has_its_status(exc: DuelError, status: int) -> None:
    assert status_of(exc) == status
    response = error_response(exc)
    assert response.status_code == status
    assert json.loads(response.body) == {"detail": str(exc)}


def test_every_error_class_of_duel_has_a_documented_status() -> None:
    classes = [c for _, c in inspect.getmembers(errors_module, inspect.isclass)
               if issubclass(c, DuelError)]
    assert len(classes) > 10
    for cls in classes:
        assert status_of(cls.__new__(cls)) in ERRORS, cls.__name__


@pytest.mark.parametrize("cls", [IllegalMoveError, InvalidMoveError])
def test_a_structured_detail_is_the_body_s_detail(cls: type[IllegalMoveError]) -> None:
    detail = {"error": "illegal move", "reason": "no", "legal": [{"move": "DISCARD"}]}
    response = error_response(cls("no", detail=detail))
    assert response.status_code == 422
    assert json.loads(response.body) == {"detail": detail}


def test_401_names_the_scheme_and_429_says_when_to_retry() -> None:
    assert error_response(AuthError("x")).headers["www-authenticate"] == "Bearer"
    assert error_response(BusyError("x", retry_after=1)).headers["retry-after"] == "1"
    assert error_response(BusyError("x", retry_after=2.5)).headers["retry-after"] == "3"
    assert "retry-after" not in error_response(BusyError("x")).headers
    assert "www-authenticate" not in error_response(ForbiddenError("x")).headers


# The routes layer: the app, its routes, their dependencies and the error table; and the HTTP
# server it runs in (uvicorn's settings and protocol) and the middlewares in front of the routes.
WEB_MODULES = {"main.py", "deps.py", "errors.py", "schemas.py", "guard/connections.py",
               "guard/middleware.py"}
# The folders below the routes (routes/ is the web itself).
BELOW_THE_ROUTES = ("", "games/", "work/", "guard/")


def test_nothing_below_the_routes_knows_http() -> None:
    """The game modules import no web framework and name no status code."""
    checked = []
    for path in sorted(p for folder in BELOW_THE_ROUTES for p in SERVER.glob(f"{folder}*.py")):
        name = path.relative_to(SERVER).as_posix()
        if name in WEB_MODULES:
            continue
        tree = ast.parse(path.read_text())
        imported = {alias.name for node in ast.walk(tree)
                    if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom)}
        web = {name for name in imported if name.split(".")[0] in
               ("fastapi", "starlette", "sse_starlette") or name == "server.errors"}
        assert not web, f"{name} imports {sorted(web)}"
        numbers = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                   and type(node.value) is int}
        assert not numbers & {400, 401, 403, 404, 409, 413, 422, 429, 500}, path
        checked.append(name)
    assert {"games/manager.py", "games/moves.py", "games/seats.py", "games/turns.py",
            "work/thinking.py", "guard/rate_limit.py"} <= set(checked)
