"""Twin games: two games whose deals differ only in cards nobody has seen (the Age II and III
decks and their removed cards, the guilds, the order of the tokens in the box), played with the
same moves, each on a server of its own under the same game code. Every endpoint a seat or a
spectator can call gives both games the same answer, byte for byte once the clocks and the page
nonces are set aside: nothing any requester reads depends on a hidden card. Only the
operator's token reads a running game's deal, and everybody reads it once the game is over.

Two pairs: two external seats (the requests of seat 1, seat 2 and a spectator, a wrong token),
and an external seat against MCTS, whose decisions and search statistics must not differ either.
"""

from __future__ import annotations

import json
import random
import re
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, live, manager
from helpers.seat_tables import twin_deal as twin
from helpers.server_helpers import bearer, move_body, parse_sse, wait_until

from duel.engine import Deal, new_game
from server.main import create_app

OPERATOR = "operator-token-for-the-twin-tests"
SEEDS = (5, 8)


def normal(text: str, code: str = "") -> str:
    """An answer with what differs between any two games set aside: the clocks (a move's
    seconds, a game's creation time) and a page's nonce."""
    text = re.sub(r'"(seconds|created|idle_seconds)": ?[0-9.e+-]+', r'"\1": 0', text)
    text = re.sub(r'"started_at": ?"[^"]*"', '"started_at": ""', text)
    return re.sub(r"nonce(=\"|-)[A-Za-z0-9_-]+", r"nonce\1N", text)


class Twin:
    """One game of a pair, with its tokens and the events its readers collect."""

    def __init__(self, client: TestClient, deal: Deal, p2: str) -> None:
        self.client = client
        r = client.post("/games", json={"player1": "external", "player2": p2,
                                         "deal": deal.to_json(), "open_box": False})
        assert r.status_code == 201, r.text
        self.created = r.json()
        self.code = self.created["code"]
        self.tokens: dict[str, str] = self.created["tokens"]
        self.events: dict[str, list[dict[str, Any]]] = {}
        self.readers: list[threading.Thread] = []

    def read_events(self, who: str, token: str | None) -> None:
        out: list[dict[str, Any]] = []
        self.events[who] = out

        def read() -> None:
            params = {"token": token} if token else {}
            with self.client.stream("GET", f"/games/{self.code}/events", params=params) as r:
                out.append({"status": r.status_code})
                out.extend(parse_sse(r.iter_lines()))

        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        self.readers.append(thread)

    def answers(self, requesters: dict[str, dict[str, str]]) -> dict[str, str]:
        """Every GET a seat or spectator can make, by (requester, endpoint), normalised."""
        c, code = self.client, self.code
        out: dict[str, str] = {}
        for who, headers in requesters.items():
            for path in ("", "/info", "/moves", "/transcript?partial=true",
                         "/transcript?partial=true&since=3", "/transcript", "/view", "/play",
                         "/log", "/log?since=3"):
                r = c.get(f"/games/{code}{path}", headers=headers)
                out[f"{who} GET {path}"] = f"{r.status_code} {normal(r.text, code)}"
        listing = c.get("/games").json()["games"]
        out["GET /games"] = normal(json.dumps([g for g in listing if g["code"] == code]), code)
        return out

    def state(self, token: str) -> dict[str, Any]:
        r = self.client.get(f"/games/{self.code}/moves", headers=bearer(token))
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body


def requesters(game: Twin) -> dict[str, dict[str, str]]:
    """Seat 1, seat 2 (when external), a spectator and a stranger's made-up token."""
    out = {"spectator": {}, "stranger": bearer("not-a-token-of-this-game")}
    for seat, token in game.tokens.items():
        out[f"seat {seat}"] = bearer(token)
    return out


def same(a: dict[str, str], b: dict[str, str], when: str) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == b[key], f"{when}: {key} differs between twin games:\n{a[key][:3000]}" \
                                 f"\n---\n{b[key][:3000]}"


