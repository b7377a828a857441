"""A seat of a `duel serve` game, played through the server's REST API with the seat's token
(`duel mcp --server URL`): the same tool set acts on it as on a game this process hosts.

The seat's status is the server's own view for its token (`GET /games/{code}`, whose headers say
the ply it was read at and whether the game is over: one request a turn) and, once the game is
over, its result (`GET /games/{code}/info`); a move is `POST /games/{code}/moves` with the ply it
was decided at, so a move is never applied twice. The answer waits on the game's event stream,
opened before the move is sent, so that every ply after it is seen (each event's view carries its
previousMove) until the seat is to move again, the game is over, or `wait` seconds pass.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from typing import Any

import httpx

from duel.agents.tools.status import YOU, SeatStatus
from duel.engine import Move, Result, Seat
from duel.errors import (
    AuthError,
    BusyError,
    ConflictError,
    DuelError,
    ForbiddenError,
    GameNotFoundError,
    IllegalMoveError,
    InvalidMoveError,
    TooLargeError,
    UsageError,
)

TIMEOUT = 30.0  # seconds for one request (a game's creation may wait for its agents' start)
_STATUS: dict[int, type[DuelError]] = {401: AuthError, 403: ForbiddenError,
                                       404: GameNotFoundError, 409: ConflictError,
                                       413: TooLargeError, 429: BusyError}
SHOWN = 300  # characters of a server's refusal quoted back
BUSY_WAIT = 60.0  # seconds one request waits at most for a busy or unreachable server
CONNECT_RETRIES = 4  # tries again of a connection that did not reach the server


def refusal(r: httpx.Response) -> DuelError:
    """A server's refusal as the DuelError of its status, with the server's own words."""
    try:
        detail: Any = r.json().get("detail")
    except (ValueError, AttributeError):
        detail = r.text[:SHOWN]
    if isinstance(detail, dict):
        reason = str(detail.get("reason") or detail.get("error") or detail)
        if detail.get("error") == "illegal move":
            return IllegalMoveError(f"that move is not legal: {reason}")
        if detail.get("error") == "malformed move":
            return InvalidMoveError(reason)
    elif isinstance(detail, list):
        reason = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', []))}: {e.get('msg')}"
                           for e in detail if isinstance(e, dict))
    else:
        reason = str(detail)
    cls = _STATUS.get(r.status_code, UsageError)
    return cls(f"the server refused ({r.status_code}): {reason[:SHOWN]}")


class Server:
    """A `duel serve` server's REST API, for the seats played through it."""

    def __init__(self, url: str, client: httpx.Client | None = None) -> None:
        self.url = url.rstrip("/")
        self.client = client or httpx.Client(timeout=TIMEOUT)

    def request(self, method: str, path: str, token: str | None = None,
                **kw: Any) -> Any:
        return self.answer(method, path, token, **kw).json()

    def answer(self, method: str, path: str, token: str | None = None,
               **kw: Any) -> httpx.Response:
        """The server's answer (its headers too), or the DuelError of its refusal. Busy is
        not broken: a 429 or 503 is waited for as its retry-after says, and a connection
        that never reached the server is tried again with backoff, for at most BUSY_WAIT
        seconds (neither can have applied a move: a move is sent with its ply anyway)."""
        from duel.agents.waiting import backoff_wait, retry_after

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        deadline = time.monotonic() + BUSY_WAIT
        tries = 0
        while True:
            tries += 1
            try:
                r = self.client.request(method, self.url + path, headers=headers, **kw)
            except httpx.ConnectError as exc:
                wait = backoff_wait(tries, 0.25)
                if tries > CONNECT_RETRIES or time.monotonic() + wait > deadline:
                    raise UsageError(f"cannot reach the duel server at {self.url}: "
                                     f"{type(exc).__name__}: {exc}") from None
            except httpx.HTTPError as exc:
                raise UsageError(f"cannot reach the duel server at {self.url}: "
                                 f"{type(exc).__name__}: {exc}") from None
            else:
                if r.status_code not in (429, 503):
                    break
                wait = backoff_wait(tries, 0.5, retry_after=retry_after(r.headers))
                if time.monotonic() + wait > deadline:
                    break  # busy past the wait: its refusal, in the server's words
            time.sleep(wait)
        if r.status_code >= 400:
            raise refusal(r)
        return r

    def create(self, opponent: str, seat: Seat, seed: int | None) -> tuple[str, str]:
        """A new game on the server: the client in `seat`, `opponent` (a spec or an agent the
        server's operator configured) in the other. Its code and the client's token."""
        body: dict[str, Any] = {seat.key: "external", seat.other.key: opponent}
        if seed is not None:
            body["seed"] = seed
        created = self.request("POST", "/games", json=body)
        return str(created["code"]), str(created["tokens"][str(seat.player)])

    def close(self) -> None:
        self.client.close()


