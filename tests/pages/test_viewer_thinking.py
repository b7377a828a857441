"""The viewer shows an LLM move's thinking beside it, in a collapsible block, as text: what a
model writes (markup included) is never run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.fake_llm_agent import registered

from duel.agents import make_agent
from duel.engine import new_game
from duel.match import play_match
from duel.transcripts import TranscriptWriter, read
from duel.viewer import render

HOSTILE = ('I should build the Baths.</pre></script><script>window.pwned = 1</script>'
           '<img src=x onerror="window.pwned = 2"> & __TITLE__ done')
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _page(tmp_path: Path) -> tuple[Path, str]:
    with registered(thinking=HOSTILE):
        agents = (make_agent("fakellm"), make_agent("random"))
        deal = new_game(4).deal
        path = tmp_path / "game.jsonl"
        writer = TranscriptWriter.for_match(path, 4, deal, agents)
        writer.finish(play_match(*agents, seed=4, deal=deal, on_move=writer.record).result)
    return path, render(read(path), title="thinking test")


def test_the_thinking_is_in_the_page_only_as_escaped_data(tmp_path: Path) -> None:
    path, page = _page(tmp_path)
    assert "window.pwned" in page  # the text is there...
    assert "<script>window.pwned" not in page and "<img src=x" not in page  # ...never as markup
    assert page.count("</script>") == 1  # the page's own script element ends once
    # the data still reads back exactly as the model wrote it, title placeholder included
    payload = page.split("const GAME = ", 1)[1].split(";\n", 1)[0]
    game = json.loads(payload)
    calls = [c for f in game["frames"] if f["record"] and "llm" in f["record"]["details"]
             for c in f["record"]["details"]["llm"]["calls"]]
    assert calls and all(c["thinking"] == HOSTILE for c in calls)
    assert all(c["reasoning_tokens"] == 300 for c in calls)
    assert "<title>thinking test</title>" in page
    assert read(path).footer is not None


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_the_viewer_shows_the_thinking_collapsed_and_never_runs_it(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    _, page_text = _page(tmp_path)
    html = tmp_path / "game.html"
    html.write_text(page_text)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(html.as_uri())
            page.keyboard.press("ArrowRight")  # ply 1: player 1's first wonder, an LLM move
            detail = page.locator("#detail")
            assert "(300 reasoning)" in detail.inner_text()
            block = detail.locator("details.thinking")
            assert block.count() == 1 and block.get_attribute("open") is None  # collapsed
            assert block.locator("summary").inner_text() == \
                f"Its reasoning ({len(HOSTILE)} characters)"
            block.locator("summary").click()
            assert block.locator("pre").inner_text() == HOSTILE
            assert "adapted temperature: not sent" in detail.inner_text()
            assert page.evaluate("window.pwned") is None
            assert page.locator("#detail img").count() == 0
            assert errors == []
        finally:
            browser.close()
