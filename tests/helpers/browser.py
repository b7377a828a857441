"""The play page in Debian's Chromium (Playwright): the app behind a real uvicorn in a thread
(access log on, every log line kept), a browser, and a person who plays a whole game by
clicking: the card first, then the choice that carries `data-move`."""

from __future__ import annotations

import json
import logging
import os
import random
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from helpers.play_helpers import WAIT
from helpers.server_helpers import wait_until

from server.main import create_app

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]
ARTIFACTS = Path(os.environ.get("DUEL_TEST_ARTIFACTS", "/tmp/duel-test-artifacts")) / "play"
# Every move kind a person must be able to click.
KINDS = ("SELECT_WONDER", "CONSTRUCT_BUILDING", "DISCARD", "CONSTRUCT_WONDER",
         "CHOOSE_PROGRESS_TOKEN", "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD", "DESTROY_CARD",
         "CONSTRUCT_FROM_DISCARD", "CHOOSE_STARTING_PLAYER")
# The wonders whose effects ask for a click of their own: taken when offered.
WANTED = ("THE_GREAT_LIBRARY", "THE_MAUSOLEUM", "THE_STATUE_OF_ZEUS", "CIRCUS_MAXIMUS")
PILE = ("CONSTRUCT_BUILDING", "DISCARD", "CONSTRUCT_WONDER")


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def served(db: str, agents: Mapping[str, str] | None = None, admin_token: str | None = None
           ) -> Iterator[tuple[str, Lines]]:
    """The app behind a real uvicorn on a free loopback port, and every line its loggers
    (the access log included) write."""
    lines = Lines()
    loggers = [logging.getLogger(n) for n in ("uvicorn.access", "uvicorn.error", "duel.server")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(lines)
    config = uvicorn.Config(create_app(db, rate=1e6, burst=10**6, agents=agents,
                                       admin_token=admin_token),
                            host="127.0.0.1", port=0, log_config=None, log_level="info",
                            access_log=True)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, WAIT, "uvicorn to start")
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}", lines
    finally:
        server.should_exit = True
        thread.join(WAIT)
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(lines)
            lg.setLevel(level)


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser: Any, url: str, width: int = 1280, height: int = 800
              ) -> tuple[Any, list[str]]:
    """A page at `url`, and the list its console errors and uncaught exceptions go to."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT * 1000)
    # The pages' policy forbids eval, which Playwright uses for an expression given to
    # wait_for_function as a string: give it a function ("() => ...") instead.
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}")
            if m.type == "error" else None)
    page.goto(url)
    return page, errors


def choose(moves: list[dict[str, Any]], rng: random.Random, clicked: Counter[str]) -> int:
    """A person who wants to see every kind of move: a kind never clicked yet (a discard, a
    choice of who starts) when one is offered; the wonders that ask for a choice of their own,
    built when possible; green cards (science pairs give progress tokens) more often than the
    rest; otherwise any legal move."""
    def pick(pred: Any) -> int | None:
        found = [i for i, m in enumerate(moves) if pred(m)]
        return rng.choice(found) if found else None

    for pred in (lambda m: not clicked[m["move"]],
                 lambda m: m["move"] == "SELECT_WONDER" and m["moveData"]["wonder"] in WANTED,
                 lambda m: m["move"] == "CONSTRUCT_WONDER" and m["moveData"]["wonder"] in WANTED,
                 lambda m: m["move"] == "CONSTRUCT_BUILDING" and rng.random() < 0.5):
        i = pick(pred)
        if i is not None:
            return i
    return rng.randrange(len(moves))


def wait_for_turn(page: Any) -> bool:
    """Waits until the page offers moves or the game is over; True if moves are offered."""
    page.wait_for_function(
        "() => document.body.hasAttribute('data-game-over') || "
        "document.querySelector('[data-move]:not([aria-disabled])') !== null",
        timeout=WAIT * 1000)
    return not page.evaluate("document.body.hasAttribute('data-game-over')")


def legal_moves(url: str, code: str, token: str) -> set[str]:
    """The seat's legal moves as the REST API gives them, in true labels (canonical JSON,
    without prices)."""
    import httpx

    auth = {"Authorization": f"Bearer {token}"}
    r = httpx.get(f"{url}/games/{code}/moves", headers=auth, timeout=30).json()
    you = httpx.get(f"{url}/games/{code}/info", headers=auth, timeout=30).json()["you"]
    return {canonical(true_labels({"move": m["move"], "moveData": m["moveData"]}, you))
            for m in r["moves"]}


def true_labels(move: dict[str, Any], you: int) -> dict[str, Any]:
    """A seat's move (in its labels: it is player 2) in true labels, as the page carries it:
    only the choice of who starts names a player."""
    if move["move"] == "CHOOSE_STARTING_PLAYER" and you == 1:
        return {"move": move["move"],
                "moveData": {"playerNumber": 3 - move["moveData"]["playerNumber"]}}
    return move


def canonical(move: Any) -> str:
    return json.dumps(move, sort_keys=True)


def play_by_clicking(page: Any, rng: random.Random, clicked: Counter[str],
                     on_ply: Any = None, legal: Any = None) -> None:
    """Plays the page's seat to the end, clicking as a person does: a pyramid move is a click
    on the card, then on the choice. `on_ply(page, ply)` is called before each move; with
    `legal()` (the seat's legal moves, see `legal_moves`), the moves the page offers are
    checked to be exactly those."""
    while wait_for_turn(page):
        ply = page.evaluate("document.body.dataset.ply")
        if on_ply is not None:
            on_ply(page, int(ply))
        offered = page.eval_on_selector_all("[data-move]", "els => els.map(e => e.dataset.move)")
        moves = [json.loads(m) for m in offered]
        assert len(set(offered)) == len(offered), "a move offered twice"
        if legal is not None:
            assert {canonical(m) for m in moves} == legal(), f"ply {ply}: not the legal moves"
        i = choose(moves, rng, clicked)
        move = moves[i]
        if move["move"] in PILE:
            page.click(f"#table [data-slot='{move['moveData']['cardIndex']}']")
        page.locator("[data-move]").nth(i).click()
        clicked[move["move"]] += 1
        page.wait_for_function(f"() => document.body.dataset.ply !== '{ply}'", timeout=WAIT * 1000)
