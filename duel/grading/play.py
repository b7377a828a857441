"""Playing a grading run: every variant's games against the same opponent, kept in the folder
(resumable: a finished game of the same run is kept, one of another run refused), locally or
on Ray, within a budget, stopped per variant by the stopping rule; and the dry run's projection."""

from __future__ import annotations

import tempfile
from pathlib import Path

from duel.agents.llm.transport.limits import LimitSpec
from duel.agents.spec import make_agent
from duel.engine import new_game
from duel.errors import SpecError, TranscriptError
from duel.grading.plan import (
    GradeTask,
    RunOutcome,
    folder_plan,
    game_path,
    prompt_hash,
    schedule,
    variant_names,
    variant_spec,
)
from duel.grading.report import game_outcome
from duel.grading.sequential import LOOK_EVERY
from duel.grading.stopping import SequentialTests
from duel.match import play_match
from duel.runs.budget import Budget, GameCost
from duel.runs.campaign import Campaign
from duel.runs.campaign import run as campaign_run
from duel.runs.dryrun import DryRun, project
from duel.transcripts import Transcript, TranscriptWriter, read
from duel.util.files import atomic_write


def _finished(path: Path, model: str, variant: str, opponent: str, seat: int) -> bool:
    """Whether `path` holds a finished game of this very grading run (see :func:`_kept`)."""
    return _kept(path, model, variant, opponent, seat) is not None


def _kept(path: Path, model: str, variant: str, opponent: str, seat: int) -> Transcript | None:
    """The finished game of this very grading run (the same model spec, opponent spec and
    prompt text) at `path`, or None. A partial or unreadable file is played again; a finished
    game of another run is refused, so that a report never mixes two runs' games."""
    if not path.exists():
        return None
    try:
        t = read(path)
    except TranscriptError:
        return None
    if t.footer is None:
        return None
    llm_spec = variant_spec(model, variant).strip()
    expected = (llm_spec, opponent.strip()) if seat == 1 else (opponent.strip(), llm_spec)
    players = t.header.get("players", {})
    found = tuple(players.get(str(s), {}).get("spec") for s in (1, 2))
    if found != expected:
        raise SpecError(f"{path} is a game of {found[0]} (player 1) against {found[1]}, not of "
                        f"{expected[0]} against {expected[1]}: grade into another --out")
    prompt = players.get(str(seat), {}).get("prompt") or {}
    now = prompt_hash(variant)
    if prompt.get("hash") != now:
        raise SpecError(f"{path} was played with prompt variant {variant} of hash "
                        f"{prompt.get('hash')}, which is now {now}: grade into another --out")
    return t


def play_one(model: str, variant: str, opponent: str, seed: int, seat: int, out: Path) -> Path:
    """Play (or keep) one game: the variant's LLM in `seat`, the opponent in the other."""
    path = game_path(out, variant, seed, seat)
    if _finished(path, model, variant, opponent, seat):
        return path
    llm = make_agent(variant_spec(model, variant))
    opp = make_agent(opponent)
    agents = (llm, opp) if seat == 1 else (opp, llm)
    deal = new_game(seed).deal
    writer = TranscriptWriter.for_match(path, seed, deal, agents)
    try:
        result = play_match(agents[0], agents[1], seed=seed, deal=deal, on_move=writer.record)
        writer.finish(result.result)
    finally:
        writer.close()
    return path


def play_elsewhere(model: str, variant: str, opponent: str, seed: int, seat: int,
                   out: Path | None = None) -> str:
    """Play one game (a Ray task, maybe on another machine; `out`, the run's folder there, is
    not used) and return its transcript's text, for the run's own process to write into its
    folder."""
    with tempfile.TemporaryDirectory(prefix="duel-grade-") as tmp:
        return play_one(model, variant, opponent, seed, seat, Path(tmp)).read_text()


