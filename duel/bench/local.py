"""`duel bench local`: settings of the local model compared on the same positions.

Each candidate plays the same fixed list of positions (seeded random games, drawn across the
draft, the three Ages and the choice steps), one decision each, with the llama.cpp server
started fresh for each candidate, so its first decision pays for reading the rules prompt. Per
candidate: first-try legality and legality after the re-asks (Wilson 95% CIs), seconds per
decision (the first, the median of the rest, the total), the model's legal moves per minute,
and how good the moves are: the share of an MCTS search's root visits that went to the chosen
move (a uniform random chooser averages 1/number of legal moves; both are printed).

A candidate is a prompt variant's name (`baseline`: that prompt, unconstrained output), or
`default`: `llm:local` as shipped; either followed by `+legal` for output constrained to the legal
moves (`local+legal`) and by the seat's settings as grading names them (`default+think=text`,
`default+tools=on`, `local+legal+names=renamed`): so the quick start's defaults are measured
against each setting per minute.
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from duel.engine import GameState, Move, new_game
from duel.engine.perspective import Perspective
from duel.errors import BenchError, SpecError
from duel.prompts import variants
from duel.stats import wilson
from duel.util import tables

# Kinds of position and their shares of the list: (name, weight, test on a state).
_KINDS: tuple[tuple[str, int, Callable[[GameState], bool]], ...] = (
    ("draft", 3, lambda s: s.step_name == "WONDER_SELECTION"),
    ("age1", 4, lambda s: s.step_name == "PLAY_CARD" and s.age == 1),
    ("age2", 4, lambda s: s.step_name == "PLAY_CARD" and s.age == 2),
    ("age3", 4, lambda s: s.step_name == "PLAY_CARD" and s.age == 3),
    ("token", 2, lambda s: s.step_name == "CHOOSE_PROGRESS_TOKEN"),
    ("start", 1, lambda s: s.step_name == "CHOOSE_STARTING_PLAYER"),
    ("wonder", 2, lambda s: s.step_name in ("DESTROY_BROWN", "DESTROY_GREY",
                                            "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD",
                                            "CONSTRUCT_FROM_DISCARD")),
)


@dataclass
class SeededPosition:
    kind: str
    seed: int  # the random game it comes from
    ply: int
    state: GameState


def quotas(n: int) -> dict[str, int]:
    """How many positions of each kind make `n` (largest remainders, every kind once n allows)."""
    total = sum(w for _, w, _ in _KINDS)
    exact = {name: n * w / total for name, w, _ in _KINDS}
    out = {name: int(x) for name, x in exact.items()}
    for name in sorted(exact, key=lambda k: exact[k] - out[k], reverse=True):
        if sum(out.values()) >= n:
            break
        out[name] += 1
    for name in out:  # a kind left out takes one from the largest, while that has two or more
        largest = max(out, key=lambda k: out[k])
        if out[name] == 0 and out[largest] > 1:
            out[name], out[largest] = 1, out[largest] - 1
    return out


def positions(n: int, seed: int = 0, max_games: int = 2000) -> list[SeededPosition]:
    """`n` positions with a choice (two legal moves or more) from seeded random games, at most
    one of each kind per game, in a fixed order: the same list for the same `n` and `seed`."""
    want = quotas(n)
    found: dict[str, list[SeededPosition]] = {name: [] for name in want}
    for game in range(seed, seed + max_games):
        if all(len(found[k]) >= want[k] for k in want):
            break
        rng = random.Random(game)
        seen: dict[str, list[tuple[int, GameState]]] = {}
        state = new_game(game)
        ply = 0
        while not state.is_terminal():
            choice = len(state.legal_moves()) > 1  # one legal move tells nothing
            for name, _, test in _KINDS:
                if choice and test(state):
                    seen.setdefault(name, []).append((ply, state))
            state = state.apply(rng.choice(state.legal_moves()))
            ply += 1
        for name, states in seen.items():
            if len(found[name]) < want[name]:
                at, chosen = rng.choice(states)
                found[name].append(SeededPosition(name, game, at, chosen))
    missing = {k: want[k] - len(found[k]) for k in want if len(found[k]) < want[k]}
    if missing:  # pragma: no cover - every kind turns up within a few dozen games
        raise BenchError(f"no positions of kinds {missing} in {max_games} games")
    return [p for name, _, _ in _KINDS for p in found[name]]


def candidate_spec(name: str) -> str:
    """The agent spec a candidate name stands for (SpecError naming the valid ones).

    `default` is `llm:local` as shipped; otherwise a prompt variant (unconstrained output).
    Either takes, joined by `+`, `legal` (output constrained to the legal moves) and the LLM
    seat's settings as graded (`think=text`, `names=renamed`, `image=on`, `tools=on`: the
    grading variants' one parser, duel.grading.variants)."""
    from duel.grading.variants import BASELINE, GradeVariant

    parts = [p.strip() for p in name.split("+")]
    legal = "legal" in parts
    rest = [p for p in parts if p != "legal"]
    shipped = bool(rest) and rest[0] == "default"
    valid = (f"valid: default or a prompt variant ({', '.join(variants())}), then +legal "
             "and settings (think=text, names=renamed, image=on, tools=on) joined by '+'")
    if shipped:
        rest = rest[1:]
        if any("=" not in p for p in rest):
            raise SpecError(f"unknown candidate {name!r}: default takes settings only; {valid}")
    try:
        variant = GradeVariant.parse("+".join(rest) or BASELINE)
    except SpecError as exc:
        raise SpecError(f"unknown candidate {name!r} ({exc}); {valid}") from None
    past = variant.harness.needs_game()
    if past:
        raise SpecError(f"candidate {name!r}: {', '.join(past)} need a game's earlier moves, "
                        "which a position asked on its own does not have")
    options: dict[str, str] = {}
    if not shipped:
        options = {"prompt": variant.prompt, "constrain": "legal" if legal else "shape"}
    elif legal:
        options["constrain"] = "legal"
    options.update(variant.harness.options())
    options.update(dict(variant.tools))
    return "llm:local" + "".join(f",{k}={v}" for k, v in options.items())


