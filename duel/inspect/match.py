"""`inspect eval duel/match`: the evaluated model plays whole games against an opponent, the
same seat-swapped deals `duel tournament` plays (duel.runs.schedule), one game a sample.

The model plays through duel's text environment (duel.envs.TextEnv): the LLM seat's prompt,
harness, re-asks and fallback, every game a transcript by the one writer. The opponent is a duel
agent spec, or with ``-T opponent=role`` Inspect's model role ``opponent`` (``--model-role
opponent=M2``) playing the other seat through the same prompt writer. The score is the engine's:
the transcript is replayed and its result verified (duel.transcripts.verified_result).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio.to_thread
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from duel.agents.base import Agent
from duel.engine import Seat as EngineSeat
from duel.envs import TextEnv
from duel.envs.seat import framework_seat
from duel.envs.text import Observation
from duel.errors import DuelError
from duel.inspect import params as P
from duel.inspect.bridge import RoleSeat, ask
from duel.inspect.fail import refused
from duel.inspect.tools import GameSeat
from duel.runs.schedule import seat_swapped
from duel.stats import wilson

KEYS = ("points", "win", "first_try_legal", "fallbacks", "loss", "finished")


class RoleEnv(TextEnv):
    """The text environment whose opponent is Inspect's opponent role, as a framework seat."""

    def __init__(self, opponent_model: Model, **kwargs: Any) -> None:
        super().__init__(opponent="random", **kwargs)  # replaced by the role's seat below
        self.opponent_model = opponent_model

    def _new_opponent(self) -> Agent:
        s = self.settings
        seat = framework_seat(model=str(self.opponent_model), prompt=s["prompt"],
                              harness=s["harness"], max_attempts=s["max_attempts"],
                              fallback=s["fallback"])
        return RoleSeat(seat, self.opponent_model)


def samples(p: P.MatchParams) -> list[Sample]:
    """The tournament's schedule from the model's side: game i on seed seed + i // 2, the model
    player 1 in the even games and player 2 in the odd ones."""
    out = []
    for i, (seed, _, _) in enumerate(seat_swapped("model", p.opponent, p.games, p.seed)):
        seat = 1 if i % 2 == 0 else 2
        out.append(Sample(id=f"game{i:04d}", input=f"7 Wonders Duel, deal {seed}, the model "
                          f"as player {seat} against {p.opponent}",
                          metadata={"index": i, "seed": seed, "seat": seat}))
    return out


@task
def match(opponent: str = "mcts:iterations=1000", games: int = 2, seed: int = 0,
          prompt: str = "baseline", harness: str = "", max_attempts: int = 3,
          fallback: str = "random", quality: int = P.QUALITY_ITERATIONS,
          transcripts: str = "", tools: str = "off", **unknown: Any) -> Task:
    """Whole games of 7 Wonders Duel against `opponent` (a duel agent spec, or `role` for the
    opponent model role), seat-swapped on games/2 deals from `seed`, scored by the engine."""
    with refused("duel/match"):
        P.refuse_unknown(unknown)
        seat = P.Seat.parse(prompt, harness, max_attempts, fallback, tools)
        p = P.MatchParams.parse(opponent, games, seed, quality, transcripts or None)
    # Absolute: the score's metadata names each transcript wherever the log is read later.
    folder = (p.transcripts or Path("transcripts") / f"inspect-{time.strftime('%Y%m%dT%H%M%S')}"
              ).resolve()
    return Task(dataset=MemoryDataset(samples(p), name="duel-match"),
                solver=play(p, seat, folder), scorer=game(),
                metadata={"opponent": p.opponent, "quality_iterations": p.quality,
                          "tools": seat.tools, "transcripts": str(folder)})


