"""The board's text fits its boxes, at 1280x800, at a narrow window and at a phone's width,
after every move of a whole game against MCTS: no card or token name breaks inside a syllable
(names break only at their soft hyphens, or end in an ellipsis on one line), no card's text
leaves its card, and a covered card's text stays in the band the next row leaves visible.
Screenshots of the board (a card picked, MCTS's top moves shown) are saved under ARTIFACTS; with
DUEL_DOCS_SCREENSHOT=1 the 1280x800 one is also written to docs/play.png, the README's."""

from __future__ import annotations

import os
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from helpers.browser import ARTIFACTS, chromium, open_page, play_by_clicking, served

DOCS = Path(__file__).resolve().parents[2] / "docs" / "play.png"
SHOT_PLY = 36  # an Age II board for the screenshot

# What does not fit, as sentences (an empty list when everything does).
MISFITS = """() => {
  const bad = [];
  const box = (e) => e.getBoundingClientRect();
  const shown = (e) => { const r = box(e); return r.width > 0 && r.height > 0; };
  for (const e of document.querySelectorAll(".tile .name, .token")) {
    if (!shown(e)) continue;
    const cs = getComputedStyle(e);
    if (cs.whiteSpace === "nowrap" && cs.textOverflow === "ellipsis") continue;
    if (e.scrollWidth > e.clientWidth + 1)
      bad.push(`too wide: "${e.textContent}" (${e.scrollWidth} > ${e.clientWidth} px)`);
  }
  for (const t of document.querySelectorAll("#table .tile:not(.back)")) {
    const r = box(t);
    const foot = t.classList.contains("covered") ? r.top + r.height * 0.52 : r.bottom;
    for (const c of t.children) {
      if (c.classList.contains("pricetag") || !shown(c)) continue;
      const cr = box(c);
      if (cr.bottom > foot + 1 || cr.left < r.left - 1 || cr.right > r.right + 1)
        bad.push(`slot ${t.dataset.slot} ${t.getAttribute("aria-label")}: .${c.className} ` +
                 `"${c.textContent}" at ${cr.left.toFixed(0)}-${cr.right.toFixed(0)} x ` +
                 `${cr.top.toFixed(0)}-${cr.bottom.toFixed(0)}, the card's visible part ` +
                 `${r.left.toFixed(0)}-${r.right.toFixed(0)} x ` +
                 `${r.top.toFixed(0)}-${foot.toFixed(0)}`);
    }
  }
  return bad;
}"""


def _fits(page: Any, where: str) -> None:
    bad = page.evaluate(MISFITS)
    assert not bad, f"{where}: {bad[:5]}"


def test_the_board_s_text_fits_at_every_width(db: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with served(db) as (url, _), chromium() as browser:
        r = httpx.post(url + "/games", json={"player1": "external",
                                             "player2": "mcts:iterations=300", "seed": 7},
                       timeout=30).json()
        code = r["code"]
        desk, errors = open_page(browser, f"{url}/games/{code}/play#token={r['tokens']['1']}")
        watchers = {w: open_page(browser, f"{url}/games/{code}/play", w, h)
                    for w, h in ((900, 700), (390, 844))}
        checked = Counter[str]()

        def look(page: Any, ply: int) -> None:
            _fits(page, f"1280 px, ply {ply}")
            checked["1280"] += 1
            for width, (watcher, _) in watchers.items():
                watcher.wait_for_function(f"() => document.body.dataset.ply === '{ply}'")
                _fits(watcher, f"{width} px, ply {ply}")
                checked[str(width)] += 1
            shot = ARTIFACTS / "board-1280.png"
            if ply >= SHOT_PLY and not shot.exists() and page.evaluate(
                    "() => document.body.dataset.step === 'PLAY_CARD'"):
                card = page.locator("#table .tile.takeable").first
                card.click()  # picked: its choices and prices show
                page.wait_for_function("() => document.querySelector('#thinking')"
                                       ".innerText.includes('search:')")
                _fits(page, f"1280 px, ply {ply}, a card picked")
                page.screenshot(path=str(shot))
                for width, (watcher, _) in watchers.items():
                    watcher.screenshot(path=str(ARTIFACTS / f"board-{width}.png"),
                                       full_page=True)
                if os.environ.get("DUEL_DOCS_SCREENSHOT") == "1":
                    shutil.copyfile(shot, DOCS)
                card.click()  # put back: the game goes on as before

        for stale in ARTIFACTS.glob("board-*.png"):
            stale.unlink()
        play_by_clicking(desk, random.Random(7), Counter(), look)
        _fits(desk, "1280 px, the end")
        assert not errors, errors
        for width, (_, watcher_errors) in watchers.items():
            assert not watcher_errors, (width, watcher_errors)
    assert min(checked.values()) > 20, checked
    assert (ARTIFACTS / "board-1280.png").exists()
    print(f"\nscreenshots in {ARTIFACTS}: board-1280.png, board-900.png, board-390.png")
