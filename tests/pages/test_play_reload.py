"""Nothing is lost on a reload: a person plays MCTS by clicking, reloads the page mid-game, and
finds the whole move log again (every move in words, in order), the last move's details (the
search's top moves) and the board; the game then goes on from the reloaded page."""

from __future__ import annotations

import json
import random
from collections import Counter

import httpx
import pytest
from helpers.browser import PILE, choose, chromium, open_page, served, wait_for_turn
from helpers.play_helpers import WAIT

RELOAD_AT = 24  # an Age I move
LOG_LINES = "document.querySelectorAll('#log div').length"


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_a_reload_keeps_the_log_and_the_last_move(db: str) -> None:
    with served(db) as (url, _), chromium() as browser:
        r = httpx.post(url + "/games", json={"player1": "external", "player2": "mcts:iterations=30",
                                             "seed": 4}, timeout=30).json()
        page, errors = open_page(browser, f"{url}/games/{r['code']}/play#token={r['tokens']['1']}")
        rng, clicked = random.Random(4), Counter[str]()
        reloaded = False
        while wait_for_turn(page):
            ply = int(page.evaluate("document.body.dataset.ply"))
            if ply >= RELOAD_AT and not reloaded:
                page.wait_for_function(f"() => {LOG_LINES} === {ply}")
                before = page.inner_text("#log")
                page.reload()
                page.wait_for_function(f"() => document.body.dataset.ply === '{ply}'")
                page.wait_for_function(f"() => {LOG_LINES} === {ply}")
                assert page.inner_text("#log") == before
                lines = page.inner_text("#log").splitlines()
                assert [int(line.split(".")[0]) for line in lines] == list(range(1, ply + 1))
                assert "Last move" in page.inner_text("#thinking")
                assert "Search:" in page.inner_text("#thinking")  # MCTS moved last
                reloaded = True
                continue
            moves = [json.loads(m) for m in page.eval_on_selector_all(
                "[data-move]", "els => els.map(e => e.dataset.move)")]
            move = moves[choose(moves, rng, clicked)]
            if move["move"] in PILE:
                page.click(f"#table [data-slot='{move['moveData']['cardIndex']}']")
            page.locator(f"[data-move='{json.dumps(move, separators=(',', ':'))}']").first.click()
            page.wait_for_function(f"() => document.body.dataset.ply !== '{ply}'",
                                   timeout=WAIT * 1000)
        assert reloaded
        assert page.evaluate("document.body.hasAttribute('data-game-over')")
        total = int(page.evaluate("document.body.dataset.ply"))
        page.wait_for_function(f"() => {LOG_LINES} === {total}")
        assert not errors, errors
