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
from browser import ARTIFACTS, PILE, chromium, choose, open_page, served, wait_for_turn
from play_helpers import WAIT

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screens"
WIDTHS = {1280: 800, 900: 700, 390: 844}
OPPONENT = {1280: "mcts:iterations=30", 900: "rule", 390: "mcts:iterations=30"}
SEED = {1280: 3, 900: 5, 390: 8}

# Everything wrong with what the page shows now, as sentences (an empty list when all is well).
LOOK = """(opts) => {
  const bad = [];
  const vw = innerWidth, vh = innerHeight;
  const shown = (e) => {
    if (e.closest("[aria-hidden=true]")) return false;
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    const cs = getComputedStyle(e);
    return cs.visibility !== "hidden" && cs.display !== "none" && Number(cs.opacity) > 0;
  };
  const name = (e) => e.id ? "#" + e.id : e.tagName.toLowerCase() +
    (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\\s+/).join(".") : "") +
    (e.dataset.slot ? `[slot ${e.dataset.slot}]` : "");
  // Visible text, line by line (each text node's rectangles).
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.textContent.replace(/\\s+/g, " ").trim();
    if (!t || !n.parentElement || !shown(n.parentElement)) continue;
    if (n.parentElement.closest("script, style, details:not([open]) > :not(summary)")) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1);
    if (!rects.length) continue;
    texts.push({ t, e: n.parentElement, rects });
    const id = t.match(/\\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\\b/);
    if (id) bad.push(`identifier ${id[0]} in ${name(n.parentElement)}: "${t.slice(0, 80)}"`);
    if (/[{\\[]\\s*"[^"]*"\\s*:/.test(t)) bad.push(`raw JSON in ${name(n.parentElement)}: "${t.slice(0, 80)}"`);
  }
  // Boxes whose content does not fit (the ones made to scroll aside).
  for (const e of document.body.querySelectorAll("*")) {
    if (!shown(e) || e.closest("pre, .log, #moves, [data-scrolls], svg")) continue;
    const cs = getComputedStyle(e);
    if (cs.display.startsWith("inline") && cs.display !== "inline-block" && cs.display !== "inline-flex") continue;
    const over = e.scrollWidth > e.clientWidth + 1 ? `${e.scrollWidth} > ${e.clientWidth} px wide` :
      e.scrollHeight > e.clientHeight + 1 && cs.overflowY !== "visible" ? `${e.scrollHeight} > ${e.clientHeight} px high` : null;
    if (over && e.clientWidth > 0) bad.push(`overflows its box: ${name(e)} "${(e.innerText || "").replace(/\\s+/g, " ").slice(0, 50)}" (${over})`);
  }
  const doc = document.scrollingElement;
  if (doc.scrollWidth > vw + 1) bad.push(`the page scrolls sideways: ${doc.scrollWidth} > ${vw} px`);
  // Text on text.
  const lines = texts.flatMap((x) => x.rects.map((r) => ({ ...x, r })));
  for (let i = 0; i < lines.length; i++) for (let j = i + 1; j < lines.length; j++) {
    const a = lines[i], b = lines[j];
    if (a.e === b.e || a.e.contains(b.e) || b.e.contains(a.e)) continue;
    const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
    const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
    if (w > 1.5 && h > 1.5) bad.push(`text on text: "${a.t.slice(0, 30)}" (${name(a.e)}) and "${b.t.slice(0, 30)}" (${name(b.e)})`);
  }
  const box = (sel) => { const e = document.querySelector(sel); return e && shown(e) ? e.getBoundingClientRect() : null; };
  if (opts.fold) {  // all of the table in the window, without scrolling
    for (const [what, sel] of [["the opponent's city", "[data-city=player1]"], ["your city", "[data-city=player2]"],
        ["the structure", "#table"], ["the military track", "#military"], ["the progress tokens", "#boardtokens"],
        ["the move panel", "#actions"]]) {
      const r = box(sel);
      if (!r) bad.push(`${what} is not shown`);
      else if (r.top < -1 || r.bottom > vh + 1 || r.left < -1 || r.right > vw + 1)
        bad.push(`${what} is not all in the ${vw}x${vh} window (${r.left.toFixed(0)}-${r.right.toFixed(0)} x ${r.top.toFixed(0)}-${r.bottom.toFixed(0)})`);
    }
    if (doc.scrollTop > 0) bad.push("the page was scrolled");
  }
  if (opts.apart) {  // the structure and the choices never on top of each other
    const panel = document.querySelector("#actions");
    const pyr = document.querySelector("#table .pyramid, #table .draft");
    if (panel && ["fixed", "sticky"].includes(getComputedStyle(panel).position))
      bad.push(`the move panel is ${getComputedStyle(panel).position} over the page`);
    const a = panel && box("#actions"), b = pyr && pyr.getBoundingClientRect();
    if (a && b && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1 && Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1)
      bad.push("the move panel and the structure meet");
  }
  return bad;
}"""


def look(page: Any, width: int, where: str) -> list[str]:
    bad = page.evaluate(LOOK, {"fold": width == 1280, "apart": width == 390})
    return [f"{width} px, {where}: {b}" for b in bad]


def _shoot(page: Any, width: int, name: str, taken: set[str]) -> None:
    if name in taken:
        return
    taken.add(name)
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
            problems += look(page, width, f"ply {ply}")
            looks["turn"] += 1
            moment = _moment(page)
            offered = page.eval_on_selector_all("[data-move]", "els => els.map(e => e.dataset.move)")
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