@dataclass
class CandidateResult:
    """One decision of one candidate."""

    kind: str
    seconds: float
    cpu_seconds: float  # the model server's CPU time: what the decision costs on an idle machine
    legal_at: int | None
    calls: int
    input_tokens: int
    output_tokens: int
    share: float | None  # the MCTS root visits' share of the chosen move (None: not judged)
    random_share: float  # what a uniform random choice gets on average: 1 / legal moves
    move: dict[str, Any] = field(default_factory=dict)


def visit_shares(pos: SeededPosition, iterations: int) -> dict[Move, float]:
    """The share of an MCTS search's root visits of each legal move (in the view's labels).
    A single legal move, or an immediate win the search takes without searching, gets 1."""
    from duel.agents.mcts import MCTSAgent

    seen = Perspective.to_move(pos.state)
    legal = seen.moves_out(pos.state.legal_moves())
    decision, children = MCTSAgent(iterations=iterations, seed=pos.seed).analyse(
        seen.view(pos.state), legal, random.Random(pos.seed))
    total = sum(visits for _, visits, _ in children)
    if not total:
        return {decision.move: 1.0}
    return {move: visits / total for move, visits, _ in children}


def server_cpu_seconds(server: Any) -> float:
    """The CPU time the model server process has used (0 before it starts, or off Linux)."""
    proc = server.process
    try:
        with open(f"/proc/{proc.pid}/stat", encoding="ascii") as f:
            fields = f.read().rpartition(")")[2].split()
    except (AttributeError, OSError):
        return 0.0
    # utime and stime, the 14th and 15th fields (the 12th and 13th after the name)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reference_shares(pos_list: Sequence[SeededPosition], shares: Sequence[dict[Move, float]]
                     ) -> str:
    """The mean MCTS share of a uniform random choice, of the rule-based agent, and of the
    search's own pick: the scale a candidate's share is read on."""
    from duel.agents.rule_based import RuleAgent

    rule = []
    for pos, share in zip(pos_list, shares, strict=True):
        seen = Perspective.to_move(pos.state)
        legal = seen.moves_out(pos.state.legal_moves())
        move = RuleAgent().choose(seen.view(pos.state), legal, random.Random(pos.seed)).move
        rule.append(share.get(move, 0.0))
    uniform = statistics.fmean(1 / len(p.state.legal_moves()) for p in pos_list)
    best = statistics.fmean(max(s.values()) for s in shares)
    return f"random {uniform:.2f}, rule {statistics.fmean(rule):.2f}, MCTS itself {best:.2f}"


def run_candidate(spec: str, pos_list: Sequence[SeededPosition],
                  shares: Sequence[dict[Move, float]],
                  server_settings: dict[str, str] | None = None
                  ) -> Iterator[CandidateResult]:
    """Play each position once with `spec`, the server started fresh first."""
    from duel.agents import make_agent
    from duel.agents.llm.agent import LLMAgent
    from duel.agents.llm.servers.local import LocalServer

    server = LocalServer.shared()
    server.stop()
    if server_settings:
        server.settings.update(server_settings)
    agent = make_agent(spec)
    assert isinstance(agent, LLMAgent)
    try:
        for pos, share in zip(pos_list, shares, strict=True):
            seen = Perspective.to_move(pos.state)
            legal = seen.moves_out(pos.state.legal_moves())
            start, cpu = time.perf_counter(), server_cpu_seconds(server)
            decision = agent.choose(seen.view(pos.state), legal, random.Random(pos.seed))
            seconds = time.perf_counter() - start
            cpu = server_cpu_seconds(server) - cpu
            llm = decision.details["llm"]
            calls = llm["calls"]
            yield CandidateResult(pos.kind, seconds, cpu, llm["legal_at_attempt"], len(calls),
                         sum(c["input_tokens"] for c in calls),
                         sum(c["output_tokens"] for c in calls),
                         share.get(decision.move, 0.0) if share else None, 1 / len(legal),
                         decision.move.to_json())
    finally:
        server.stop()


