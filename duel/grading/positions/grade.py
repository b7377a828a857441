"""``duel grade --positions SUITE``: prompt variants answer the same positions, scored by loss.

Every variant (``baseline`` and ``null`` always among them, as in game grading) is asked every
position of the suite, through the LLM player a game uses: the variant's agent
(duel.agents.llm.agent.LLMAgent) gets the position's view and legal moves through its ``choose``,
with the same re-asks, transport retries and fallback (a fallback move is scored like any other
and counted as a fallback; a ``forfeit`` fallback is scored as a resignation, worth 0). Its
generator is seeded from the position alone, so a random fallback draws alike for every variant.

Each answer is one file, ``DIR/answers/VARIANT/ID.json`` (the move, the LLM's calls, the model
spec and the prompt's hash), written when it comes back: a run resumes from the folder, asking
only what has no answer yet; a file of another model or another prompt text is refused (grade
into another ``--out``). ``DIR/positions.json`` names the suite (by SHA-256): one folder grades one
suite. ``--budget-usd`` works as in game grading (duel.runs.budget), an answer standing for a game:
no answer starts once the money spent plus what is in flight plus its expected cost would pass
the budget. Positions are asked in the suite's order, every variant at each, so a run cut short
leaves pairs.

The report (``report.md``, ``report.csv``, PNG plots drawn as game grading draws its own) gives,
per variant: mean loss with a 95% bootstrap CI over positions, the share of answers that were the
analyser's best move, the blunder rate, first-try legality and legality after retries with Wilson
95% CIs, attempts, fallbacks, tokens, cost, latency per call, tool calls and seconds per answer,
and the paired difference from the baseline over the positions both answered: per position the
variant's loss minus the baseline's, with a paired bootstrap CI and a sign-flip permutation
p-value.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from duel.agents.base import Agent
from duel.agents.spec import make_agent
from duel.analysis.sidecar import file_hash
from duel.engine import IllegalMoveError, Move
from duel.errors import DuelError, InvalidStateError, SpecError, UsageError
from duel.grading.plan import RunOutcome, prompt_hash, variant_names, variant_spec
from duel.grading.variants import GradeVariant
from duel.runs.budget import Budget, GameCost
from duel.runs.campaign import Campaign
from duel.runs.campaign import run as campaign_run
from duel.runs.dryrun import DryRun
from duel.util.files import atomic_write

from .past import Pasts
from .suite import Position, Suite, load

RUN_FILE: Final = "positions.json"


@dataclass(frozen=True)
class AnswerTask:
    """One answer of a position grading run: the variant asked and the position's id."""

    variant: str
    position: str

    def to_json(self) -> dict[str, str]:
        return {"variant": self.variant, "position": self.position}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> AnswerTask:
        return AnswerTask(str(obj["variant"]), str(obj["position"]))
ANSWERS: Final = "answers"


def answer_path(out: Path, variant: str, position: str) -> Path:
    return out / ANSWERS / variant / f"{position}.json"


def position_seed(position: str) -> int:
    """The generator seed of every agent asked `position` (its id is hex)."""
    return int(position, 16)


@dataclass(frozen=True)
class Answer:
    """A variant's answer to a position, in the view's labels."""

    variant: str
    position: str
    model: str  # the variant's full agent spec
    prompt_hash: str
    move: Move
    forfeit: bool
    seconds: float
    details: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": "answer", "variant": self.variant, "position": self.position,
                "model": self.model, "prompt_hash": self.prompt_hash,
                "move": self.move.to_json(), "forfeit": self.forfeit,
                "seconds": round(self.seconds, 3), "details": self.details}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Answer:
        if obj.get("type") != "answer":
            raise InvalidStateError("not an answer")
        return Answer(str(obj["variant"]), str(obj["position"]), str(obj["model"]),
                      str(obj["prompt_hash"]), Move.from_json(obj["move"]), bool(obj["forfeit"]),
                      float(obj["seconds"]), dict(obj["details"]))

    @property
    def fallback(self) -> bool:
        return bool((self.details.get("llm") or {}).get("fallback"))

    @property
    def cost(self) -> GameCost:
        return GameCost.of_moves([self.details])


def read_answer(path: Path) -> Answer | None:
    """The answer in `path`, or None if there is none or it cannot be read (asked again)."""
    if not path.exists():
        return None
    try:
        return Answer.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, DuelError):
        return None


def _kept(path: Path, model: str, variant: str) -> Answer | None:
    """The answer at `path` if it is this run's (the same model spec and prompt text); another
    run's is refused, so that a report never mixes two runs."""
    found = read_answer(path)
    if found is None:
        return None
    spec = variant_spec(model, variant).strip()
    if found.model != spec:
        raise SpecError(f"{path} is an answer of {found.model}, not of {spec}: grade into "
                        "another --out")
    now = prompt_hash(variant)
    if found.prompt_hash != now:
        raise SpecError(f"{path} was answered with prompt variant {variant} of hash "
                        f"{found.prompt_hash}, which is now {now}: grade into another --out")
    return found


