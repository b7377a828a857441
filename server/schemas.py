"""Request and response bodies. States and moves are the rules prompt's JSON, checked against the
published schemas as well."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class GameCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player1: str = Field(description='agent spec ("rule", "mcts:time=1", "llm:...") or "external"',
                         max_length=300)
    player2: str = Field(max_length=300)
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    deal: dict[str, Any] | None = Field(default=None, description="an explicit deal")
    open_box: bool = True
    time_per_move: float | None = Field(default=None, gt=0, le=86400,
                                        description="seconds an external seat has per move")
    fallback: Literal["random", "rule", "forfeit"] = Field(
        default="random", description="what plays when an external seat runs out of time or an "
                                      "agent seat fails")


class GameCreated(BaseModel):
    code: str
    tokens: dict[str, str] = Field(description="bearer token of each external seat, shown once")
    state: dict[str, Any]


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: str = Field(max_length=64)
    moveData: dict[str, Any]
    ply: int = Field(ge=0, description="the number of moves already played")


class PricedMove(BaseModel):
    move: str
    moveData: dict[str, Any]
    price: int


class MovesOut(BaseModel):
    ply: int
    yourTurn: bool
    moves: list[PricedMove]


class MoveAccepted(BaseModel):
    ply: int
    state: dict[str, Any]


class AgentMoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agent: str = Field(max_length=300, description="agent spec")
    state: dict[str, Any] = Field(description="a state in the prompt's format")


class AgentMoveOut(BaseModel):
    move: str
    moveData: dict[str, Any]
    details: dict[str, Any]


class ErrorOut(BaseModel):
    detail: Any
