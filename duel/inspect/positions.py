"""`inspect eval duel/positions`: the evaluated model answers a position suite's decisions, one
a sample, scored by the analyser's values stored in the suite (duel.grading.positions.suite).

Each position is asked as `duel grade --positions` asks it: the LLM seat's prompt for the
position's view and legal moves, its re-asks and fallback, the fallback's generator seeded from
the position alone (duel.grading.positions.grade.position_seed). So a model that answers alike
gives the same moves and the same losses under both (tests/inspect_tasks/test_positions.py).
"""

from __future__ import annotations

import random
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from duel.agents.tools.toolset import OneTurn
from duel.engine import Move
from duel.envs.seat import Decider, framework_seat
from duel.errors import SpecError
from duel.grading.positions.grade import position_seed
from duel.grading.positions.suite import Position, Suite, load
from duel.inspect import params as P
from duel.inspect.bridge import ask
from duel.inspect.fail import refused
from duel.inspect.tools import Judged, ToolSeat
from duel.prompts.harness import Harness

KEYS = ("loss", "best", "first_try_legal", "fallback")


@task
def positions(suite: str = "", prompt: str = "baseline", harness: str = "",
              max_attempts: int = 3, fallback: str = "random", tools: str = "off",
              **unknown: Any) -> Task:
    """A position suite's decisions (`suite`: a `duel positions extract` file; default: the
    small suite shipped with duel), each scored by its loss: the analyser's value of the best
    move minus the chosen one's."""
    with refused("duel/positions"):
        P.refuse_unknown(unknown)
        seat = P.Seat.parse(prompt, harness, max_attempts, fallback, tools)
        needs = Harness.from_options(seat.harness).needs_game()
        if needs:
            raise SpecError(f"{', '.join(needs)} need the game's earlier turns, which a "
                            "position does not hold under Inspect: play duel/match")
        path = suite or str(P.default_suite())
        found = load(path)
    return Task(dataset=MemoryDataset(samples(found), name="duel-positions"),
                solver=answer(found, seat), scorer=loss(found),
                metadata={"suite": path, "positions": len(found.positions)})


def samples(suite: Suite) -> list[Sample]:
    return [Sample(id=p.id, input=f"7 Wonders Duel position {p.id} ({p.kind}, Age {p.age})",
                   metadata={"kind": p.kind, "age": p.age, "source": p.source})
            for p in suite.positions]


@solver
def answer(suite: Suite, seat: P.Seat) -> Solver:
    by_id = suite.by_id()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        pos = by_id[str(state.sample_id)]
        agent = framework_seat(model=str(model), prompt=seat.prompt, harness=seat.harness,
                               max_attempts=seat.max_attempts, fallback=seat.fallback)
        decider = Decider(agent, pos.view, list(pos.legal),
                          random.Random(position_seed(pos.id)))
        looked_up = None
        if seat.tools:
            tools = ToolSeat(model, OneTurn(pos.view))
            await tools.decide(decider.prompt.chat(), lambda text, used: judged(decider, text,
                                                                                used))
            looked_up = tools.looked_up
        while decider.decision is None:
            text, used = await ask(model, decider.prompt.chat())
            decider.reply(text, used)
        d = decider.decision
        llm = d.details.get("llm", {})
        state.metadata["duel"] = {"move": d.move.to_json(), "forfeit": d.forfeit,
                                  "attempts": decider.attempts,
                                  "first_try_legal": decider.attempts == 1
                                  and not llm.get("fallback"),
                                  "fallback": llm.get("fallback")}
        if looked_up is not None:
            state.metadata["duel"]["look_ups"] = looked_up
        return state

    return solve


async def judged(decider: Decider, text: str, used: dict[str, Any]) -> Judged:
    """A tools=on answer judged by the position's decision: over, or its re-ask."""
    decision = decider.reply(text, used)
    if decision is not None:
        return Judged(True, played=str(decision.move))
    return Judged(False, reask=decider.prompt.text)


@scorer(metrics={k: [mean(), stderr()] for k in KEYS})
def loss(suite: Suite) -> Scorer:
    """The chosen move's loss (0 to 1; a resignation loses the best move's value), whether it
    was the analyser's best, first-try legality and whether the fallback chose."""
    by_id = suite.by_id()

    async def score(state: TaskState, target: Target) -> Score:
        return judge(by_id[str(state.sample_id)], state.metadata.get("duel") or {})

    return score


def judge(pos: Position, d: dict[str, Any]) -> Score:
    if "move" not in d:  # never answered (a limit fell first): the worst answer
        return Score(value={"loss": pos.best.value, "best": 0.0, "first_try_legal": 0.0,
                            "fallback": 0.0}, answer=None, explanation="no answer")
    move = Move.from_json(d["move"])
    lost = pos.loss(move, forfeit=bool(d["forfeit"]))
    chosen = 0.0 if d["forfeit"] else pos.value(move)
    return Score(value={"loss": lost, "best": float(move == pos.best.move and not d["forfeit"]),
                        "first_try_legal": float(bool(d["first_try_legal"])),
                        "fallback": float(bool(d["fallback"]))},
                 answer=str(move), explanation=f"{move}: value {chosen:.3f}, best "
                 f"{pos.best.move} {pos.best.value:.3f}, loss {lost:.3f}",
                 metadata={"move": d["move"], "value": chosen, "best": pos.best.move.to_json(),
                           "best_value": pos.best.value, "gap": pos.gap,
                           "attempts": d["attempts"], "fallback": d["fallback"]})
