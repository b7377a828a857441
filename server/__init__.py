"""duel's REST game server (FastAPI): seats for external bots and agents, persistence in SQLite."""
