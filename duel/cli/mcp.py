"""`duel mcp`: the MCP server, over stdio (what MCP clients start) or streamable HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from duel.cli.options import integer, real
from duel.errors import UsageError
from duel.util.datadir import add_option, data_dir


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("mcp", help="serve games to MCP clients (Claude Code, Claude Desktop, "
                       "IDE agents) over stdio or HTTP",
                       description="An MCP server: its tools start a game against an agent "
                       "and play it (get_state, legal_moves, explain, simulate, make_move). "
                       "MCP clients start it as `duel mcp`; docs/mcp.md has their settings.")
    p.add_argument("--http", type=integer, default=None, metavar="PORT",
                   help="serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio "
                   "(loopback only)")
    p.add_argument("--server", default=None, metavar="URL",
                   help="play seats of a duel serve server's games through its REST API: "
                   "new_game creates one there, join_game takes a seat by its token")
    p.add_argument("--transcripts", default=None, metavar="DIR",
                   help="where hosted games are written (default: transcripts/ in the data "
                   "folder); sealed, without the deal, until the game is over")
    p.add_argument("--no-transcripts", action="store_true", help="keep no transcript")
    p.add_argument("--games", default=None, metavar="DIR",
                   help="keep hosted games in DIR, so that every duel mcp process started "
                   "with it goes on with them (a client that starts one process per call, "
                   "as the MCP Inspector's CLI does); DIR holds each game's seed: keep it "
                   "from the player")
    p.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC",
                   help="offer an opponent by name (repeatable), e.g. "
                   "gpt=llm:openai:gpt-5-mini: only these can call out or spend keys; "
                   "clients name the agent, never its spec (as duel serve --agent)")
    p.add_argument("--agents", dest="agents_file", metavar="FILE",
                   help='a TOML file of agents: [agents] then name = "spec" lines')
    p.add_argument("--wait", type=real, default=120.0, metavar="SECONDS",
                   help="with --server: how long make_move waits for the opponent's answer "
                   "(default 120)")
    p.add_argument("--max-games", type=integer, default=50,
                   help="games held at once (the oldest finished ones make room)")
    add_option(p)
    p.set_defaults(func=mcp)


def mcp(args: argparse.Namespace) -> int:
    from duel.mcp.games import Games
    from duel.mcp.remote import Server
    from duel.mcp.server import run_http, run_stdio
    from server.work.catalogue import Catalogue, configured_agents

    if args.http is not None and not 0 < args.http < 65536:
        raise UsageError(f"--http takes a port from 1 to 65535, got {args.http}")
    if args.wait <= 0 or args.max_games < 1:
        raise UsageError("--wait and --max-games must be positive")
    agents = configured_agents(args.agents_file, args.agent)
    catalogue = Catalogue(agents)
    catalogue.check()  # a typo or a missing key stops the server here, not mid-game
    if args.server and agents:
        raise UsageError("--agent configures this server's own opponents; with --server the "
                         "duel server's operator offers them")
    server = Server(args.server) if args.server else None
    # The data folder, not the working directory: a client may start us anywhere (even /).
    transcripts = None if args.no_transcripts else \
        Path(args.transcripts or data_dir(args.data_dir) / "transcripts")
    games = Games(catalogue, transcripts, server, wait=args.wait, max_games=args.max_games,
                  keep=Path(args.games) if args.games else None)
    if args.http is not None:
        print(f"duel MCP server at http://127.0.0.1:{args.http}/mcp"
              + (f", games in {transcripts}" if transcripts else ""), file=sys.stderr)
        run_http(games, args.http)
    else:
        run_stdio(games)
    return 0
