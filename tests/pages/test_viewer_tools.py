"""The viewer shows a tools=on move's tool calls (Debian's Chromium through Playwright)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.fake_llm_server import FakeLLMServer
from helpers.fake_tool_models import OpenAIToolModel

from duel.agents import make_agent
from duel.engine import new_game
from duel.match import play_match
from duel.transcripts import TranscriptWriter, read
from duel.viewer import render

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_the_viewer_lists_each_tool_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(OpenAIToolModel("illegal")) as srv:
        llm = make_agent(f"llm:openai:gpt-4o-mini,base_url={srv.url}/v1,api=chat,tools=on")
        opp = make_agent("rule")
        deal = new_game(4).deal
        path = tmp_path / "game.jsonl"
        writer = TranscriptWriter.for_match(path, 4, deal, (llm, opp))
        writer.finish(play_match(llm, opp, seed=4, deal=deal, on_move=writer.record).result)
    page_path = tmp_path / "game.html"
    page_path.write_text(render(read(path), title="tools"))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri())
            page.keyboard.press("ArrowRight")  # player 1's first move: the LLM's
            detail = page.inner_text("#detail")
            assert "Attempt 1: looked something up" in detail
            assert "get_state() →" in detail and 'legal_moves({"why_not":true}) →' in detail
            assert "make_move(" in detail and "refused: that move is not legal" in detail
            assert "Tools: 4 of 8 look-ups used" in detail
            assert errors == []
        finally:
            browser.close()
