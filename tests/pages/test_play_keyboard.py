"""The play page at a phone's width, played with the keyboard alone (Tab to a card, Enter, Enter
on the choice), without a horizontal scroll; a covered card says what covers it, and a card's
tooltip has its cost and effect in words."""

from __future__ import annotations

import random
from typing import Any

import httpx
from helpers.browser import ARTIFACTS, PILE, chromium, open_page, served, wait_for_turn

from duel.engine.data import CARDS

PHONE = (390, 844)
KEYED_MOVES = 12  # moves played with the keyboard


def _no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1] + 1, f"the page scrolls sideways at {width[1]}px: {width}"


def test_phone_width_and_keyboard_only(db: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2)
    with served(db) as (url, _), chromium() as browser:
        r = httpx.post(url + "/games", json={"player1": "external", "player2": "random",
                                             "seed": 6}, timeout=30).json()
        page, errors = open_page(browser, f"{url}/games/{r['code']}/play#token="
                                 f"{r['tokens']['1']}", *PHONE)
        keyed = 0
        tabbed_to_a_card = False
        while keyed < KEYED_MOVES and wait_for_turn(page):
            _no_sideways_scroll(page)
            # Each turn starts with the focus on a first choice: Enter goes on from there.
            assert page.evaluate("document.activeElement.matches('.tile.takeable, [data-move]')")
            ply = page.evaluate("document.body.dataset.ply")
            kind = page.evaluate("JSON.parse(document.querySelector('[data-move]')"
                                 ".dataset.move).move")
            if kind in PILE:
                if not tabbed_to_a_card:  # Tab alone reaches a card of the structure
                    page.evaluate("document.activeElement && document.activeElement.blur()")
                    for _ in range(60):
                        page.keyboard.press("Tab")
                        if page.evaluate("document.activeElement.classList.contains("
                                         "'takeable')"):
                            tabbed_to_a_card = True
                            break
                    assert tabbed_to_a_card, "Tab never reached a card of the structure"
                else:
                    cards = page.locator("#table .tile.takeable")
                    cards.nth(rng.randrange(cards.count())).focus()
                page.keyboard.press("Enter")  # the card: its choices open, the first focused
                focused = page.evaluate("document.activeElement.dataset.move || ''")
                assert focused, "Enter on a card did not focus its first choice"
                if page.locator("#actions .group:not([hidden]) [data-move]").count() > 1 \
                        and rng.random() < 0.5:
                    page.keyboard.press("Tab")
                    assert page.evaluate("document.activeElement.dataset.move || ''")
            else:
                page.locator("[data-move]").first.focus()
            page.keyboard.press("Enter")
            page.wait_for_function(f"() => document.body.dataset.ply !== '{ply}'")
            keyed += 1
        page.screenshot(path=str(ARTIFACTS / "phone.png"), full_page=True)
        _no_sideways_scroll(page)
        # Escape closes a card's choices.
        if wait_for_turn(page) and page.locator("#table .tile.takeable").count():
            page.locator("#table .tile.takeable").first.focus()
            page.keyboard.press("Enter")
            assert page.locator("#actions .group:not([hidden])").count() == 1
            page.keyboard.press("Escape")
            assert page.locator("#actions .group:not([hidden])").count() == 0
        assert keyed == KEYED_MOVES and tabbed_to_a_card
        assert not errors, errors


def test_a_covered_card_says_what_covers_it(db: str) -> None:
    with served(db) as (url, _), chromium() as browser:
        r = httpx.post(url + "/games", json={"player1": "external", "player2": "random",
                                             "seed": 6}, timeout=30).json()
        page, errors = open_page(browser, f"{url}/games/{r['code']}/play#token="
                                 f"{r['tokens']['1']}")
        while wait_for_turn(page):
            if page.locator("#table .tile.blocked").count():
                break
            ply = page.evaluate("document.body.dataset.ply")
            page.evaluate("document.querySelector('[data-move]').click()")  # the contract's way
            page.wait_for_function(f"() => document.body.dataset.ply !== '{ply}'")
        blocked = page.locator("#table .tile.blocked").first
        slot = blocked.get_attribute("data-slot")
        blocked.click()
        text = page.inner_text(f"#actions .group[data-slot='{slot}']")
        assert "Cannot take it: covered by " in text, text
        assert page.locator(f"#actions .group[data-slot='{slot}'] [data-move]").count() == 0
        # A card's tooltip has its cost and effect in words.
        tip = page.locator("#table .tile.takeable").first.get_attribute("title")
        assert tip and "Cost:" in tip and "Effect:" in tip
        assert any(c.name.replace("_", " ").title().split()[0] in tip for c in CARDS)
        assert not errors, errors
