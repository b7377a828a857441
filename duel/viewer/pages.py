"""The pages `duel serve` shows people: the lobby (`/`) and the play page of a game
(`/games/{code}/play`), each one self-contained HTML document (play.html and play.js,
lobby.html and lobby.js) with the shared board (board.css, board.js) and the card catalogue
inlined: no CDN, no build step, nothing fetched
but the game's own REST endpoints. Served, their <script> and <style> elements carry the
response's nonce, the only ones its content security policy lets run."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from duel.errors import InvalidStateError
from duel.viewer.catalogue import catalogue
from duel.words.agents import agent_name


def asset(name: str) -> str:
    """A file of the pages; a page's ``<!--__HEAD__-->`` line is the head every page of duel
    opens with (head.html: the leaderboard's pages too)."""
    text = resources.files(__package__).joinpath(name).read_text()
    return text.replace("<!--__HEAD__-->\n", head()) if name.endswith(".html") else text


def head() -> str:
    """The first lines of every page: doctype, charset, viewport, no referrer, no icon."""
    return resources.files(__package__).joinpath("head.html").read_text()


def script_safe(payload: str) -> str:
    """JSON that cannot end its <script> element or open another: no "<", ">" or "&" is left
    outside a JavaScript string escape (JSON has them only inside strings)."""
    return payload.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def with_nonce(page: str, nonce: str | None) -> str:
    """The template `page` with `nonce` on its <script> and <style> elements (None: as it is,
    for a file opened from disk). Applied before any text goes in, so no text can get it."""
    if nonce is None:
        return page
    if not nonce.replace("-", "").replace("_", "").isalnum():
        raise InvalidStateError(f"a nonce is base64url, not {nonce!r}")
    return (page.replace("<script>", f'<script nonce="{nonce}">')
            .replace("<style>", f'<style nonce="{nonce}">'))


def with_board(page: str, script: str, data: dict[str, Any]) -> str:
    """`page` with the board's CSS and JS, the page's own `script` and `data` (as the script's
    PAGE) put in."""
    return (page.replace("/*__BOARD_CSS__*/", asset("board.css"))
            .replace("/*__BOARD_JS__*/", asset("board.js"))
            .replace("/*__PAGE_JS__*/", asset(script))
            .replace("/*__PAGE_DATA__*/null", script_safe(json.dumps(data))))


def play_page(code: str, nonce: str | None = None,
              specs: tuple[str, str] | None = None) -> str:
    """The page of game `code` for a seat (its token in the URL fragment) or a spectator;
    `specs`: the seats' agent specs, which it names in words (duel.words)."""
    page = with_nonce(asset("play.html"), nonce).replace("__CODE__", escape(code))
    names = {str(n): agent_name(s) for n, s in enumerate(specs or (), 1)}
    return with_board(page, "play.js", {"code": code, "catalogue": catalogue(), "names": names})


def lobby_page(nonce: str | None = None) -> str:
    return with_board(with_nonce(asset("lobby.html"), nonce), "lobby.js",
                      {"catalogue": catalogue()})
