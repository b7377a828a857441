"""`duel mcp`: the tool set as an MCP server (the official `mcp` SDK's MCPServer, which its 2.0
made of FastMCP), over stdio or streamable HTTP on loopback.

Tools: `new_game` (and with `--server`, `join_game`), then the seat's tools of
`duel.agents.tools` with a `game` argument: `get_state`, `legal_moves`, `explain`, `simulate`,
`make_move`. Their published input schemas are the tool set's own (the move's built from the
engine's move model, each property with one plain type), and every call's raw arguments are
checked against them here, after the slips clients are known to make are repaired (an object
sent as a JSON string: `duel.agents.tools.lenient`), so a wrong type, a missing or unknown
argument, a huge one, an unknown game, a move out of turn or an illegal move is a tool error
(isError) naming what was wrong, never a crash. With `--games DIR` hosted games are kept in a
folder for the next process (`kept.py`): a client may start one per call. The rules text
is the resource `duel://rules`; the rules prompt with how to play through the tools is the
prompt `play_duel`.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from duel.agents.tools import TOOLS
from duel.errors import DuelError
from duel.prompts import get_variant

from .games import GAME_PARAM, JOIN_GAME, NEW_GAME, Games

log = logging.getLogger("duel.mcp")
RULES_URI = "duel://rules"
VARIANT = "baseline"  # the rules prompt the resource and the prompt give
WAIT_LIMIT = 600.0  # seconds get_state may wait for a server game's turn

INSTRUCTIONS = (
    "7 Wonders Duel. Call new_game (opponent, seat, seed), then on your turn read get_state "
    "and legal_moves, ask explain about a card, wonder or token and simulate about a move, "
    "and play with make_move until the answer says over. In every state you are player2. "
    "The rules are the resource duel://rules and the prompt play_duel.")

_WAIT_PARAM = {"wait": {"type": "number", "minimum": 0, "maximum": WAIT_LIMIT, "default": 0,
                        "description": "seconds to wait for your turn first (a game on a "
                                       "duel server, whose opponent may be a person)"}}


def _annotations(read_only: bool) -> ToolAnnotations:
    return ToolAnnotations(read_only_hint=read_only, destructive_hint=False,
                           idempotent_hint=read_only, open_world_hint=False)


def _placeholder() -> dict[str, Any]:  # pragma: no cover - DuelMCP.call_tool answers
    return {}


class DuelMCP(MCPServer):
    """The MCP server of one `Games`. Tool calls are answered by `call_tool` from their raw
    arguments (the SDK's own argument model is bypassed: the tool set checks them against
    the schema it publishes); the blocking work (an opponent's search, a server's answer)
    runs in a worker thread."""

    def __init__(self, games: Games) -> None:
        super().__init__("duel", title="7 Wonders Duel", instructions=INSTRUCTIONS,
                         version=_version(), log_level="WARNING")
        self.games = games
        self._answers: dict[str, Any] = {}
        self._add(NEW_GAME.name, NEW_GAME.description, NEW_GAME.schema(), False,
                  games.new_game)
        if games.server is not None:
            self._add(JOIN_GAME.name, JOIN_GAME.description, JOIN_GAME.schema(), False,
                      games.join_game)
        for tool in TOOLS:
            extra = {**GAME_PARAM, **(_WAIT_PARAM if tool.name == "get_state" else {})}
            self._add(tool.name, tool.description, tool.schema(extra, ("game",)),
                      not tool.commits, self._seat_tool(tool.name))
        self._resources()

    def _add(self, name: str, description: str, schema: dict[str, Any], read_only: bool,
             answer: Any) -> None:
        self.add_tool(_placeholder, name=name, description=description,
                      annotations=_annotations(read_only))
        tool = self._tool_manager.get_tool(name)
        assert tool is not None
        tool.parameters = schema
        self._answers[name] = answer

    def _seat_tool(self, name: str) -> Any:
        def answer(arguments: Any) -> dict[str, Any]:
            if name == "get_state" and isinstance(arguments, dict):
                arguments = dict(arguments)
                wait = arguments.pop("wait", 0)
                if type(wait) not in (int, float) or not 0 <= wait <= WAIT_LIMIT:
                    raise ToolError(f"get_state argument wait must be a number of seconds "
                                    f"from 0 to {WAIT_LIMIT:g}, got {str(wait)[:40]}")
                self.games.wait_turn(arguments, float(wait))
            return self.games.call(name, arguments)
        return answer

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> Any:
        answer = self._answers.get(name)
        if answer is None:
            return await super().call_tool(name, arguments, context)
        try:
            result = await anyio.to_thread.run_sync(answer, arguments)
        except DuelError as exc:
            raise ToolError(f"{name}: {exc}" if not str(exc).startswith(name) else str(exc)
                            ) from None
        except ToolError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must not take the server down
            log.exception("tool %s failed", name)
            raise ToolError(f"{name} failed inside duel ({type(exc).__name__}); the game is "
                            "unchanged unless its state says otherwise") from None
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(result))],
                              structured_content=result, is_error=False)

    def _resources(self) -> None:
        rules = get_variant(VARIANT).system

        @self.resource(RULES_URI, name="rules", title="The rules of 7 Wonders Duel",
                       description="The rules text given to LLM players: the game, its JSON "
                                   "state and the {move, moveData} format",
                       mime_type="text/plain")
        def rules_text() -> str:
            return rules

        @self.prompt(name="play_duel", title="Play 7 Wonders Duel",
                     description="The rules prompt, and how to play a game through this "
                                 "server's tools")
        def play_duel(opponent: str = "mcts:time=1", seat: str = "1") -> str:
            return (f"{rules}\n\n---\nPlay a game of 7 Wonders Duel through the tools of the "
                    f"duel MCP server. Start it with new_game(opponent={opponent!r}, "
                    f"seat={seat}). On each turn, read the state (get_state) and your legal "
                    "moves (legal_moves); explain tells what a card, wonder or token does and "
                    "simulate what a move would change. Play with make_move; its answer is "
                    "the state after your opponent's reply. Go on until the answer says the "
                    "game is over, then report the result.")


def _version() -> str:
    from duel import __version__

    return __version__


def build(games: Games) -> DuelMCP:
    return DuelMCP(games)


def run_stdio(games: Games) -> None:
    """Serve over standard input and output until the client closes them."""
    server = build(games)
    try:
        anyio.run(server.run_stdio_async)
    finally:
        games.close()


def run_http(games: Games, port: int, host: str = "127.0.0.1") -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp, on loopback only (Host and Origin
    headers are checked: a web page cannot reach it through DNS rebinding)."""
    server = build(games)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])
    try:
        anyio.run(lambda: server.run_streamable_http_async(host=host, port=port,
                                                           transport_security=security))
    finally:
        games.close()
