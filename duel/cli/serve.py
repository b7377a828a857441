"""`duel serve`: the REST game server, with its operator's configuration and limits."""

from __future__ import annotations

import argparse
import os

from duel.cli.options import integer, real
from duel.errors import DuelError, UsageError
from duel.util.datadir import add_option, data_dir


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from server.settings import add_arguments

    p = sub.add_parser("serve", help="run the REST game server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=integer, default=8000)
    p.add_argument("--db", default=None,
                   help="SQLite file (or sqlite:///PATH; default: duel.db in the data folder), "
                   "or postgresql://USER@HOST:PORT/DB "
                   "(several servers may share one PostgreSQL database; needs the "
                   "postgresql extra)")
    p.add_argument("--log-level", default="info",
                   choices=("critical", "error", "warning", "info", "debug", "trace"),
                   help="the server's log (uvicorn's trace level is refused: it writes every "
                   "request's headers, tokens included)")
    p.add_argument("--http", choices=("auto", "httptools", "h11"), default="auto",
                   help="the HTTP parser (auto: httptools when installed, else h11)")
    p.add_argument("--rate", type=real, default=200.0,
                   help="requests per second per client address")
    p.add_argument("--burst", type=integer, default=400)
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a Host name this server answers to (repeatable). A server bound to "
                   "a loopback address answers to localhost, 127.0.0.1 and [::1] only (421 "
                   "otherwise: DNS rebinding); elsewhere, names given here are checked")
    p.add_argument("--forwarded-allow-ips", default="", metavar="IPS",
                   help="comma-separated addresses or networks of the proxies whose "
                   "X-Forwarded-For this server trusts (default: none; '*' any peer): each "
                   "client's share is then the forwarded address's")
    p.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC",
                   help="offer an agent by name (repeatable), e.g. gpt=llm:openai:gpt-5-mini "
                   "or mybot=llm:compat:MODEL@URL; callers name it (\"player2\": \"gpt\"), "
                   "never its spec. Only these can call out, read a model file or spend the "
                   "keys in this server's environment; requests get random, rule, mcts "
                   "(capped) and the shipped dqn")
    p.add_argument("--agents", dest="agents_file", metavar="FILE",
                   help='a TOML file of agents: [agents] then name = "spec" lines (--agent '
                   "wins over the file's agent of the same name)")
    p.add_argument("--admin-token-file", metavar="FILE",
                   help="a file holding the operator's token (or set $DUEL_ADMIN_TOKEN): "
                   "games with LLM or remote seats, and /agents/move with them, need it as the "
                   "Authorization bearer, and it reads a running game's deal; without it anyone "
                   "may use every configured agent")
    p.add_argument("--admin-token", help=argparse.SUPPRESS)  # refused: argv is public (ps)
    add_arguments(p)
    add_option(p)
    p.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    from server.guard.connections import Server, server_config
    from server.guard.hosts import allowed_hosts
    from server.main import create_app
    from server.settings import from_args
    from server.store import open_store, shown
    from server.work.catalogue import Catalogue, configured_agents

    limits = from_args(args)
    if args.db is None:  # games in the data folder, never the working tree unasked
        args.db = str(data_dir(args.data_dir) / "duel.db")
    agents = configured_agents(args.agents_file, args.agent)
    admin_token = operator_token(args)
    allowed = allowed_hosts(args.host, args.allowed_host)
    proxies = args.forwarded_allow_ips.split(",")
    Catalogue(agents, admin_token).check()  # a typo or a missing key stops the server here
    if "://" in args.db and not args.db.startswith("sqlite:"):
        # So do an unknown scheme and an unreachable database (a SQLite file is made at start).
        open_store(args.db, limits.lease).close()
    app = create_app(args.db, rate=args.rate, burst=args.burst, limits=limits, agents=agents,
                     admin_token=admin_token, allowed_hosts=allowed)
    print(f"duel server on http://{args.host}:{args.port} (docs at /docs), games in "
          f"{shown(args.db)}")
    if agents:
        print(f"configured agents: {', '.join(agents)}"
              + (" (LLM and remote ones need the operator's token)" if admin_token else ""))
    Server(server_config(app, args.host, args.port, args.log_level, limits, args.http,
                         proxies), app).run()
    return 0


def operator_token(args: argparse.Namespace) -> str | None:
    """The operator's token: from `--admin-token-file` or $DUEL_ADMIN_TOKEN, never the
    command line (every user of the machine reads it there, in `ps`)."""
    from duel.io import read_bytes

    if args.admin_token is not None:
        raise UsageError("--admin-token would show the token to every user of this machine "
                         "(ps); put it in a file (--admin-token-file FILE) or in the "
                         "DUEL_ADMIN_TOKEN environment variable")
    if args.admin_token_file:
        try:
            token = read_bytes(args.admin_token_file, 4096).decode("utf-8").strip()
        except (DuelError, UnicodeDecodeError) as exc:
            raise UsageError(f"--admin-token-file: {exc}") from None
        if not token:
            raise UsageError(f"--admin-token-file: {args.admin_token_file} is empty")
        return token
    return os.environ.get("DUEL_ADMIN_TOKEN", "").strip() or None
