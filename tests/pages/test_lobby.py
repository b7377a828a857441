"""The lobby in Chromium: a game created from its form opens the play page with the seat's token
in the fragment, and the game is listed to watch live; a game between two agents opens as a
spectator's page; an operator's agent asks for the operator's token, which goes in a header
(never in an address or a log line)."""

from __future__ import annotations

import pytest
from helpers.browser import chromium, open_page, served


def test_the_lobby_starts_a_game_and_lists_it(db: str) -> None:
    with served(db) as (url, _), chromium() as browser:
        page, errors = open_page(browser, url + "/")
        page.wait_for_function("() => document.querySelectorAll('#agent option').length > 3")
        page.select_option("#agent", "random")
        page.select_option("#seat", "2")
        page.fill("#seed", "4")
        page.click("#go")
        page.wait_for_url("**/play#token=*")
        page.wait_for_function("() => document.body.dataset.ply !== undefined")
        code = page.url.split("/games/")[1].split("/")[0]
        assert "random (player 1)" in page.inner_text("#title")
        assert "Player 2 (you)" in page.inner_text("#title")
        page.goto(url + "/")
        page.wait_for_function(
            f"() => document.querySelector('#games').innerText.includes('{code}')")
        link = page.locator("#games a").first
        assert link.inner_text() == "watch live" and link.get_attribute("href").endswith(
            f"/games/{code}/play")
        link.click()
        page.wait_for_function("() => document.body.dataset.ply !== undefined")
        assert "Spectating" in page.inner_text("#actions")
        assert page.locator("[data-move]").count() == 0
        assert not errors, errors


def test_the_lobby_starts_a_game_between_two_agents_to_watch(db: str) -> None:
    with served(db) as (url, _), chromium() as browser:
        page, errors = open_page(browser, url + "/")
        page.wait_for_function("() => document.querySelectorAll('#agent option').length > 3")
        assert page.locator("#firstbox").is_hidden()
        page.select_option("#seat", "watch")
        assert page.locator("#firstbox").is_visible()
        page.select_option("#agent1", "rule")
        page.select_option("#agent", "random")
        page.fill("#seed", "9")
        page.click("#go")
        page.wait_for_url("**/play")
        assert "#" not in page.url  # no seat, no token
        page.wait_for_function("() => document.body.hasAttribute('data-game-over')")
        assert page.evaluate("document.body.dataset.winner") in ("1", "2", "draw")
        assert "rule-based (player 1) vs random (player 2)" in page.inner_text("#title")
        assert page.locator("[data-move]").count() == 0
        assert not errors, errors


def test_an_operator_s_agent_needs_the_operator_s_token(
        db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    admin = "operator-secret-T0ken"
    monkeypatch.setenv("DUEL_COMPAT_API_KEY", "sk-fake")
    agents = {"gpt": "llm:compat:m@http://127.0.0.1:9/v1,transport_retries=0"}
    with served(db, agents, admin_token=admin) as (url, lines), chromium() as browser:
        page, errors = open_page(browser, url + "/")
        page.wait_for_function("() => document.querySelectorAll('#agent option').length > 3")
        page.select_option("#agent", "gpt")
        assert page.locator("#adminbox").is_visible()
        assert page.locator("#params").is_disabled()
        page.click("#go")
        page.wait_for_function("() => document.querySelector('#msg').innerText.includes('401')")
        assert "operator" in page.inner_text("#msg")
        page.fill("#admin", admin)
        page.click("#go")
        page.wait_for_url("**/play#token=*")
        page.wait_for_function("() => document.body.dataset.ply !== undefined")
        assert "gpt (player 2)" in page.inner_text("#title")
        errors = [e for e in errors if "401" not in e]  # the refused creation, as expected
        assert not errors, errors
    assert not [line for line in lines.lines if admin in line]
