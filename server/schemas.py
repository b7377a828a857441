"""Request and response bodies. States and moves are the rules prompt's JSON, checked against the
published schemas as well."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from duel.schemas import schema


def _published(name: str) -> dict[str, Any]:
    """The published JSON Schema `name`, to embed in the OpenAPI document (OpenAPI 3.1 speaks
    JSON Schema 2020-12; the document's own identifiers are dropped)."""
    return {k: v for k, v in schema(name).items() if k not in ("$schema", "$id")}


# Plain dicts to pydantic (the routes check them against the published schemas, to name what is
# wrong), the published schemas in the OpenAPI document: clients and schemathesis see the format.
StateJSON = Annotated[dict[str, Any], WithJsonSchema(_published("state"))]
DealJSON = Annotated[dict[str, Any], WithJsonSchema(_published("deal"))]


class GameCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player1: str = Field(description='"external", a built-in agent ("rule", "mcts:time=1") or '
                                     "an agent the operator configured, by name (GET /agents)",
                         max_length=300)
    player2: str = Field(max_length=300)
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    deal: DealJSON | None = Field(default=None, description="an explicit deal")
    open_box: bool = True
    time_per_move: float | None = Field(default=None, gt=0, le=86400,
                                        description="seconds an external seat has per move")
    fallback: Literal["random", "rule", "forfeit"] = Field(
        default="random", description="what plays when an external seat runs out of time or an "
                                      "agent seat fails")


class GameCreated(BaseModel):
    code: str
    tokens: dict[str, str] = Field(description="bearer token of each external seat, shown once")
    state: StateJSON


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: str = Field(max_length=64)
    moveData: dict[str, Any]
    ply: int = Field(ge=0, description="the number of moves already played")


class PricedMove(BaseModel):
    move: str
    moveData: dict[str, Any]
    price: int


class RefusedMove(BaseModel):
    move: str
    moveData: dict[str, Any]
    reason: str = Field(description='why it cannot be made now, e.g. "covered by 11 and 12", '
                                    '"costs 9 coins, you have 4"')
    price: int | None = Field(description="its price in coins, when it has one")


class MovesOut(BaseModel):
    ply: int
    yourTurn: bool
    moves: list[PricedMove]
    unavailable: list[RefusedMove] = Field(
        default_factory=list,
        description="on your turn, in step PLAY_CARD: the pyramid's moves you cannot make now, "
                    "with why (a covered card once, as CONSTRUCT_BUILDING)")


class GameInfo(BaseModel):
    code: str
    players: dict[str, str] = Field(description='each seat\'s agent by player number ("1", '
                                                '"2"): "external", a built-in spec or a '
                                                "configured agent's name")
    ply: int
    over: bool
    winner: int | Literal["draw"] | None = Field(description="1, 2 or \"draw\" once over")
    victory: str | None = Field(default=None, description="how it was won (military, science, "
                                                          "civilian, forfeit) once over")
    created: float
    you: int | None = Field(default=None, description="the caller's player number in true "
                                                      "labels (with a seat's token)")
    points: dict[str, dict[str, int]] | None = Field(
        default=None,
        description='each player\'s points so far by player number ("1", "2"): the engine\'s '
                    "score breakdown as it stands at `ply` (docs/rules.md §10), TOTAL included. "
                    "Public: only built cards, coins, wonders, tokens and the pawn count. Absent "
                    "for a game no longer in memory")


class GamesOut(BaseModel):
    games: list[GameInfo]


class MoveAccepted(BaseModel):
    ply: int
    state: StateJSON


class AgentMoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agent: str = Field(max_length=300, description="a built-in agent or an agent the operator "
                                                   "configured, by name (GET /agents)",
                       examples=["rule", "random", "mcts:iterations=50"])
    state: StateJSON = Field(description="a state in the prompt's format")


class AgentMoveOut(BaseModel):
    move: str
    moveData: dict[str, Any]
    details: dict[str, Any]


class ParamOut(BaseModel):
    type: str
    default: Any
    help: str
    max: float | None = Field(default=None, description="the server's cap, if it has one")


class AgentOut(BaseModel):
    name: str = Field(description="what a request names: a built-in kind, or a configured name")
    kind: str
    help: str
    params: dict[str, ParamOut] = Field(description="the parameters a request may set")
    operator_only: bool = Field(description="usable with the operator's token only")


class AgentsOut(BaseModel):
    agents: list[AgentOut]


class ErrorOut(BaseModel):
    detail: Any