def summary(name: str, results: Sequence[CandidateResult]) -> dict[str, Any]:
    """One table row: legality with CIs, time, moves per minute, move quality."""
    n = len(results)
    first = sum(r.legal_at == 1 for r in results)
    legal = sum(r.legal_at is not None for r in results)
    total = sum(r.seconds for r in results)
    rest = [r.seconds for r in results[1:]] or [0.0]
    return {"candidate": name, "n": n,
            "first_try": (first, *wilson(first, n)), "legal": (legal, *wilson(legal, n)),
            "first_s": results[0].seconds if results else 0.0,
            "median_s": statistics.median(rest), "total_s": total,
            "median_cpu_s": statistics.median([r.cpu_seconds for r in results[1:]] or [0.0]),
            "legal_per_min": legal / (total / 60) if total else 0.0,
            "calls": sum(r.calls for r in results),
            "median_input_tokens": statistics.median([r.input_tokens for r in results] or [0]),
            "share": statistics.fmean(shares) if (shares := [r.share for r in results
                                                            if r.share is not None]) else None,
            "random_share": statistics.fmean([r.random_share for r in results] or [0.0]),
            "load": os.getloadavg()[0]}


def _rate(cell: tuple[int, float, float], n: int) -> str:
    k, lo, hi = cell
    return f"{k}/{n} {100 * k / n:.0f}% [{100 * lo:.0f}-{100 * hi:.0f}]" if n else "-"


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The summary rows as a Markdown table."""
    return tables.markdown([{
        "candidate": r["candidate"], "n": r["n"],
        "first-try legal [95% CI]": _rate(r["first_try"], r["n"]),
        "legal after re-asks [95% CI]": _rate(r["legal"], r["n"]),
        "first s": f"{r['first_s']:.0f}", "median s": f"{r['median_s']:.1f}",
        "median CPU s": f"{r['median_cpu_s']:.1f}", "total s": f"{r['total_s']:.0f}",
        "legal moves/min": f"{r['legal_per_min']:.1f}", "calls": r["calls"],
        "MCTS share (random)": f"{r['share']:.2f} ({r['random_share']:.2f})"
                               if r["share"] is not None else "-",
        "load": f"{r['load']:.1f}"} for r in rows])


def load() -> str:
    """The machine's load averages (the CPU may be shared: figures need them beside)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def _exit(signum: int, frame: Any) -> None:
    sys.exit(128 + signum)


def bench_local(candidates: Sequence[str], n: int = 20, seed: int = 0,
                quality_iterations: int = 2000, server_settings: dict[str, str] | None = None,
                out: str | None = None, echo: Callable[[str], None] = print
                ) -> list[dict[str, Any]]:
    """Measure each candidate on the same `n` positions and print the table (and each decision
    as it comes, so a long run shows progress). `out`: a JSON-lines file of every decision."""
    specs = {name: candidate_spec(name) for name in candidates}  # bad names fail before work
    pos_list = positions(n, seed)
    shares = [visit_shares(p, quality_iterations) if quality_iterations else {}
              for p in pos_list]
    echo(f"{n} positions ({', '.join(f'{k} {v}' for k, v in quotas(n).items() if v)}); "
         f"{load()}")
    if quality_iterations:
        echo(f"MCTS share of reference players: {reference_shares(pos_list, shares)}")
    rows = []
    sink = open(out, "a", encoding="utf-8") if out else None  # noqa: SIM115 - closed below
    on_main = threading.current_thread() is threading.main_thread()
    # a run stopped by `timeout` or kill unwinds, so that the model server is stopped too
    previous = signal.signal(signal.SIGTERM, _exit) if on_main else None
    try:
        for name, spec in specs.items():
            echo(f"{name}: {spec}")
            results = []
            for i, r in enumerate(run_candidate(spec, pos_list, shares, server_settings)):
                results.append(r)
                echo(f"  {i + 1:>2} {r.kind:<6} {r.seconds:6.1f} s ({r.cpu_seconds:5.1f} CPU s)  "
                     "legal at "
                     f"{r.legal_at if r.legal_at is not None else '-'}  {json.dumps(r.move)}")
                if sink is not None:
                    sink.write(json.dumps({"candidate": name, "spec": spec, **r.__dict__}) + "\n")
                    sink.flush()
            rows.append(summary(name, results))
            echo(f"  done; {load()}")
    finally:
        if sink is not None:
            sink.close()
        if on_main:
            signal.signal(signal.SIGTERM, previous)
    echo(table(rows))
    return rows
