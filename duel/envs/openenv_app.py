"""The app openenv.yaml names (`openenv serve`, a Space, `uvicorn duel.envs.openenv_app:app`):
duel.envs.openenv's server with its settings from the environment, as a container passes them
(DUEL_OPPONENT, DUEL_SEAT, DUEL_REWARD, DUEL_MAX_SESSIONS, DUEL_IDLE_TIMEOUT); `duel openenv`
takes the same settings as flags."""

from __future__ import annotations

import os

from duel.envs.openenv import IDLE_TIMEOUT, MAX_SESSIONS, make_app

app = make_app(max_sessions=int(os.environ.get("DUEL_MAX_SESSIONS", MAX_SESSIONS)),
               idle_timeout=float(os.environ.get("DUEL_IDLE_TIMEOUT", IDLE_TIMEOUT)),
               opponent=os.environ.get("DUEL_OPPONENT", "random"),
               seat=os.environ.get("DUEL_SEAT", "alternate"),
               reward=os.environ.get("DUEL_REWARD", "outcome+legal"))
