"""The browser viewer in a real headless Chromium (Debian's package, driven by Playwright)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.scripted import ScriptedProvider

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.engine import new_game
from duel.errors import TranscriptError
from duel.match import play_match
from duel.prompts import get_variant
from duel.transcripts import TranscriptWriter, read
from duel.viewer import frames, render

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _transcript(tmp_path: Path) -> Path:
    """A game whose player 1 is an LLM that first answers nonsense, then falls back."""
    llm = LLMAgent(ScriptedProvider(["hmm, the Palace?"] * 500), get_variant("baseline"),
                   "llm:scripted", max_attempts=1, fallback="rule")
    opp = make_agent("rule")
    deal = new_game(12).deal
    path = tmp_path / "game.jsonl"
    writer = TranscriptWriter.for_match(path, 12, deal, (llm, opp))
    writer.finish(play_match(llm, opp, seed=12, deal=deal, on_move=writer.record).result)
    return path


def test_frames_follow_the_game(tmp_path: Path) -> None:
    t = read(_transcript(tmp_path))
    fs = frames(t)
    assert len(fs) == len(t.moves) + 1 and fs[0]["record"] is None
    assert fs[-1]["view"]["step"] == "GAME_END"
    assert "</script>" not in render(t).split("const GAME = ")[1].split("\n")[0]


def test_viewer_in_headless_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    path = _transcript(tmp_path)
    page_path = tmp_path / "game.html"
    page_path.write_text(render(read(path), title="viewer test"))
    total = len(read(path).moves)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri())
            assert page.inner_text("#ply") == f"move 0 of {total}"
            assert page.inner_text("#title") == "viewer test"
            # Arrow keys step forward to a mid-game position (Age I, some moves in).
            for _ in range(20):
                page.keyboard.press("ArrowRight")
            assert page.inner_text("#ply") == f"move 20 of {total}"
            assert page.locator("#table .tile.back").count() > 0  # face-down cards as backs
            assert page.locator("#table .tile:not(.covered)").count() > 0  # the ones to take
            assert "Age I ·" in page.inner_text("#status")
            assert page.locator("#military .mcell").count() == 19
            assert page.locator("#military [data-pawn]").count() == 1
            for city in ("#top", "#bottom"):
                assert page.locator(f"{city} .stat.coins .ic-coin").count() == 1
                assert page.locator(f"{city} .stat.vp .ic-vp").count() == 1
                assert page.locator(f"{city} .stat.science").count() == 1
                assert page.locator(f"{city} .wonder").count() == 4  # the draft is over
            # cities by colour: each built card is a chip of its colour
            colours = {"brown", "grey", "blue", "green", "red", "yellow", "purple"}
            chips = page.locator("#top .chip, #bottom .chip").evaluate_all(
                "els => els.map(e => e.className)")
            assert any(set(c.split()) & colours for c in chips)
            assert "Discard pile" in page.inner_text("#discard")
            assert page.locator("#moves div").count() == total + 1
            assert "20." in page.inner_text("#moves .current")
            page.click("#prev")
            assert page.inner_text("#ply") == f"move 19 of {total}"
            # Find an LLM move: its attempts show with category and raw reply.
            for _ in range(total):
                if "no move in the reply" in page.inner_text("#detail"):
                    break
                page.click("#next")
            detail = page.inner_text("#detail")
            assert "Attempt 1: no move in the reply" in detail
            # The model's reply, as written, folded: it shows on a click.
            assert "hmm, the Palace?" not in detail
            page.click("#detail details.reply summary")
            assert "hmm, the Palace?" in page.inner_text("#detail")
            assert "the fallback (rule) played" in detail
            assert "10 tokens read, 5 written" in detail
            page.keyboard.press("End")
            assert page.inner_text("#ply") == f"move {total} of {total}"
            assert "Result:" in page.inner_text("#detail")
            page.keyboard.press("Home")
            for _ in range(30):
                page.keyboard.press("ArrowRight")
            shot = tmp_path / "midgame.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.read_bytes()[:4] == b"\x89PNG" and shot.stat().st_size > 20_000
            artifacts = Path(__file__).parent / "artifacts"
            artifacts.mkdir(exist_ok=True)
            shutil.copy(shot, artifacts / "viewer-midgame.png")
            assert errors == []
        finally:
            browser.close()


@pytest.mark.parametrize("seat", [None])
def test_server_view_page_renders(tmp_path: Path, seat: None) -> None:
    import time

    from fastapi.testclient import TestClient

    from server.main import create_app

    with TestClient(create_app(str(tmp_path / "db.sqlite"))) as client:
        code = client.post("/games", json={"player1": "rule", "player2": "random",
                                           "seed": 5}).json()["code"]
        deadline = time.monotonic() + 60
        while client.get(f"/games/{code}").json()["step"] != "GAME_END":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        page = client.get(f"/games/{code}/view")
        assert page.status_code == 200 and "const GAME = " in page.text
        assert f"duel game {code}" in page.text
        assert client.get("/games/nope/view").status_code == 404


def test_a_forfeit_gets_its_own_frame_with_the_attempts(tmp_path: Path) -> None:
    llm = LLMAgent(ScriptedProvider(["I resign?"] * 5), get_variant("baseline"), "llm:scripted",
                   max_attempts=2, fallback="forfeit")
    opp = make_agent("rule")
    deal = new_game(21).deal
    path = tmp_path / "forfeit.jsonl"
    writer = TranscriptWriter.for_match(path, 21, deal, (opp, llm))
    writer.finish(play_match(opp, llm, seed=21, deal=deal, on_move=writer.record).result)
    t = read(path)
    fs = frames(t)
    assert len(fs) == len(t.moves) + 1
    last = fs[-1]
    assert last["text"] == "Player 2 forfeits" and last["view"] == fs[-2]["view"]
    assert [c["raw"] for c in last["record"]["details"]["llm"]["calls"]] == ["I resign?"] * 2
    assert "Player 2 forfeits" in render(t)


def test_a_partial_transcript_renders_and_a_tampered_one_is_refused(tmp_path: Path) -> None:
    path = _transcript(tmp_path)
    text = path.read_text().splitlines()
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join(text[:15]) + "\n")
    assert len(frames(read(partial))) == 15  # the start and 14 moves
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([text[0], *(line.replace('"price": 0', '"price": 7')
                                          for line in text[1:])]) + "\n")
    with pytest.raises(TranscriptError, match=r"ply \d+: field price is 7"):
        frames(read(bad))
