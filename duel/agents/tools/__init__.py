"""The one tool set a seat plays through: get_state, legal_moves, explain, simulate and
make_move, defined with their JSON Schemas in `toolset.py` and answered from the seat's view
only (`status.SeatStatus`). The MCP server (`duel mcp`) and the LLM seat's tool loop both use
it; a game's host supplies a `Table`."""

from duel.agents.tools.status import SeatStatus
from duel.agents.tools.toolset import (
    TOOLS,
    TOOLS_BY_NAME,
    SeatTools,
    Table,
    ToolDef,
    check_arguments,
    legal_moves_answer,
    state_answer,
)

__all__ = ["TOOLS", "TOOLS_BY_NAME", "SeatStatus", "SeatTools", "Table", "ToolDef",
           "check_arguments", "legal_moves_answer", "state_answer"]