def ask(agent: Agent, variant: str, position: Position, out: Path,
        past: Pasts | None = None) -> Answer:
    """Ask `agent` (the variant's) `position` and write its answer file; with `past`, the
    agent is first told the game's moves before the position (a ``history=`` variant)."""
    start = time.perf_counter()
    if past is not None:
        past.tell(agent, position)
    decision = agent.choose(position.view, list(position.legal),
                            random.Random(position_seed(position.id)))
    if decision.move not in position.legal:  # an LLM agent never returns one; another might
        raise IllegalMoveError(f"agent {agent.spec} answered {decision.move} at position "
                               f"{position.id}, which is not a legal move there")
    answer = Answer(variant, position.id, agent.spec.strip(),
                    prompt_hash(variant), decision.move, decision.forfeit,
                    time.perf_counter() - start, decision.details)
    # Whole or not at all: a kill mid-write leaves no half answer to read back.
    atomic_write(answer_path(out, variant, position.id), json.dumps(answer.to_json()) + "\n")
    return answer


def bind(folder: Path, suite_path: str | Path, suite: Suite) -> None:
    """Tie the folder to this suite: written by its first run, checked by every later one."""
    if (folder / "games").exists():
        raise UsageError(f"{folder} holds game grading: grade positions into another --out")
    record = {"suite": str(suite_path), "sha256": file_hash(suite_path),
              "positions": len(suite.positions)}
    path = folder / RUN_FILE
    if path.exists():
        try:
            before = json.loads(path.read_text())
        except ValueError:
            before = {}
        if before.get("sha256") != record["sha256"]:
            raise UsageError(f"{folder} grades another suite ({before.get('suite')}, SHA-256 "
                             f"{str(before.get('sha256'))[:12]}...): grade {suite_path} into "
                             "another --out")
        return
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record) + "\n")


def answer_tasks(suite: Suite, names: list[str]) -> list[AnswerTask]:
    """A position grading run's answers in asking order: position by position, every variant
    at each (a run cut short leaves pairs)."""
    return [AnswerTask(v, p.id) for p in suite.positions for v in names]


def run(suite_path: str | Path, variants: list[str], model: str, out: str | Path,
        jobs: int = 4, progress: bool = True, budget_usd: float | None = None
        ) -> tuple[Suite, RunOutcome]:
    """Ask every variant every position of the suite (see the module docstring); the suite and
    how the run ended."""
    names = variant_names(variants)
    for name in names:
        own = [k for k in GradeVariant.parse(name).harness.needs_game() if k != "history"]
        if own:
            raise UsageError(f"variant {name!r}: {', '.join(own)} need the seat's own earlier "
                             "turns, which a position suite does not hold: grade it on games "
                             "(without --positions)")
    suite = load(suite_path)
    agents: dict[str, Agent] = {}
    for name in names:
        agents[name] = make_agent(variant_spec(model, name))
    folder = Path(out)
    bind(folder, suite_path, suite)
    budget = Budget(budget_usd, str(folder), unit="answer")
    budget.check_agents(agents.values())
    by_id = suite.by_id()
    tasks = answer_tasks(suite, names)
    earlier = {}
    for task in tasks:
        found = _kept(answer_path(folder, task.variant, task.position), model, task.variant)
        if found is not None:
            earlier[task] = found.cost
    # A variant that is told the game's past gets an agent of its own for each answer: the
    # past of one position must not follow another's into its memory.
    told = {n for n in names if GradeVariant.parse(n).harness.needs_game()}
    pasts = Pasts(suite_path)
    for task in tasks:  # every game the run needs is there and agrees, before any money goes
        if task.variant in told and task not in earlier:
            pasts.of(by_id[task.position])

    def args(t: AnswerTask) -> tuple[Agent, str, Position, Path, Pasts | None]:
        if t.variant in told:
            return make_agent(variant_spec(model, t.variant)), t.variant, by_id[t.position], \
                folder, pasts
        return agents[t.variant], t.variant, by_id[t.position], folder, None

    campaign: Campaign[AnswerTask, Answer] = Campaign(
        ask, args, lambda t, answer: answer.cost, group=lambda t: t.variant, unit="answer")
    notes = campaign_run(campaign, tasks, earlier, budget, jobs, progress)
    return suite, RunOutcome(notes)


def dry_run(suite_path: str | Path, variants: list[str], model: str, out: str | Path,
            jobs: int = 4, budget_usd: float | None = None, probe: int = 0) -> DryRun:
    """What `run` would ask (the answers kept in `out` left out) and its projected cost, with
    nothing asked and nothing written (duel.runs.dryrun): the suite's own positions are the
    prompts counted."""
    from duel.runs.dryrun import project

    names = variant_names(variants)
    suite = load(suite_path)
    specs = {name: variant_spec(model, name) for name in names}
    tasks = answer_tasks(suite, names)
    todo = [t for t in tasks
            if _kept(answer_path(Path(out), t.variant, t.position), model, t.variant) is None]
    asks = {specs[n]: sum(1 for t in todo if t.variant == n) for n in names}
    done = len(tasks) - len(todo)
    schedule = (f"{len(names)} variants ({', '.join(names)}) x {len(suite.positions)} "
                f"positions of {suite_path}"
                + (f"; {done} answers found in {out}, not counted" if done else ""))
    sample = [(p.view, list(p.legal), None) for p in suite.positions]
    found = project("duel grade --positions", len(todo), schedule, asks, 0, jobs,
                    sample=sample, unit="answer", probe=probe)
    found.budget_usd = budget_usd
    return found


def answers(out: str | Path, suite: Suite) -> list[Answer]:
    """Every readable answer in the folder to a position of `suite`, in the suite's order."""
    folder = Path(out) / ANSWERS
    found = []
    for variant in sorted(p.name for p in folder.iterdir() if p.is_dir()) \
            if folder.exists() else []:
        for pos in suite.positions:
            answer = read_answer(answer_path(Path(out), variant, pos.id))
            if answer is not None and answer.move in pos.legal:
                found.append(answer)
    return found