def play_same(games: tuple[Twin, Twin], plies: int, rng: random.Random) -> list[str]:
    """Play the same moves in both games until `plies` moves are played (agent seats move by
    themselves); every move's answer is compared. The normalised answers."""
    answers = []
    while True:
        for g in games:  # the agents' turns played first, in both games
            wait_until(lambda g=g: str(live(g.client, g.code).state.current_player)
                       in g.tokens, WAIT, "the agent's moves")
        first = live(games[0].client, games[0].code)
        assert first.state.ply == live(games[1].client, games[1].code).state.ply
        mover = str(first.state.current_player)
        if first.state.ply >= plies:
            return answers
        legal = [g.state(g.tokens[mover]) for g in games]
        assert normal(json.dumps(legal[0]), games[0].code) == \
            normal(json.dumps(legal[1]), games[1].code)
        move = rng.choice(legal[0]["moves"])
        for g in games:
            r = g.client.post(f"/games/{g.code}/moves", headers=bearer(g.tokens[mover]),
                              json=move_body(move, legal[0]["ply"]))
            assert r.status_code == 200, r.text
            answers.append(normal(r.text, g.code))
        assert answers[-1] == answers[-2]


CODE = "Tw1n"


@pytest.fixture
def twin_servers(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Two servers of their own, whose games all get the code CODE."""
    import server.games.manager

    monkeypatch.setattr(server.games.manager, "random_code", lambda rng: CODE)
    with TestClient(create_app(str(tmp_path / "a.sqlite"), admin_token=OPERATOR)) as a, \
            TestClient(create_app(str(tmp_path / "b.sqlite"), admin_token=OPERATOR)) as b:
        yield a, b


@pytest.mark.parametrize("seed", SEEDS)
def test_twin_games_answer_every_requester_alike(
        twin_servers: tuple[TestClient, TestClient], seed: int) -> None:
    deal = new_game(seed).deal
    games = (Twin(twin_servers[0], deal, "external"), Twin(twin_servers[1], twin(deal), "external"))
    assert normal(json.dumps(games[0].created["state"]), games[0].code) == \
        normal(json.dumps(games[1].created["state"]), games[1].code)
    for g in games:
        for who, token in (("seat 1", g.tokens["1"]), ("seat 2", g.tokens["2"]),
                           ("spectator", None)):
            g.read_events(who, token)
    rng = random.Random(seed)
    # Checkpoints: the start, mid-draft, the draft's end, and deep into Age I (the structure's
    # face-down cards turning up); Age II would show the decks that differ.
    for plies in (0, 3, 8, 20):
        play_same(games, plies, rng)
        same(games[0].answers(requesters(games[0])), games[1].answers(requesters(games[1])),
             f"after {plies} moves")
    # Only the operator reads a running game's deal.
    seen = twin_servers[0].get(f"/games/{CODE}/transcript?partial=true",
                          headers=bearer(OPERATOR)).text
    header = json.loads(seen.splitlines()[0])
    assert header["deal"] == deal.to_json() and "sealed" not in header
    # The games end alike (the player to move lets them expire) and the event streams end.
    for g in games:
        m = manager(g.client)
        assert g.client.portal is not None
        ended = g.client.portal.call(m.expire_idle, live(g.client, g.code).moved_at
                                     + m.limits.idle_expiry + 1)
        assert ended == [CODE]
    for g in games:
        for thread in g.readers:
            thread.join(WAIT)
            assert not thread.is_alive(), "an event stream did not end with its game"
    for who in ("seat 1", "seat 2", "spectator"):
        a, b = (normal(json.dumps(g.events[who]), g.code) for g in games)
        assert a == b, f"{who}'s events differ"
        assert len(games[0].events[who]) == 1 + 20 + 1 + 1  # status, plies 0-20, the end
    # Once over, the whole transcript, deal included, is everybody's.
    for g, d in zip(games, (deal, twin(deal)), strict=True):
        full = g.client.get(f"/games/{g.code}/transcript").text
        assert json.loads(full.splitlines()[0])["deal"] == d.to_json()


def test_twin_games_against_mcts_decide_alike(twin_servers: tuple[TestClient, TestClient]) -> None:
    """An MCTS seat (a fixed number of iterations, the server's seed) searches from its view:
    in twin games it makes the same moves with the same statistics, and every requester's
    answers stay alike."""
    deal = new_game(11).deal
    spec = "mcts:iterations=40"
    games = (Twin(twin_servers[0], deal, spec), Twin(twin_servers[1], twin(deal), spec))
    rng = random.Random(11)
    for plies in (4, 9, 16):
        play_same(games, plies, rng)
        same(games[0].answers(requesters(games[0])), games[1].answers(requesters(games[1])),
             f"after {plies} moves")
    records = [[line for line in g.client.get(
        f"/games/{g.code}/transcript?partial=true").text.splitlines()[1:]] for g in games]
    details = [[{k: v for k, v in json.loads(line)["details"].items() if k != "seconds"}
                for line in r if json.loads(line)["player"] == 2] for r in records]
    assert details[0] and details[0] == details[1]
