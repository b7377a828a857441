"""duel as an OpenEnv environment: the text environment served by openenv-core's own server
(``create_app``: HTTP and WebSocket ``reset``/``step``/``state``), and a client for it.

    duel openenv --port 8000 --opponent mcts:iterations=200 --max-sessions 8

    from duel.envs.openenv import DuelAction, DuelEnvClient
    with DuelEnvClient(base_url="http://127.0.0.1:8000").sync() as client:
        result = client.reset(seed=7)               # the seat's prompt
        result = client.step(DuelAction(reply='{"move": ..., "moveData": {...}}'))

Each WebSocket session is its own game (its own TextEnv, the opponent run in the server), up to
``max_sessions`` at once: one more is refused with openenv-core's CAPACITY_REACHED error, the
server staying up. A session idle past ``idle_timeout`` seconds is closed by openenv-core's reaper;
a client that speaks to it after that gets a clear error (openenv-core ends its socket). A refused
or unparsable reply is an observation (the re-ask), never an error; a step after the end, or a
seed or setting duel refuses, is an error with duel's one-line message. The observation is the
seat's prompt, view and legal moves only: never a hidden card. Needs the ``openenv`` extra.
"""

from __future__ import annotations

import json
import time
from functools import partial
from typing import Any

from fastapi import FastAPI
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import (
    Action,
    ConcurrencyConfig,
    Environment,
    Observation,
    State,
    create_app,
)
from pydantic import Field, model_validator

from duel.envs.text import Observation as TextObservation
from duel.envs.text import TextEnv
from duel.errors import DuelError

MAX_SESSIONS = 8  # games at once: each is a thread of the server's process (MCTS is CPU)
IDLE_TIMEOUT = 600.0  # seconds a session may sit unused before its game is dropped
REPLY_LIMIT = 20_000  # characters of one reply: a move is ~80; reasoning in words a few thousand


class DuelAction(Action):  # type: ignore[misc]  # openenv-core ships no type information
    """The model's reply to the current observation: its raw text (the move's JSON, or words
    around it, as the prompt asks)."""

    reply: str = Field(max_length=REPLY_LIMIT, description="the model's raw reply text")

    @model_validator(mode="before")
    @classmethod
    def _move_as_reply(cls, data: Any) -> Any:
        """The move's JSON object itself, as a client that sends the model's JSON reply as the
        action sends it (verifiers' OpenEnv taskset does), is that reply."""
        if isinstance(data, dict) and "reply" not in data and "move" in data:
            meta = data.get("metadata", {})
            move = {k: v for k, v in data.items() if k != "metadata"}
            return {"reply": json.dumps(move), "metadata": meta}
        return data


class DuelObservation(Observation):  # type: ignore[misc]
    """The seat's decision: `text` the newest user message (the turn, or the re-ask), `chat`
    the prompt as chat messages (system first), `view` the seat's JSON view, `legal` its legal
    moves as JSON, `step` the decision's kind, `info` the last step's (legality, attempts, the
    move in words, the reward's parts, the result at the end)."""

    text: str = ""
    chat: list[dict[str, Any]] = Field(default_factory=list)
    view: dict[str, Any] = Field(default_factory=dict)
    legal: list[dict[str, Any]] = Field(default_factory=list)
    step: str = ""
    info: dict[str, Any] = Field(default_factory=dict)


class DuelState(State):  # type: ignore[misc]
    """The episode as the seat may know it (TextEnv.public_state: never a hidden card)."""

    seed: int | None = None
    seat: int | None = None
    ply: int = 0
    done: bool = True
    result: dict[str, Any] | None = None


class SessionExpiredError(DuelError):
    """A session used after openenv-core's reaper closed it for idling."""


class DuelEnvironment(Environment):  # type: ignore[misc]
    """One session's game: a TextEnv with the server's settings (TextEnv's keywords)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session has its own TextEnv: nothing is shared

    def __init__(self, **settings: Any) -> None:
        super().__init__()
        self._env = TextEnv(**settings)
        self._closed_at: float | None = None
        self._episode_id: str | None = None
        self._steps = 0

    def reset(self, seed: int | None = None, episode_id: str | None = None,
              **kwargs: Any) -> DuelObservation:
        self._check_open()
        obs = self._env.reset(seed=seed)
        self._episode_id, self._steps = episode_id, 0
        return _observation(obs, 0.0, False, {})

    def step(self, action: DuelAction, timeout_s: float | None = None,
             **kwargs: Any) -> DuelObservation:
        self._check_open()
        result = self._env.step(action.reply)
        self._steps += 1
        return _observation(result.observation, result.reward, result.done, result.info)

    @property
    def state(self) -> DuelState:
        public = self._env.public_state()
        return DuelState(episode_id=self._episode_id, step_count=self._steps,
                         seed=public.get("seed"), seat=public.get("seat"),
                         ply=public.get("ply", 0), done=public["done"],
                         result=public.get("result"))

    def close(self) -> None:
        self._closed_at = time.time()

    def _check_open(self) -> None:
        if self._closed_at is not None:
            raise SessionExpiredError("this session was closed (idle past the server's "
                                      "timeout, or ended): connect again for a new one")


def _observation(obs: TextObservation | None, reward: float, done: bool,
                 info: dict[str, Any]) -> DuelObservation:
    if obs is None:  # the game is over: the result is in info
        return DuelObservation(reward=reward, done=done, info=info)
    return DuelObservation(text=obs.text, chat=obs.chat, view=obs.view, legal=obs.legal,
                           step=obs.step, reward=reward, done=done, info=info)


def make_app(max_sessions: int = MAX_SESSIONS, idle_timeout: float | None = IDLE_TIMEOUT,
             **settings: Any) -> FastAPI:
    """openenv-core's app over DuelEnvironment; TextEnv's `settings` (opponent, seat, reward,
    ...) are checked here, so a bad spec stops the server before it listens (SpecError)."""
    DuelEnvironment(**settings)
    config = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=idle_timeout)
    app: FastAPI = create_app(partial(DuelEnvironment, **settings), DuelAction, DuelObservation,
                              env_name="duel", concurrency_config=config)
    return app


class DuelEnvClient(EnvClient):  # type: ignore[misc]
    """openenv-core's WebSocket client for a duel server: `reset(seed=...)`, `step(DuelAction)`,
    `state()`; `.sync()` for a synchronous one."""

    def _step_payload(self, action: DuelAction) -> dict[str, Any]:
        return {"reply": action.reply}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult:
        obs = DuelObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                              done=bool(payload.get("done", False)))
        return StepResult(observation=obs, reward=payload.get("reward"), done=obs.done)

    def _parse_state(self, payload: dict[str, Any]) -> DuelState:
        return DuelState(**payload)
