"""`duel serve` at /leaderboard: the leaderboard of the games in its store, finished games only
(a game in play, its players and its code appear nowhere until it is over), under the same
content security policy as the other pages, its JSON following the published schema, and the
page working in Chromium (its own script runs, nothing is refused)."""

from __future__ import annotations

import random
import re
import time

import httpx
from fastapi.testclient import TestClient
from helpers.play_helpers import play, play_out
from helpers.server_helpers import create

from duel.leaderboard.pages import slug
from duel.schemas import schema_error

HIDDEN = "mcts:iterations=7"  # the agent of the game left in play


def wait_over(client: TestClient, code: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if client.get(f"/games/{code}").json()["step"] == "GAME_END":
            return
        time.sleep(0.05)
    raise AssertionError(f"game {code} did not end")


def nonce_of(r: httpx.Response) -> str:
    """The page's nonce, once its policy is the pages' own and its one <style> and one
    <script> carry it."""
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), r.text
    policy = r.headers["content-security-policy"]
    found = re.search(r"script-src 'nonce-([A-Za-z0-9_-]{22,})'", policy)
    assert found, policy
    nonce = found.group(1)
    assert policy == (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src "
                      f"'nonce-{nonce}'; connect-src 'self'; img-src 'self' data:; "
                      "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
    tags = re.findall(r"<(script|style)\b([^>]*)>", r.text)
    assert sorted(t for t, _ in tags) == ["script", "style"]
    assert all(attrs == f' nonce="{nonce}"' for _, attrs in tags), tags
    return nonce


def test_the_leaderboard_counts_finished_games_only(client: TestClient) -> None:
    empty = client.get("/leaderboard")
    nonce_of(empty)
    assert "No finished game yet" in empty.text
    data = client.get("/leaderboard/leaderboard.json").json()
    assert schema_error("leaderboard", data) is None and data["players"] == []

    codes = []
    for seed in range(3):
        code, _ = create(client, "rule", "random", seed=seed)
        codes.append(code)
    code, tokens = create(client, "external", "random", seed=7)
    play_out(client, code, tokens, random.Random(7))  # a person's game, to its end
    codes.append(code)
    open_code, open_tokens = create(client, "external", HIDDEN, seed=8)  # left in play
    play(client, open_code, open_tokens["1"], random.Random(8))
    for c in codes[:3]:
        wait_over(client, c)

    r = client.get("/leaderboard")
    first = nonce_of(r)
    assert nonce_of(client.get("/leaderboard")) != first  # a fresh nonce each time
    for name in ("rule", "random", "external"):
        assert f'data-player="{name}"' in r.text
    assert HIDDEN not in r.text and open_code not in r.text
    data = client.get("/leaderboard/leaderboard.json").json()
    assert schema_error("leaderboard", data) is None
    assert sorted(g["key"] for g in data["games"]) == sorted(codes)
    assert {p["player"] for p in data["players"]} == {"rule", "random", "external"}
    assert all(g["replay"] == f"/games/{g['key']}/view" for g in data["games"])
    assert HIDDEN not in str(data) and open_code not in str(data)

    page = client.get(f"/leaderboard/players/{slug('rule')}")
    nonce_of(page)
    for c in codes[:3]:
        assert f'href="/games/{c}/view"' in page.text
    assert client.get(f"/leaderboard/players/{slug(HIDDEN)}").status_code == 404
    svg = client.get("/leaderboard/plots/ratings.svg")
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert svg.content.lstrip().startswith(b"<?xml")
    assert client.get("/leaderboard/plots/cost.svg").status_code == 404  # nobody spent money
    schema = client.get("/leaderboard/leaderboard.schema.json").json()
    assert schema["$id"].endswith("leaderboard.schema.json")

    # once the open game is over, it counts
    play_out(client, open_code, open_tokens, random.Random(8))
    data = client.get("/leaderboard/leaderboard.json").json()
    assert len(data["games"]) == 5 and HIDDEN in {p["player"] for p in data["players"]}


def test_the_served_leaderboard_in_chromium(db: str) -> None:
    from helpers.browser import chromium, open_page, served

    with served(db) as (url, _), chromium() as browser:
        codes = [httpx.post(url + "/games", json={"player1": "rule", "player2": "random",
                                                  "seed": s}, timeout=30).json()["code"]
                 for s in range(2)]
        deadline = time.monotonic() + 60
        while any(httpx.get(f"{url}/games/{c}", timeout=30).json()["step"] != "GAME_END"
                  for c in codes):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        page, errors = open_page(browser, url + "/leaderboard")
        rows = page.eval_on_selector_all("table#leaderboard tbody tr",
                                         "rs => rs.map(r => r.dataset.player)")
        assert rows == ["rule", "random"]
        page.click("table#leaderboard th:nth-child(2) button")  # the page's script sorts
        assert page.eval_on_selector_all("table#leaderboard tbody tr",
                                         "rs => rs.map(r => r.dataset.player)") == \
            ["random", "rule"]
        assert page.evaluate("document.querySelector('img').naturalWidth") > 0  # the plot
        page.click("table#leaderboard tr[data-player='rule'] td.player a")
        page.locator("#game-list a", has_text="replay").first.click()
        page.wait_for_function("() => document.getElementById('ply').textContent.length > 0")
        assert page.url.split("/games/")[1].split("/")[0] in codes
        assert errors == [], errors  # nothing refused by the policy, nothing broken
