"""`duel play --vs SPEC`: a person against an agent in the browser. A server of its own on a free
loopback port (games in play.db in the data folder, duel/datadir.py, unless `--db`), the game
created through the REST API like any client's, and the play page opened (its URL printed, for
when no browser opens).

The person is the operator here: a spec the public catalogue would refuse (an LLM, a model
file) is configured as the server's agent under a name made from it."""

from __future__ import annotations

import re
import socket
import tempfile
import threading
import time
import webbrowser
from pathlib import Path

import httpx

from duel.errors import DuelError, SpecError

READY = 60.0  # seconds for the server to start on a busy machine


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seat_name(spec: str) -> str:
    """A configured agent's name for `spec` (the catalogue's rule: a letter, then letters,
    digits, '_', '.' or '-'): its kind and model, e.g. "llm-gpt-5-mini"."""
    kind, _, rest = spec.partition(":")
    model = rest.split(",")[0].split("@")[0].rpartition(":")[2].rpartition("/")[2]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{kind}-{model}" if model else kind).strip("-")
    return ("a-" + name if not name[:1].isalpha() else name)[:40]


def opponent(spec: str) -> tuple[str, dict[str, str]]:
    """What the game's seat names, and the agents to configure for it: a spec the public
    catalogue offers as it is, anything else as an operator's agent by name."""
    from server.catalogue import Catalogue

    try:
        Catalogue().resolve(spec)
        return spec, {}
    except SpecError:
        name = seat_name(spec)
        return name, {name: spec}


def create_game(url: str, seat: str, seat_number: int, seed: int | None) -> str:
    """Creates the game through the REST API once the server answers; the play page's URL,
    with the seat's token in its fragment."""
    deadline = time.monotonic() + READY
    while True:
        try:
            if httpx.get(url + "/openapi.json", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise DuelError(f"the server did not start within {READY:g}s")
        time.sleep(0.1)
    body: dict[str, object] = {"player1": "external", "player2": seat}
    if seat_number == 2:
        body = {"player1": seat, "player2": "external"}
    if seed is not None:
        body["seed"] = seed
    r = httpx.post(url + "/games", json=body, timeout=30)
    if r.status_code != 201:
        raise DuelError(f"the game could not be created: {r.text}")
    game = r.json()
    return f"{url}/games/{game['code']}/play#token={game['tokens'][str(seat_number)]}"


def play(spec: str, seed: int | None, seat_number: int, port: int, db: str | None,
         browser: bool) -> int:
    from server.budget import check_budget
    from server.catalogue import Catalogue
    from server.connections import Server, server_config
    from server.main import create_app
    from server.settings import Limits

    seat, agents = opponent(spec.strip())
    Catalogue(agents).check()  # a typo or a missing key stops here, in one line
    check_budget(spec.strip())  # so does a search over the server's caps
    db = db or str(Path(tempfile.mkdtemp(prefix="duel-play-")) / "games.sqlite")
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    limits = Limits()
    app = create_app(db, limits=limits, agents=agents)
    server = Server(server_config(app, "127.0.0.1", port, "warning", limits), app)

    failed: list[DuelError] = []

    def start() -> None:
        try:
            page = create_game(url, seat, seat_number, seed)
        except DuelError as exc:
            failed.append(exc)
            server.should_exit = True
            return
        print(f"Play at {page}\n(the lobby is {url}/ ; Ctrl-C stops the server)", flush=True)
        if browser and not webbrowser.open(page):
            print("(no browser could be opened: open the address above)", flush=True)

    threading.Thread(target=start, daemon=True).start()
    server.run()
    if failed:
        raise failed[0]  # the CLI says it in one line and exits 2
    return 0
