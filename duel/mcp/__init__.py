"""`duel mcp`: games played from any MCP client (Claude Code, Claude Desktop, IDE agents), through
the one tool set (`duel.agents.tools`). `games.py` holds the games (hosted here, `hosted.py`, or
seats of a `duel serve` game, `remote.py`); `server.py` is the MCP server."""
