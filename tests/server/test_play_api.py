"""What the play page and the lobby read, through the same public REST API as bots: who plays a
game and which seat a token holds (`/info`), the games to watch (`GET /games`), why a pyramid
move cannot be made (`unavailable` in `GET /moves`, checked against the engine), a partial
transcript from a ply on; and the pages themselves (served without any token, with headers
that keep them to this server)."""

from __future__ import annotations

import random

from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, legal, live, play, play_out, states_by_ply, wait_turn
from helpers.server_helpers import bearer, create, wait_until

from duel.engine import Move, Perspective, Seat


def test_info_names_the_seats_and_the_caller_s(client: TestClient) -> None:
    code, tokens = create(client, "external", "random", seed=3)
    public = client.get(f"/games/{code}/info").json()
    assert public["players"] == {"1": "external", "2": "random"}
    assert public["you"] is None and public["over"] is False and public["winner"] is None
    assert client.get(f"/games/{code}/info", headers=bearer(tokens["1"])).json()["you"] == 1
    assert client.get(f"/games/{code}/info", headers=bearer("nope")).status_code == 401
    assert client.get("/games/NoSuchGame/info").status_code == 404


def test_info_gives_the_engine_s_points_so_far_after_every_move(client: TestClient) -> None:
    """Two external seats play a whole game at random: after each move, /info's points (for a
    spectator and for either seat alike: they are public) are the engine's score breakdowns of
    the position at its ply, replayed from the stored moves."""
    code, tokens = create(client, "external", "external", seed=6)
    rng = random.Random(6)
    checked = 0
    while True:
        answers = [client.get(f"/games/{code}/info", headers=h).json()
                   for h in ({}, bearer(tokens["1"]), bearer(tokens["2"]))]
        info = answers[0]
        assert all(a["points"] == info["points"] and a["ply"] == info["ply"] for a in answers)
        state = states_by_ply(client, code)[info["ply"]]
        assert info["points"] == {"1": state.score(0), "2": state.score(1)}, info["ply"]
        checked += 1
        if info["over"]:
            break
        play(client, code, tokens[str(live(client, code).state.current_player)], rng)
    assert checked > 40 and info["points"]["1"]["TOTAL"] + info["points"]["2"]["TOTAL"] > 0


def test_games_lists_the_newest_first_with_results(client: TestClient) -> None:
    first, tokens = create(client, "external", "random", seed=1)
    second, _ = create(client, "external", "rule", seed=2)
    listed = client.get("/games").json()["games"]
    assert [g["code"] for g in listed][:2] == [second, first]
    assert "tokens" not in str(listed) and tokens["1"] not in str(listed)
    play_out(client, first, tokens, random.Random(1))
    wait_until(lambda: live(client, first).over, WAIT, "the end")
    done = next(g for g in client.get("/games").json()["games"] if g["code"] == first)
    assert done["over"] and done["winner"] in (1, 2, "draw")
    assert done["victory"] in ("military", "science", "civilian")


def test_unavailable_moves_say_why_and_are_never_legal(client: TestClient) -> None:
    """Over a whole game, at every turn of the seat in step PLAY_CARD: each refused move is
    illegal for the engine, a covered card names exactly the cards on it, an unaffordable one
    its price and the seat's coins; every card of the pyramid is either playable or refused."""
    code, tokens = create(client, "external", "random", seed=11)
    rng = random.Random(11)
    checked = 0
    while not live(client, code).over:
        if live(client, code).state.current != 0:
            wait_until(lambda: live(client, code).over or live(client, code).state.current == 0,
                       WAIT, "player 1's turn")
            continue
        m = wait_turn(client, code, tokens["1"])
        state = live(client, code).state
        if state.step_name == "PLAY_CARD":
            legal_moves = set(state.legal_moves())
            seen = Perspective(Seat.P1)
            for r in m["unavailable"]:
                move = seen.move_in(Move.from_json({"move": r["move"], "moveData": r["moveData"]}))
                assert move not in legal_moves, r
                if r["reason"].startswith("covered by "):
                    assert r["price"] is None
                elif r["reason"].startswith("costs "):
                    assert r["reason"] == (f"costs {r['price']} coins, you have "
                                           f"{state.players[0].coins}"), r
                else:
                    assert r["reason"] in ("already built", "seven wonders are built already")
            slots = {x["moveData"]["cardIndex"] for x in m["moves"] + m["unavailable"]}
            assert slots == {s for s, c in enumerate(state.pyramid) if c >= 0}
            checked += 1
        else:
            assert m["unavailable"] == []
        play(client, code, tokens["1"], rng)
    assert checked > 10
    assert legal(client, code, tokens["1"])["unavailable"] == []


def test_partial_transcript_from_a_ply(client: TestClient) -> None:
    code, tokens = create(client, "external", "random", seed=5)
    for _ in range(3):
        play(client, code, tokens["1"], random.Random(5))
    lines = client.get(f"/games/{code}/transcript", params={"partial": "true", "since": 2}).text
    kinds = [line.split('"type": "')[1].split('"')[0] for line in lines.splitlines()]
    assert kinds[0] == "header" and "result" not in kinds and len(kinds) > 1
    assert client.get(f"/games/{code}/transcript", params={"since": -1}).status_code == 422


def test_the_pages_are_served_without_a_token(client: TestClient) -> None:
    code, _ = create(client, "external", "random", seed=3)
    page = client.get(f"/games/{code}/play")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "connect-src 'self'" in page.headers["content-security-policy"]
    assert f'"code": "{code}"' in page.text and "__BOARD_JS__" not in page.text
    # Nothing from elsewhere (SVG's namespace is a name, never fetched).
    text = page.text.replace("http://www.w3.org/2000/svg", "")
    assert "http://" not in text and "https://" not in text
    assert client.get("/games/NoSuchGame/play").status_code == 404
    lobby = client.get("/")
    assert lobby.status_code == 200 and "/agents" in lobby.text
    assert "/games/{code}/play" not in client.get("/openapi.json").text
