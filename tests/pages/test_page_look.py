"""How the play page looks to a person, measured in Debian's Chromium over whole games at three
widths (1280x800, 900x700, 390x844), the person's own page, checked before every move and with
a card picked:

- no visible text is an identifier (`THE_HANGING_GARDENS`, `CONSTRUCT_FROM_DISCARD`) or raw
  JSON (`{"rule": "win now"}`);
- no element's content overflows its box (scroll sizes against client sizes; only the boxes
  made to scroll, `pre`, the move log and `[data-scrolls]`, may), and the page never scrolls
  sideways;
- no text overlaps other text (the bounding boxes of their lines);
- at 1280x800 both cities, the structure, the military track, the progress tokens and the move
  panel are in the window without scrolling;
- at 390 px the structure and the move panel never cover each other (the panel is not fixed
  over the page, and their boxes do not meet).

Screenshots of the draft, mid Age I, mid Age II and the end at each width go to ARTIFACTS; with
DUEL_DOCS_SCREENSHOT=1 also to docs/screens/ (the docs' pictures)."""

from __future__ import annotations

import json
import os
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers.browser import ARTIFACTS, PILE, choose, chromium, open_page, served, wait_for_turn
from helpers.play_helpers import WAIT

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screens"
WIDTHS = {1280: 800, 900: 700, 390: 844}
OPPONENT = {1280: "mcts:iterations=30", 900: "rule", 390: "mcts:iterations=30"}
SEED = {1280: 3, 900: 5, 390: 8}

# Everything wrong with what the page shows now, as sentences (look.js beside this file).
LOOK = "\n".join(line for line in (Path(__file__).parent / "look.js").read_text().splitlines()
                 if not line.startswith("//"))


def look(page: Any, width: int, where: str, table: bool = True) -> list[str]:
    """What is wrong with `page` now; `table`: the play page's checks of where its parts are
    (the viewer has no move panel)."""
    bad = page.evaluate(LOOK, {"fold": table and width == 1280, "apart": table and width == 390})
    return [f"{width} px, {where}: {b}" for b in bad]


def _shoot(page: Any, width: int, name: str, taken: set[str]) -> None:
    if name in taken:
        return
    taken.add(name)
    page.wait_for_timeout(600)  # the card taken has landed
    path = ARTIFACTS / f"look-{name}-{width}.png"
    page.screenshot(path=str(path), full_page=width != 1280)
    if os.environ.get("DUEL_DOCS_SCREENSHOT") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / f"{name}-{width}.png")


def _moment(page: Any) -> str | None:
    """Which of the docs' moments the page shows: the draft, mid Age I, mid Age II."""
    step, age, left = page.evaluate(
        "() => [document.body.dataset.step, view.age, Object.keys(view.visiblePyramid).length]")
    if step == "WONDER_SELECTION":
        return "draft"
    if step == "PLAY_CARD" and left <= 12:
        return {1: "age1", 2: "age2"}.get(age)
    return None


def walk(browser: Any, url: str, width: int) -> tuple[list[str], Counter[str]]:
    """One whole game on the person's page at `width`; every problem seen, and how many
    looks were taken."""
    r = httpx.post(url + "/games", json={"player1": "external", "player2": OPPONENT[width],
                                         "seed": SEED[width]}, timeout=30).json()
    page, errors = open_page(browser, f"{url}/games/{r['code']}/play#token={r['tokens']['1']}",
                             width, WIDTHS[width])
    rng, clicked, looks, problems, taken = random.Random(width), Counter[str](), Counter[str](), \
        [], set[str]()
    try:
        while wait_for_turn(page):
            ply = page.evaluate("document.body.dataset.ply")
            page.wait_for_function("() => document.body.dataset.pointsPly === "
                                   "document.body.dataset.ply")
            found = look(page, width, f"ply {ply}")
            if found and not problems:  # the first problem's picture, to see it
                page.screenshot(path=str(ARTIFACTS / f"look-problem-{width}.png"))
            problems += found
            looks["turn"] += 1
            moment = _moment(page)
            offered = page.eval_on_selector_all("[data-move]",
                                                "els => els.map(e => e.dataset.move)")
            moves = [json.loads(m) for m in offered]
            move = moves[choose(moves, rng, clicked)]
            if move["move"] in PILE:
                page.click(f"#table [data-slot='{move['moveData']['cardIndex']}']")
                problems += look(page, width, f"ply {ply}, a card picked")
                looks["picked"] += 1
            if moment:
                _shoot(page, width, moment, taken)
            page.locator(f"[data-move='{json.dumps(move, separators=(',', ':'))}']").first.click()
            clicked[move["move"]] += 1
            page.wait_for_function(f"() => document.body.dataset.ply !== '{ply}'",
                                   timeout=WAIT * 1000)
        page.wait_for_function("() => document.body.dataset.pointsPly === "
                               "document.body.dataset.ply")
        problems += look(page, width, "the end")
        # The draft's last wonder of round 1 is player 1's only move: played for the person.
        if "4. Player 1 (you) takes" not in page.inner_text("#log") or \
                "(played for you: the only move)" not in page.inner_text("#log"):
            problems.append(f"{width} px: the forced move was not played for you, with a note")
        _shoot(page, width, "end", taken)
        problems += [f"{width} px: {e}" for e in errors]
    finally:
        page.close()
    return problems, looks


@pytest.mark.slow
def test_the_page_in_words_fits_at_every_width(db: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    counts: dict[int, Counter[str]] = {}
    with served(db) as (url, _), chromium() as browser:
        for width in WIDTHS:
            found, counts[width] = walk(browser, url, width)
            problems += found
    distinct = list(dict.fromkeys(p.split(": ", 1)[1] if ": " in p else p for p in problems))
    print(f"\n{len(problems)} problems ({len(distinct)} distinct) over {counts}; screenshots "
          f"in {ARTIFACTS}")
    for p in distinct[:40]:
        print("  " + p)
    assert all(c["turn"] > 20 for c in counts.values()), counts
    assert not problems, "\n".join(problems[:25])


@pytest.mark.slow
def test_the_replay_viewer_in_words_fits_at_every_width(tmp_path: Path) -> None:
    """The same checks on `duel view`'s page, frame by frame through a game of MCTS against
    the rule agent (their search statistics and reasons in the move panel)."""
    from duel.agents import make_agent
    from duel.engine import new_game
    from duel.match import play_match
    from duel.transcripts import TranscriptWriter, read
    from duel.viewer import render

    agents = make_agent("mcts:iterations=30"), make_agent("rule")
    deal = new_game(9).deal
    path = tmp_path / "game.jsonl"
    writer = TranscriptWriter.for_match(path, 9, deal, agents)
    writer.finish(play_match(*agents, seed=9, deal=deal, on_move=writer.record).result)
    page_path = tmp_path / "game.html"
    page_path.write_text(render(read(path), title="a game"))
    problems: list[str] = []
    with chromium() as browser:
        for width, height in WIDTHS.items():
            page, errors = open_page(browser, page_path.as_uri(), width, height)
            total = int(page.inner_text("#ply").split()[-1])
            for k in range(total + 1):
                problems += look(page, width, f"viewer, move {k}", table=False)
                page.keyboard.press("ArrowRight")
            problems += [f"{width} px: {e}" for e in errors]
            page.close()
    assert not problems, "\n".join(problems[:25])
