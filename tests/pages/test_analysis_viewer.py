"""The viewer page with an analysis, in a real headless Chromium (Debian's package, driven by
Playwright): the curve under the board, blunders and mistakes marked, the analyser's move shown."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.recorded_games import record_game

from duel.analysis import Settings, analyse_file
from duel.analysis.summary import grade
from duel.transcripts import read
from duel.viewer import render

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_the_page_draws_the_analysis(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    path = record_game(tmp_path / "game.jsonl", "random", "rule", seed=6)
    analysis, _ = analyse_file(path, (1, 2), Settings(iterations=30), jobs=1)
    sidecar = analysis.to_json()
    graded = {d["ply"]: grade(d["loss"]) for d in sidecar["decisions"] if grade(d["loss"])}
    assert graded, "the random player makes mistakes at least"
    page_path = tmp_path / "game.html"
    page_path.write_text(render(read(path), title="analysis", analysis=sidecar))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri())
            assert page.locator("#curvebox").is_visible()
            points = page.locator("#curve polyline").get_attribute("points") or ""
            assert len(points.split()) == len(sidecar["curve"])
            assert page.locator("#curve circle").count() == len(graded)
            assert "Player 1: " in page.inner_text("#seatfigs")
            rows = page.locator("#moves div")
            for kind in ("blunder", "mistake"):
                marked = page.locator(f"#moves div.{kind}").count()
                assert marked == sum(1 for g in graded.values() if g == kind)
            ply, kind = next(iter(graded.items()))
            rows.nth(ply).click()
            assert page.inner_text("#ply").startswith(f"move {ply} of ")
            detail = page.inner_text("#detail")
            assert "Analyser's move: Player" in detail and f"({kind})" in detail
            page.locator("#curvesvg").click(position={"x": 1, "y": 60})  # the curve's start
            assert page.inner_text("#ply").startswith("move 0 of ")
            assert errors == []
            page.screenshot(path=str(tmp_path / "analysis.png"), full_page=True)
        finally:
            browser.close()