class RemoteSeat:
    """One seat of a server's game, through its token (the Table of `duel.agents.tools`)."""

    def __init__(self, gid: str, server: Server, code: str, token: str,
                 wait: float = 120.0) -> None:
        self.id = gid
        self.server = server
        self.code = code
        self.token = token
        self.wait = wait
        self._over: tuple[dict[str, Any], Seat] | None = None  # a finished game's facts
        self.seat = self._info()[1]

    def _info(self) -> tuple[dict[str, Any], Seat]:
        info = self.server.request("GET", f"/games/{self.code}/info", self.token)
        you = info.get("you")
        if you not in (1, 2):
            raise AuthError(f"this token is not a seat of game {self.code}")
        return info, Seat.of_player(you)

    def status(self) -> SeatStatus:
        """The seat's view and the game's facts at one ply: the state's answer says its ply
        and whether the game is over, so a turn costs one request; the result of a finished
        game is read once."""
        r = self.server.answer("GET", f"/games/{self.code}", self.token)
        try:
            ply, over = int(r.headers["duel-ply"]), r.headers["duel-over"] == "true"
        except (KeyError, ValueError):
            raise UsageError(f"{self.server.url} does not say which ply its state is at "
                             "(Duel-Ply): a duel server older than this client?") from None
        view = r.json()
        if not over:
            return SeatStatus(self.seat, view, ply, False, None)
        if self._over is None or self._over[0]["ply"] != ply:
            self._over = self._info()
        return self._status(self.seat, view, self._over[0])

    @staticmethod
    def _status(seat: Seat, view: dict[str, Any], info: dict[str, Any]) -> SeatStatus:
        result = None
        if info["over"] and info.get("victory"):
            winner = info.get("winner")
            win = None if winner == "draw" else Seat.of_player(winner)
            points = info.get("points") or {}
            scores = tuple(points.get(str(s), {"TOTAL": 0}) for s in (1, 2))
            forfeit = win.other if info["victory"] == "forfeit" and win is not None else None
            result = Result(win, info["victory"], (scores[0], scores[1]), forfeit)
        return SeatStatus(seat, view, int(info["ply"]), bool(info["over"]), result)

    def play(self, move: Move, details: dict[str, Any]) -> tuple[SeatStatus, list[str]]:
        """Send the seat's move (the server checks it again), then follow the game until the
        seat is to move, the game is over or `wait` seconds pass. The moves' details stay here:
        the server records what its API was sent."""
        before = self.status()
        if not before.your_turn:
            raise ConflictError("it is the opponent's turn" if not before.over
                                else "the game is over")
        body = {**move.to_json(), "ply": before.ply}
        played: list[str] = []
        with _Events(self.server, self.code, self.token) as events:
            now = events.next(TIMEOUT)  # the state as the stream starts: it has started
            self.server.request("POST", f"/games/{self.code}/moves", self.token, json=body)
            deadline = time.monotonic() + self.wait
            while True:
                event = events.next(deadline - time.monotonic())
                if event is None:
                    break
                ply, view = event
                if now is not None and ply <= now[0]:
                    continue
                played.append(str(view.get("previousMove", "")))
                if view.get("step") == "GAME_END" or view.get("currentPlayerNumber") == YOU:
                    break
        return self.status(), played

    def wait_turn(self, seconds: float) -> SeatStatus:
        """The status once the seat is to move or the game is over, or after `seconds`."""
        deadline = time.monotonic() + seconds
        status = self.status()
        while not status.your_turn and not status.over and time.monotonic() < deadline:
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            status = self.status()
        return status


class _Events:
    """A game's server-sent events as (ply, view) pairs, read by a thread of their own so that
    waiting for the next one has a deadline (`next`), whatever the stream does meanwhile."""

    def __init__(self, server: Server, code: str, token: str) -> None:
        self.server, self.code, self.token = server, code, token
        self.queue: queue.Queue[tuple[int, dict[str, Any]] | None] = queue.Queue()
        self._response: httpx.Response | None = None
        self._cm: Any = None

    def __enter__(self) -> _Events:
        headers = {"Authorization": f"Bearer {self.token}"}
        self._cm = self.server.client.stream(
            "GET", f"{self.server.url}/games/{self.code}/events", headers=headers,
            timeout=httpx.Timeout(TIMEOUT, read=None))
        try:
            r = self._cm.__enter__()
        except httpx.HTTPError as exc:
            raise UsageError(f"cannot follow game {self.code} on {self.server.url}: "
                             f"{type(exc).__name__}") from None
        if r.status_code >= 400:
            r.read()
            self._cm.__exit__(None, None, None)
            raise refusal(r)
        self._response = r
        threading.Thread(target=self._read, args=(r,), daemon=True,
                         name=f"events {self.code}").start()
        return self

    def next(self, seconds: float) -> tuple[int, dict[str, Any]] | None:
        """The next event, or None if the stream ended or `seconds` passed."""
        try:
            return self.queue.get(timeout=max(0.0, seconds))
        except queue.Empty:
            return None

    def __exit__(self, *exc: object) -> None:
        # Closing the stream ends the reader thread (its next read fails).
        if self._cm is not None:
            self._cm.__exit__(None, None, None)

    def _read(self, r: httpx.Response) -> None:
        ident: str | None = None
        data: list[str] = []
        try:
            for line in r.iter_lines():
                if not line:
                    if data and ident is not None:
                        self.queue.put((int(ident), json.loads("\n".join(data))))
                    ident = None
                    data = []
                elif line.startswith("id:"):
                    ident = line[3:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
        except (httpx.HTTPError, ValueError, RuntimeError):
            pass  # the stream was closed under us, or cut: the queue's end says so
        finally:
            self.queue.put(None)