def run(variants: list[str], model: str, opponent: str, deals: int, out: str, seed: int = 0,
        jobs: int = 4, progress: bool = True, budget_usd: float | None = None,
        until_decided: bool = False, look_every: int = LOOK_EVERY, ray: str | None = None,
        llm_limit: LimitSpec | None = None) -> RunOutcome:
    """Play every variant's games (deal by deal, in seed order), keeping those already in
    `out`. `budget_usd`: start no game that would take the money spent past it
    (duel.runs.budget). `until_decided`: `deals` is the maximum; start no more games of a
    variant once its sequential test against the baseline has decided, none at all once every
    variant's has (see duel.grading.sequential). `ray`: play the games as tasks of that Ray
    cluster (duel.runs.cluster), at most `jobs` at once (0: one per CPU), the LLM's requests
    under `llm_limit` cluster-wide; each game's transcript comes back here and is written as
    a local run writes it."""
    names = variant_names(variants)
    agents = []
    for name in names:
        agents.append(make_agent(variant_spec(model, name)))
    agents.append(make_agent(opponent))
    folder = Path(out)
    budget = Budget(budget_usd, str(folder))
    budget.check_agents(agents)
    plan = folder_plan(folder, names, deals, look_every, seed) if until_decided else None
    tasks = schedule(names, deals, seed)
    points: dict[GradeTask, float] = {}  # the LLM's, by game (for the tests)
    earlier = {}
    for task in tasks:
        path = game_path(folder, task.variant, task.seed, task.seat)
        t = _kept(path, model, task.variant, opponent, task.seat)
        if t is not None:
            earlier[task] = GameCost.of_moves(m.get("details", {}) for m in t.moves)
            if plan is not None:
                points[task] = game_outcome(path, t).points
    tests = SequentialTests(plan, points)

    def done(task: GradeTask, result: Path | str) -> GameCost:
        path = result if isinstance(result, Path) else atomic_write(
            game_path(folder, task.variant, task.seed, task.seat), result)
        t = read(path)
        if plan is not None:
            tests.add(task, game_outcome(path, t).points)
        return GameCost.of_moves(m.get("details", {}) for m in t.moves)

    campaign = Campaign(play_one, lambda t: (model, t.variant, opponent, t.seed, t.seat, folder),
                        done, group=lambda t: t.variant, gate=lambda t: tests.gate(t.variant),
                        remote=play_elsewhere, agents=agents)
    notes = campaign_run(campaign, tasks, earlier, budget, jobs, progress, ray, llm_limit)
    return RunOutcome(notes, plan)


def dry_run(variants: list[str], model: str, opponent: str, deals: int, out: str | None,
            seed: int = 0, jobs: int = 4, until_decided: bool = False,
            budget_usd: float | None = None, probe: int = 0) -> DryRun:
    """What `run` would play (the games kept in `out` left out) and its projected cost, with
    nothing played and nothing written (duel.runs.dryrun). With `until_decided` the figures
    are the maximum: the sequential test may stop the run earlier."""
    names = variant_names(variants)
    specs = {name: variant_spec(model, name) for name in names}
    for spec in specs.values():
        make_agent(spec)  # a bad variant or spec fails as the run would
    opponent = make_agent(opponent).spec
    tasks = schedule(names, deals, seed)
    todo = [t for t in tasks if out is None or _kept(
        game_path(Path(out), t.variant, t.seed, t.seat), model, t.variant, opponent,
        t.seat) is None]
    seats = {specs[n]: sum(1 for t in todo if t.variant == n) for n in names}
    seats[opponent] = seats.get(opponent, 0) + len(todo)
    done = len(tasks) - len(todo)
    plan = (f"{len(names)} variants ({', '.join(names)}) x {deals} deals (seeds {seed} to "
            f"{seed + deals - 1}) x 2 seats against {opponent}"
            + (f"; {done} games found done in {out}, not counted" if done else ""))
    notes = [f"--until-decided: these are the maximum ({deals} deals); the sequential test "
             "may stop the run earlier"] if until_decided else []
    found = project("duel grade", len(todo), plan, seats, seed, jobs, notes, probe=probe)
    found.budget_usd = budget_usd
    return found
