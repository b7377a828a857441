"""The board's points as they stand (shown in each city; the page never counts them, it shows
the engine's) are the engine's (`GameState.score`) after every move of whole games: the replay
viewer's frames, stepped through in Chromium, against the engine's replay of the same
transcripts; and the play page's, from GET /info, at every turn of a game played by clicking."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers.browser import chromium, open_page, play_by_clicking, served

from duel.agents import make_agent
from duel.engine import new_game
from duel.match import play_match
from duel.transcripts import TranscriptWriter, initial_state, read, replay
from duel.viewer import render

# The test reads the running game's deal to replay it: the operator's privilege.
OPERATOR = "the-operator-of-the-tally-test"

# What the replay page shows in each city's points, frame after frame (as its arrow key does).
SHOWN = """["player1", "player2"].map(c => parseInt(document.querySelector(
    `[data-city=${c}] .stat.vp`).textContent, 10))"""
SHOWN_AT_EVERY_FRAME = f"GAME.frames.map((f, k) => {{ show(k); return {SHOWN}; }})"

GAMES = [(3, "rule", "random"), (8, "random", "rule"), (14, "rule", "rule"), (2, "rule", "rule"),
         (5, "rule", "rule")]


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_points_so_far_are_the_engine_s_after_every_move(tmp_path: Path) -> None:
    with chromium() as browser:
        checked = 0
        counted: set[str] = set()  # the kinds of points the games reached
        for seed, p1, p2 in GAMES:
            agents = (make_agent(p1), make_agent(p2))
            path = tmp_path / f"game{seed}.jsonl"
            deal = new_game(seed).deal
            writer = TranscriptWriter.for_match(path, seed, deal, agents)
            writer.finish(play_match(*agents, seed=seed, deal=deal, on_move=writer.record).result)
            t = read(path)
            states = [initial_state(t), *(step.after for step in replay(t))]
            expected = [[s.score(0)["TOTAL"], s.score(1)["TOTAL"]] for s in states]
            counted |= {k for s in states for i in (0, 1) for k, v in s.score(i).items() if v}
            page_path = tmp_path / f"game{seed}.html"
            page_path.write_text(render(t))
            page, errors = open_page(browser, page_path.as_uri())
            shown = page.evaluate(SHOWN_AT_EVERY_FRAME)
            assert shown == expected, next((k, a, b) for k, (a, b)
                                           in enumerate(zip(shown, expected, strict=True))
                                           if a != b)
            assert not errors, errors
            checked += len(states)
            page.close()
    assert checked > 250
    assert counted >= {"CIVILIAN_BUILDING", "SCIENTIFIC_BUILDING", "COMMERCIAL_BUILDING", "GUILD",
                       "MILITARY_BUILDING", "WONDER", "MONEY", "PROGRESS_TOKEN"}, counted


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_the_play_page_shows_the_engine_s_points_at_every_turn(tmp_path: Path, db: str) -> None:
    """A person truly player 1 (whose page calls it player 2) plays a whole game by clicking;
    at each of its turns the points shown are the engine's score of the position, replayed
    from the game's transcript so far."""
    checked = 0

    def check(page: Any, ply: int) -> None:
        nonlocal checked
        page.wait_for_function(f"() => document.body.dataset.pointsPly === '{ply}'")
        shown = page.evaluate(SHOWN)
        part = tmp_path / "partial.jsonl"
        part.write_text(httpx.get(f"{url}/games/{code}/transcript?partial=true", timeout=30,
                                  headers={"Authorization": f"Bearer {OPERATOR}"}).text)
        t = read(part)
        state = [initial_state(t), *(step.after for step in replay(t))][ply]
        assert shown == [state.score(1)["TOTAL"], state.score(0)["TOTAL"]], (ply, shown)
        checked += 1

    with served(db, admin_token=OPERATOR) as (url, _lines), chromium() as browser:
        r = httpx.post(url + "/games", json={"player1": "external", "player2": "rule", "seed": 4},
                       timeout=30)
        code, token = r.json()["code"], r.json()["tokens"]["1"]
        page, errors = open_page(browser, f"{url}/games/{code}/play#token={token}")
        play_by_clicking(page, random.Random(4), Counter(), check)
        info = httpx.get(f"{url}/games/{code}/info", timeout=30).json()
        assert page.evaluate(SHOWN) == [info["points"]["2"]["TOTAL"], info["points"]["1"]["TOTAL"]]
        assert not errors, errors
    assert checked > 20
