"""The MCP tests drive `duel mcp` with the SDK's client; the --server tests start real `duel
serve` processes (tests/helpers/live_server.py)."""

from helpers.server_fixtures import servers

__all__ = ["servers"]
