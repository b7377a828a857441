"""`duel play --vs SPEC`: a person against an agent in the browser. A server of its own on a free
loopback port (games in play.db in the data folder, duel/util/datadir.py, unless `--db`), the game
created through the REST API like any client's, and the play page opened (its URL printed, for
when no browser opens).

The person is the operator here: a spec the public catalogue would refuse (an LLM, a model
file) is configured as the server's agent under a name made from it, for the operator's token
alone: a token `duel play` makes, keeps in memory and sends itself when it creates the game,
so no other program (a web page reaching the loopback port) can seat that agent. The server
answers only to loopback host names (server/guard/hosts.py)."""

from __future__ import annotations

import argparse
import re
import secrets
import tempfile
import threading
import webbrowser
from pathlib import Path

import httpx

from duel.agents.spec import split_spec
from duel.errors import DuelError, SpecError
from duel.util.datadir import add_option, data_dir
from duel.util.net import free_port, wait_ready

READY = 60.0  # seconds for the server to start on a busy machine


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from duel.cli.options import integer, seed

    p = sub.add_parser("play", help="play against an agent in the browser (a local server on a "
                       "free loopback port)")
    p.add_argument("--vs", required=True, metavar="SPEC",
                   help="the opponent: any agent spec, e.g. mcts:time=1, rule, "
                   "llm:openai:gpt-5-mini")
    p.add_argument("--seed", type=seed, default=None, help="the deal's seed (default: random)")
    p.add_argument("--seat", type=integer, choices=(1, 2), default=1, help="your seat (default 1)")
    p.add_argument("--port", type=integer, default=0, help="default: a free one")
    p.add_argument("--db", default=None, help="SQLite file for the games (default: play.db "
                   "in the data folder)")
    add_option(p)
    p.add_argument("--no-browser", action="store_true", help="only print the page's address")
    p.set_defaults(func=lambda args: play(
        args.vs, args.seed, args.seat, args.port,
        args.db or str(data_dir(args.data_dir) / "play.db"), not args.no_browser))


def seat_name(spec: str) -> str:
    """A configured agent's name for `spec` (the catalogue's rule: a letter, then letters,
    digits, '_', '.' or '-'): its kind and model, e.g. "llm-gpt-5-mini"."""
    parts = split_spec(spec)
    kind, model = parts.kind, parts.model
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{kind}-{model}" if model else kind).strip("-")
    return ("a-" + name if not name[:1].isalpha() else name)[:40]


def opponent(spec: str) -> tuple[str, dict[str, str]]:
    """What the game's seat names, and the agents to configure for it: a spec the public
    catalogue offers as it is, anything else as an operator's agent by name."""
    from server.work.catalogue import Catalogue

    try:
        Catalogue().resolve(spec)
        return spec, {}
    except SpecError:
        name = seat_name(spec)
        return name, {name: spec}


def create_game(url: str, seat: str, seat_number: int, seed: int | None,
                operator: str | None = None) -> str:
    """Creates the game through the REST API once the server answers (as the `operator`, when
    given); the play page's URL, with the seat's token in its fragment."""
    wait_ready(url + "/openapi.json", READY)
    body: dict[str, object] = {"player1": "external", "player2": seat}
    if seat_number == 2:
        body = {"player1": seat, "player2": "external"}
    if seed is not None:
        body["seed"] = seed
    headers = {"Authorization": f"Bearer {operator}"} if operator else None
    r = httpx.post(url + "/games", json=body, headers=headers, timeout=30)
    if r.status_code != 201:
        raise DuelError(f"the game could not be created: {r.text}")
    game = r.json()
    return f"{url}/games/{game['code']}/play#token={game['tokens'][str(seat_number)]}"


def play(spec: str, seed: int | None, seat_number: int, port: int, db: str | None,
         browser: bool) -> int:
    from server.guard.connections import Server, server_config
    from server.guard.hosts import allowed_hosts
    from server.main import create_app
    from server.settings import Limits
    from server.work.catalogue import Catalogue
    from server.work.search_budget import check_budget

    seat, agents = opponent(spec.strip())
    Catalogue(agents).check()  # a typo or a missing key stops here, in one line
    check_budget(spec.strip())  # so does a search over the server's caps
    db = db or str(Path(tempfile.mkdtemp(prefix="duel-play-")) / "games.sqlite")
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    limits = Limits()
    operator = secrets.token_urlsafe(32)
    app = create_app(db, limits=limits, agents=agents, admin_token=operator,
                     allowed_hosts=allowed_hosts("127.0.0.1"), agents_all_restricted=True)
    server = Server(server_config(app, "127.0.0.1", port, "warning", limits), app)

    failed: list[DuelError] = []

    def start() -> None:
        try:
            page = create_game(url, seat, seat_number, seed, operator)
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
