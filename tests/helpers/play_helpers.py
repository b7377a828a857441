"""Driving games through the test client: the app's game manager and live games, a seat's legal
moves, waiting for its turn, random play until the end, and every state a game went through."""

from __future__ import annotations

import random
from typing import Any, cast

from fastapi.testclient import TestClient
from helpers.server_helpers import bearer, move_body, wait_until

from duel.engine import Deal, GameState, new_game, swap_move
from duel.records import MoveRecord
from server.games.live import LiveGame
from server.games.manager import GameManager

WAIT = 60.0  # generous: another CPU-heavy job shares this machine


def manager(client: TestClient) -> GameManager:
    app: Any = client.app
    return cast(GameManager, app.state.manager)


def live(client: TestClient, code: str) -> LiveGame:
    """The game in the app's memory; on a shared store (where a server keeps only the games it
    runs or was asked about), read in as a request would, and caught up."""
    m = manager(client)
    if m.sharing is not None:
        portal = client.portal
        assert portal is not None, "live() needs the client's app running (`with TestClient`)"
        return portal.call(m.find, code)
    return m.games[code]


def stored_moves(client: TestClient, code: str) -> list[MoveRecord]:
    return manager(client).store.moves(code)


def legal(client: TestClient, code: str, token: str) -> dict[str, Any]:
    r = client.get(f"/games/{code}/moves", headers=bearer(token))
    assert r.status_code == 200, r.text
    return cast(dict[str, Any], r.json())


def wait_turn(client: TestClient, code: str, token: str) -> dict[str, Any]:
    """The seat's legal moves once it is its turn (fails if the game ends first)."""
    def ready() -> dict[str, Any] | None:
        assert not live(client, code).over, "the game ended while waiting for a turn"
        m = legal(client, code, token)
        return m if m["yourTurn"] else None
    return cast(dict[str, Any], wait_until(ready, WAIT, "the seat's turn"))


def play(client: TestClient, code: str, token: str, rng: random.Random) -> dict[str, Any]:
    """The seat plays a random legal move at its turn; returns the accepted response body."""
    m = wait_turn(client, code, token)
    r = client.post(f"/games/{code}/moves", headers=bearer(token),
                    json=move_body(rng.choice(m["moves"]), m["ply"]))
    assert r.status_code == 200, r.text
    return cast(dict[str, Any], r.json())


def play_unless_over(client: TestClient, code: str, token: str, rng: random.Random) -> bool:
    """The seat plays a random legal move at its turn, unless the game ends first (an agent's
    move can end it while the seat waits); whether it played."""
    def turn_or_end() -> bool:
        game = live(client, code)
        return game.over or bool(legal(client, code, token)["yourTurn"])
    wait_until(turn_or_end, WAIT, "the seat's turn or the game's end")
    if live(client, code).over:
        return False
    play(client, code, token, rng)
    return True


def external_seat_to_move(client: TestClient, code: str, tokens: dict[str, str]) -> str | None:
    game = live(client, code)
    if game.over:
        return None
    return tokens.get(str(game.state.current_player))


def play_out(client: TestClient, code: str, tokens: dict[str, str], rng: random.Random,
             max_moves: int = 400) -> int:
    """Play every external seat at random until the game is over; returns the moves made."""
    made = 0
    for _ in range(max_moves):
        if wait_until(lambda: live(client, code).over or external_seat_to_move(
                client, code, tokens), WAIT, "a turn of an external seat or the end") is True:
            return made
        token = external_seat_to_move(client, code, tokens)
        if token is None:
            continue
        play(client, code, token, rng)
        made += 1
    raise AssertionError(f"game {code} not over after {max_moves} external moves")


def states_by_ply(client: TestClient, code: str) -> dict[int, GameState]:
    """Every state of the game so far, replayed from its stored moves."""
    game = live(client, code)
    state = new_game(deal=Deal.from_json(game.row.options["deal"]),
                     open_box=game.row.options["open_box"], code=code)
    out = {0: state}
    for row in manager(client).store.moves(code):
        state = state.apply(row.move)
        out[state.ply] = state
    return out


def expected_moves(state: GameState, seat: int) -> list[dict[str, Any]]:
    """The seat's legal moves with prices, in its labels (it is player2)."""
    if state.current_player != seat or state.is_terminal():
        return []
    return [{**(swap_move(m) if seat == 1 else m).to_json(), "price": p}
            for m, p in state.priced_moves()]
