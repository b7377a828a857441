"""What the pages show, and when: while an LLM seat is thinking, neither a spectator's page nor
the person's own page, nor a spectator's event stream, holds a face-down or unseen card or
anything of the agent's reply; once its move is played, its reply shows on both pages. No
token reaches any log line."""

from __future__ import annotations

import json
import random
import threading
import zlib
from typing import Any

import httpx
import pytest
from helpers.browser import chromium, open_page, served
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply
from helpers.play_helpers import WAIT
from helpers.server_helpers import leaked_names, wait_until

from duel.engine import GameState
from duel.transcripts import Transcript, initial_state, replay
from duel.viewer.catalogue import SOFT_HYPHEN, catalogue

LLM_MOVES = 5  # the LLM seat's moves watched
# Everything a page shows: its text, and every attribute but the inline styles (tooltips,
# data-move, aria labels). Scripts' text is not shown (the page's card catalogue is the
# rulebook's, the same for every game).
SHOWN = """(() => document.body.innerText + "\\n" + [...document.querySelectorAll("body *")]
    .map(e => [...e.attributes].filter(a => a.name !== "style").map(a => a.value).join(" "))
    .join(" "))()"""

# The "Last move" panel's text (textContent: the reply is folded until a click), and whether it
# holds the reply that names `marker` or shows a move after `ply`.
LAST_MOVE_TEXT = "() => document.querySelector('#thinking').textContent"
SHOWS_REPLY_OR_LATER = """([marker, ply]) => {
    const box = document.querySelector('#thinking');
    const shown = /Last move \\((\\d+)\\)/.exec(box.querySelector('h2').textContent);
    return box.textContent.includes(marker) || (shown !== null && Number(shown[1]) > ply);
}"""


def _marker(body: dict[str, Any]) -> str:
    """What the LLM's reply to this request says: words that name the request."""
    last = body["messages"][-1]["content"]
    # (crc32, not hash(): str hashes change per process, and so would the fake's moves)
    return f"marker-{len(body['messages'])}-{len(last)}-{zlib.crc32(last.encode())}"


def _marked_reply(body: dict[str, Any]) -> Scripted:
    """A legal move, after words that name the request: the reply of each decision can be
    looked for."""
    last = body["messages"][-1]["content"]
    block = last.split("Your legal moves are:\n", 1)[1].split("\n\n")[0]
    moves = [line.split("  (costs")[0] for line in block.splitlines() if line.startswith("{")]
    marker = _marker(body)
    return openai_reply(content=f"My plan: {marker}.",
                        tool_args=random.Random(marker).choice(moves))


OPERATOR = "the-operator-of-the-privacy-test"


def _states(url: str, code: str) -> dict[int, GameState]:
    """Every position of the game so far by ply, replayed from its partial transcript, read
    as the operator (a running game's deal is the operator's alone)."""
    text = httpx.get(f"{url}/games/{code}/transcript", params={"partial": "true"},
                     headers={"Authorization": f"Bearer {OPERATOR}"}, timeout=30).text
    lines = [json.loads(x) for x in text.splitlines()]
    t = Transcript(lines[0], [x for x in lines if x["type"] == "move"], None)
    states = {0: initial_state(t)}
    for step in replay(t):
        states[step.ply] = step.after
    return states


def _named(text: str) -> str:
    """The page's text with each card named as the engine names it ("Horse Breeders" ->
    HORSE_BREEDERS), the wonders' names taken out first (The Great Lighthouse is no
    Lighthouse), so that `leaked_names` finds any card the page names."""
    names = catalogue()
    text = text.replace(SOFT_HYPHEN, "")  # tiles and tokens show names with soft hyphens
    for w in names["wonders"].values():
        text = text.replace(w["name"], " ")
    for key, c in sorted(names["cards"].items(), key=lambda kv: -len(kv[1]["name"])):
        text = text.replace(c["name"], key)
    return text


def _ply(url: str, code: str) -> int:
    return int(httpx.get(f"{url}/games/{code}/info", timeout=30).json()["ply"])


