"""The pages `duel serve` sends (the lobby, a game's play page, its replay viewer) carry a strict
content security policy: only their own inline script and style run, marked with a nonce that
is new in every response; nothing else (an injected script, an inline handler, eval, another
origin) does. Checked in the headers and in Chromium, where an injected script is refused
while the page itself plays on."""

from __future__ import annotations

import random
import re
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from helpers.play_helpers import play
from helpers.server_helpers import create

from duel.agents import make_agent
from duel.engine import new_game
from duel.match import play_match
from duel.transcripts import TranscriptWriter, read
from duel.viewer import render
from server.routes.docs import REDOC_STYLES

UNSAFE = ("'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "*", "http:", "https:", "data:")


def _policy(header: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            assert words[0] not in out, f"{words[0]} given twice"
            out[words[0]] = words[1:]
    return out


def _strict(r: httpx.Response, elements: frozenset[str] = frozenset({"script", "style"}),
            styles: tuple[str, ...] = ()) -> str:
    """The response's nonce, once its policy is checked strict and every script and style
    element of the page (it has `elements`) carries it."""
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), r.text
    policy = _policy(r.headers["content-security-policy"])
    assert policy["default-src"] == ["'none'"]
    [source] = policy["script-src"]
    nonce = re.fullmatch(r"'nonce-([A-Za-z0-9_-]{22,})'", source)
    assert nonce, source
    assert policy["style-src"] == [source, *styles]
    assert policy["connect-src"] == ["'self'"]
    assert policy["base-uri"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    for directive in ("script-src", "style-src", "connect-src", "default-src"):
        assert not set(policy[directive]) & set(UNSAFE), (directive, policy[directive])
    tags = re.findall(r"<(script|style)\b([^>]*)>", r.text)
    assert {t for t, _ in tags} == elements
    # Inline, or a script of this server's own (the docs pages' Swagger UI and ReDoc).
    assert all(re.fullmatch(rf'( src="/[^"]*")? nonce="{nonce.group(1)}"', attrs)
               for _, attrs in tags), tags
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["x-content-type-options"] == "nosniff"
    return nonce.group(1)


def test_every_page_has_a_strict_policy_and_a_fresh_nonce(client: TestClient) -> None:
    code, tokens = create(client, "external", "random", seed=3)
    play(client, code, tokens["1"], random.Random(3))
    for path in ("/", f"/games/{code}/play", f"/games/{code}/view"):
        first = _strict(client.get(path))  # type: ignore[arg-type]
        again = _strict(client.get(path))  # type: ignore[arg-type]
        assert first != again, f"{path}: the same nonce twice"


def test_text_in_a_page_never_gets_the_nonce(tmp_path: Path) -> None:
    """The nonce goes on the template's elements only, before any text is put in: a title (or a
    model's reply) that writes "<script>" stays text and gets no nonce."""
    agents = (make_agent("random"), make_agent("random"))
    path = tmp_path / "game.jsonl"
    deal = new_game(1).deal
    writer = TranscriptWriter.for_match(path, 1, deal, agents)
    writer.finish(play_match(*agents, seed=1, deal=deal, on_move=writer.record).result)
    page = render(read(path), title="<script>alert(1)</script><style>", nonce="abc_-123")
    assert page.count('nonce="abc_-123"') == 2  # the viewer's one <style> and one <script>
    assert page.count("<script") == 1 and page.count("<style") == 1
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;style&gt;" in page
    assert "nonce" not in render(read(path))  # a page written to a file has none


def test_an_injected_script_does_not_run_but_the_page_does(db: str) -> None:
    from helpers.browser import chromium, open_page, served, wait_for_turn

    with served(db) as (url, _), chromium() as browser:
        r = httpx.post(url + "/games", json={"player1": "external", "player2": "random",
                                             "seed": 5}, timeout=30).json()
        page, errors = open_page(browser, f"{url}/games/{r['code']}/play#token={r['tokens']['1']}")
        assert wait_for_turn(page)  # the page's own script runs: it offers the moves
        page.evaluate("""() => {
            const s = document.createElement("script");
            s.textContent = "window.injected = true";
            document.body.appendChild(s);
            const b = document.createElement("button");
            b.setAttribute("onclick", "window.injected = true");
            document.body.appendChild(b); b.click();
        }""")
        assert page.evaluate("window.injected === undefined")
        refused = [e for e in errors if "Content Security Policy" in e]
        assert len(refused) == 2, errors
        assert len(errors) == len(refused), errors  # nothing else went wrong
        page.locator("[data-move]").first.click()
        page.wait_for_function("() => document.body.dataset.ply !== '0'")


def test_the_api_docs_are_self_contained_under_the_same_policy(db: str) -> None:
    """/docs (Swagger UI) and /redoc (ReDoc) load their scripts and styles from this server,
    carry the pages' strict policy, and render in Chromium with nothing refused and no request
    to another host."""
    from helpers.browser import WAIT, chromium, served

    with served(db) as (url, _), chromium() as browser:
        for path, styles in (("/docs", ()), ("/redoc", REDOC_STYLES)):
            r = httpx.get(url + path, timeout=30)
            nonce = _strict(r, frozenset({"script"}), styles)
            assert "cdn" not in r.text.lower() and "https://" not in r.text
            assert f'nonce="{nonce}"' in r.text
        for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js"):
            assert httpx.get(f"{url}/docs/assets/{asset}", timeout=30).status_code == 200
        assert httpx.get(f"{url}/docs/assets/..%2fcore.py", timeout=30).status_code == 404
        for path, shown in (("/docs", "#operations-games-create_game_games_post"),
                            ("/redoc", '[id="operation/create_game_games_post"]')):
            requested: list[str] = []
            errors: list[str] = []
            page = browser.new_page()
            page.on("request", lambda req, seen=requested: seen.append(req.url))
            page.on("console", lambda m, seen=errors: seen.append(m.text)
                    if m.type == "error" else None)
            page.on("pageerror", lambda e, seen=errors: seen.append(str(e)))
            page.goto(url + path)
            page.wait_for_selector(shown, state="attached", timeout=WAIT * 1000)
            assert not errors, (path, errors)
            assert all(u.startswith(url) or u.startswith(("data:", "blob:"))
                       for u in requested), requested
            page.close()