@solver
def play(p: P.MatchParams, seat: P.Seat, folder: Path) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        md = state.metadata
        kwargs: dict[str, Any] = dict(
            seat=md["seat"], prompt=seat.prompt, harness=seat.harness,
            max_attempts=seat.max_attempts, fallback=seat.fallback, model=str(model),
            reward="outcome+quality" if p.quality else "outcome",
            quality_iterations=max(1, p.quality),
            # a folder per game and epoch: `--epochs 3` plays each deal three times
            transcripts=folder / f"{state.sample_id}-epoch{state.epoch}")
        env: TextEnv = RoleEnv(get_model(role=P.OPPONENT_ROLE, required=True), **kwargs) \
            if p.by_role else TextEnv(opponent=p.opponent, **kwargs)
        steps: list[dict[str, Any]] = []
        md["tools"] = seat.tools
        tool_seat = GameSeat(env, model) if seat.tools else None

        def ended(stopped: str | None) -> None:
            md["duel"] = summary(env, steps, stopped)
            if tool_seat is not None:
                md["duel"]["look_ups"] = tool_seat.looked_up

        try:
            obs = await anyio.to_thread.run_sync(lambda: env.reset(seed=md["seed"]))
            if tool_seat is not None:
                await tool_seat.play(obs, steps)
            else:
                await replies(model, env, obs, steps)
        except LimitExceededError as exc:
            # The game stops where the limit fell: recorded, its transcript left without a
            # result (no replay claims a finish), and Inspect records the limit itself.
            ended(f"{exc.type} limit: {exc.message}")
            env.stop()
            raise
        except DuelError as exc:
            # The game cannot go on (an opponent whose server is down stopped its seat): the
            # sample fails with the reason, for `inspect eval-retry`; the game so far is
            # kept, its transcript closed without a result, and its metadata says why.
            ended(f"{type(exc).__name__}: {exc}")
            env.stop()
            raise
        ended(None)
        return state

    return solve


async def replies(model: Model, env: TextEnv, obs: Observation,
                  steps: list[dict[str, Any]]) -> None:
    """The game in text (tools=off): each reply to the env's prompt is its step."""
    while True:
        text, used = await ask(model, obs.chat)
        result = await anyio.to_thread.run_sync(env.step, text, used)
        if "move" in result.info:  # a decision ended (a refusal is only a re-ask)
            steps.append(result.info)
        if result.done or result.observation is None:
            return
        obs = result.observation


def summary(env: TextEnv, steps: list[dict[str, Any]], stopped: str | None) -> dict[str, Any]:
    """What the scorer reads: the decisions' figures, the account, the transcript."""
    losses = [s["analysis"]["loss"] for s in steps if "analysis" in s]
    first = sum(1 for s in steps if s["attempts"] == 1 and s["legal"])
    return {"decisions": len(steps), "first_try_legal": first,
            "fallbacks": sum(1 for s in steps if s.get("fallback")),
            "losses": losses, "seat": env.seat.player if env.episodes else None,
            "account": env.account().to_json() if env.episodes else None,
            "transcript": str(env.transcript) if env.transcript else None,
            "stopped": stopped}


@scorer(metrics={k: [mean(), stderr()] for k in KEYS})
def game() -> Scorer:
    """The engine's result of the replayed transcript from the model's side (points: win 1,
    draw 1/2, loss 0, a stopped game 0), first-try legality and fallbacks per decision, and the
    analyser's mean loss per decision; per game, Wilson and bootstrap 95% intervals."""
    async def score(state: TaskState, target: Target) -> Score:
        d = state.metadata.get("duel") or {}
        return await anyio.to_thread.run_sync(lambda: judge(d))

    return score


def judge(d: dict[str, Any]) -> Score:
    from duel.stats import bootstrap_ci
    from duel.transcripts import read, verified_result

    n, losses = int(d.get("decisions", 0)), list(d.get("losses", []))
    result = None
    if d.get("transcript") and not d.get("stopped"):
        result = verified_result(read(d["transcript"]))
    seat = EngineSeat.of_index(int(d["seat"]) - 1) if d.get("seat") else None
    points = result.points(seat) if result is not None and seat is not None else 0.0
    value = {"points": points, "win": float(points == 1.0),
             "first_try_legal": d.get("first_try_legal", 0) / n if n else 0.0,
             "fallbacks": float(d.get("fallbacks", 0)),
             "loss": sum(losses) / len(losses) if losses else 0.0,
             "finished": float(result is not None)}
    meta: dict[str, Any] = {k: d.get(k) for k in ("transcript", "account", "stopped",
                                                   "decisions", "look_ups")}
    meta["result"] = result.to_json() if result is not None else None
    if n:
        meta["first_try_legal_ci95"] = list(wilson(d.get("first_try_legal", 0), n))
    if len(losses) > 1:
        meta["loss_ci95"] = list(bootstrap_ci(losses))
    outcome = "stopped: " + str(d["stopped"]) if d.get("stopped") else \
        {1.0: "win", 0.5: "draw", 0.0: "loss"}[points]
    return Score(value=value, answer=outcome, explanation=f"{outcome} as player {d.get('seat')}"
                 f", {n} decisions", metadata=meta)