def test_nothing_hidden_shows_before_the_move(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUEL_COMPAT_API_KEY", "sk-fake")
    with FakeLLMServer(_marked_reply) as llm, chromium() as browser:
        llm.delay = 0.8  # the seat thinks long enough to be looked at
        # mode=tool: the fake answers with words beside a tool call (the page shows both);
        # a compatible server's default is json_schema, whose reply is the move alone
        agents = {"fakellm": f"llm:compat:m@{llm.url}/v1,prompt=legal-moves,mode=tool"}
        with served(db, agents, admin_token=OPERATOR) as (url, lines):
            r = httpx.post(url + "/games", json={"player1": "external", "player2": "fakellm",
                                                 "seed": 8}, timeout=30,
                           headers={"Authorization": f"Bearer {OPERATOR}"}).json()
            code, token = r["code"], r["tokens"]["1"]
            auth = {"Authorization": f"Bearer {token}"}
            events: list[str] = []
            streams: list[httpx.Response] = []

            def spectate() -> None:
                with httpx.stream("GET", f"{url}/games/{code}/events", timeout=WAIT) as s:
                    streams.append(s)
                    try:
                        events.extend(s.iter_lines())
                    except httpx.HTTPError:
                        pass  # closed by the test

            threading.Thread(target=spectate, daemon=True).start()
            watcher, watcher_errors = open_page(browser, f"{url}/games/{code}/play")
            person, person_errors = open_page(browser, f"{url}/games/{code}/play#token={token}")
            looked = 0
            rng = random.Random(8)
            while looked < LLM_MOVES:
                moves = httpx.get(f"{url}/games/{code}/moves", headers=auth, timeout=30).json()
                ply = moves["ply"]
                if moves["yourTurn"]:
                    move = rng.choice(moves["moves"])
                    httpx.post(f"{url}/games/{code}/moves", headers=auth, timeout=30,
                               json={"move": move["move"], "moveData": move["moveData"],
                                     "ply": ply}).raise_for_status()
                    continue
                wait_until(lambda: llm.in_flight > 0 or _ply(url, code) > ply,  # noqa: B023
                           WAIT, "the LLM seat's call")
                if llm.in_flight == 0:
                    continue  # it answered before we looked
                # The LLM seat is thinking: look at both pages.
                marker = _marker(llm.requests[-1]["body"])
                state = _states(url, code)[ply]
                for who, page in (("spectator", watcher), ("person", person)):
                    text = _named(page.evaluate(SHOWN))
                    assert not leaked_names(text, state), (who, leaked_names(text, state))
                    # (Unless the move was played while we looked: its details are public.)
                    assert marker not in text or _ply(url, code) > ply, who
                wait_until(lambda: _ply(url, code) > ply, WAIT, "the LLM's move")  # noqa: B023
                # Its reply shows once it is played, until a later move's replaces it: a seat
                # that plays again (a wonder's second turn) can move before a page looks.
                seen = 0
                for page in (watcher, person):
                    page.wait_for_function(SHOWS_REPLY_OR_LATER, arg=[marker, ply + 1])
                    if marker in page.evaluate(LAST_MOVE_TEXT):
                        seen += 1
                    else:  # replaced: only a later move may replace it
                        assert _ply(url, code) > ply + 1, marker
                looked += seen == 2
            assert not watcher_errors and not person_errors, watcher_errors + person_errors
            states = _states(url, code)
            # The game goes on: its streams would hold the server's shutdown.
            watcher.close()
            person.close()
            streams[0].close()
    # The spectator's stream: the public view of each ply, nothing hidden, no reply.
    ids = [int(x[3:]) for x in events if x.startswith("id:")]
    data = [x[5:] for x in events if x.startswith("data:")]
    assert len(ids) == len(data) and len(ids) > LLM_MOVES
    for ply, view in zip(ids, data, strict=True):
        assert not leaked_names(view, states[ply]), (ply, leaked_names(view, states[ply]))
        assert "marker-" not in view
    assert not [line for line in lines.lines if token in line]
