"""`--dry-run` of `duel tournament` and `duel grade`: the games a run would play, the LLM calls
and their projected cost, with nothing played and no model called that costs money.

The caller computes its run's schedule as the run does (the same tasks, the games found done in
its folder left out) and says how many games each seat's spec would play; this module projects
each LLM player by the projection model of `duel llm check` (duel.accounting.projection):

- calls: DECISIONS_PER_SEAT per game (the range DECISIONS_RANGE), one per decision;
- input per call: the rules text and a typical state's turn message, as the seat would send
  them, counted by the provider's free token counting where it has one (duel.agents.llm.
  counting), else estimated locally. The typical state is the decision whose turn message is
  nearest the mean length over a game on the run's first deal (rule against rule);
- output per call: the move's JSON (the mean over that game's moves, estimated locally); a
  reasoning model's reasoning is not known before a call: with `--probe N`, N paid decisions
  of the seat spread over that game measure it (their cost said apart, the range spanning their
  lowest and highest output); without, the figure is a floor, said so, with the ceiling of every
  call at its output budget;
- cold and warm calls: the rules text written to the provider's cache by the first call of each
  game running at once (`jobs`), per rules text and model, and read from it by every other call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from duel.accounting.projection import (
    DECISIONS_PER_SEAT,
    DECISIONS_RANGE,
    Call,
    Spend,
    estimate_tokens,
)
from duel.accounting.projection import spend as project_spend
from duel.agents.llm.providers.registry import capabilities
from duel.agents.spec import make_agent
from duel.engine import Move, Perspective
from duel.match import play_match
from duel.runs.budget import price_hint

NOTHING_SPENT = "nothing played, no model called that costs money"


@dataclass
class Player:
    """One seat's spec in the run: the games it plays a seat in and, for an LLM, its projection."""

    spec: str
    seat_games: int
    llm: bool = False
    model: str = ""
    reasoning: str = ""
    call: Call | None = None
    counted_by: str = ""
    cold_calls: int = 0
    cold_usd: float | None = None
    warm_usd: float | None = None
    notes: list[str] = field(default_factory=list)
    cache: Any = None  # the provider's cache it shares: endpoint, model and rules text
    # decisions per game (a position grading's unit is one answer): projected, low, high
    decisions: tuple[int, int, int] = (DECISIONS_PER_SEAT, *DECISIONS_RANGE)
    unit: str = "game"
    # A reasoning model's output: measured by paid probe calls (their figures), or unknown
    # (`floor`: the projection leaves reasoning out; `ceiling_usd`: every call at its budget)
    probe: dict[str, Any] | None = None
    floor: bool = False
    ceiling_usd: float | None = None

    @property
    def spend(self) -> Spend | None:
        """The projected dollars (None: no price); with a probe, the range spans its lowest
        and highest output per decision too."""
        if not self.llm:
            return Spend(0.0, 0.0, 0.0)
        if self.cold_usd is None or self.warm_usd is None:
            return None
        if self.probe is not None and self.probe.get("usd_per_decision") is not None:
            # what the provider billed the probe's decisions: reasoning, re-asks and the
            # input as it counts it, all in
            n, low, high = self.decisions
            per, cheapest, dearest = (self.probe[k] for k in (
                "usd_per_decision", "min_usd_per_decision", "max_usd_per_decision"))
            return Spend(round(per * n * self.seat_games, 6),
                         round(cheapest * low * self.seat_games, 6),
                         round(dearest * high * self.seat_games, 6))
        return project_spend(self.cold_usd, self.warm_usd, self.seat_games, self.cold_calls,
                             self.decisions)

    def to_json(self) -> dict[str, Any]:
        s = self.spend
        mid, low, high = self.decisions
        out: dict[str, Any] = {"spec": self.spec, f"{self.unit}s": self.seat_games,
                               "llm": self.llm}
        if self.llm and self.call is not None:
            out.update(
                model=self.model, reasoning=self.reasoning,
                calls=self.seat_games * mid,
                calls_range=[self.seat_games * low, self.seat_games * high],
                input_tokens_per_call=self.call.input_tokens,
                rules_tokens=self.call.rules_tokens,
                output_tokens_per_call=self.call.output_tokens,
                counted_by=self.counted_by, cold_calls=self.cold_calls,
                cached_share=round(self.cached_share, 4),
                cold_call_usd=self.cold_usd, warm_call_usd=self.warm_usd,
                cost_usd=None if s is None else s.usd, low_usd=None if s is None else s.low_usd,
                high_usd=None if s is None else s.high_usd, notes=self.notes,
                reasoning_counted=(self.probe or {}).get("source", "probe")
                if self.probe is not None
                else "no (a floor)" if self.floor else "not a reasoning model")
            if self.probe is not None:
                out["probe"] = self.probe
            if self.floor:
                out["ceiling_usd"] = self.ceiling_usd
        return out

    @property
    def cached_share(self) -> float:
        """The share of the player's input tokens assumed read from the cache."""
        if self.call is None:
            return 0.0
        calls = self.seat_games * self.decisions[0]
        warm = max(0, calls - self.cold_calls)
        return self.call.cached_share() * warm / calls if calls else 0.0


@dataclass
class DryRun:
    """A run's projection: what it would play, and each player's projected cost."""

    command: str  # "duel tournament", "duel grade"
    games: int  # games the run would play now
    schedule: str  # the schedule in words
    players: list[Player]
    notes: list[str] = field(default_factory=list)
    unit: str = "game"
    budget_usd: float | None = None  # the run's --budget-usd

    @property
    def total(self) -> Spend | None:
        spends = [p.spend for p in self.players]
        if any(s is None for s in spends):
            return None
        return Spend(*(round(sum(getattr(s, k) for s in spends if s is not None), 6)
                       for k in ("usd", "low_usd", "high_usd")))

    def calls(self) -> tuple[int, int, int]:
        """LLM calls: projected, low, high."""
        llm = [p for p in self.players if p.llm]
        mid, low, high = (sum(p.seat_games * p.decisions[i] for p in llm) for i in range(3))
        return mid, low, high

    def to_json(self) -> dict[str, Any]:
        t = self.total
        calls, low, high = self.calls()
        return {"command": self.command, f"{self.unit}s": self.games, "schedule": self.schedule,
                "llm_calls": calls, "llm_calls_range": [low, high],
                "players": [p.to_json() for p in self.players],
                "cost_usd": None if t is None else t.usd,
                "low_usd": None if t is None else t.low_usd,
                "high_usd": None if t is None else t.high_usd,
                "notes": [*self.notes, *self.budget_notes()]}

    def text(self) -> str:
        calls, low, high = self.calls()
        lines = [f"{self.command} --dry-run: {NOTHING_SPENT}",
                 f"  {self.unit + 's:':<7} {self.games} to "
                 f"{'play' if self.unit == 'game' else 'ask'}: {self.schedule}"]
        for p in self.players:
            lines += _player_lines(p)
        t = self.total
        money = "unknown (a player's model has no price)" if t is None else \
            f"${t.usd:.4f} projected (${t.low_usd:.4f} to ${t.high_usd:.4f})"
        lines.append(f"  {'total:':<7} {money} for {self.games} {self.unit}s, {calls} LLM calls "
                     f"({low} to {high})")
        lines += [f"  {'note:':<7} {n}" for n in [*self.notes, *self.budget_notes()]]
        return "\n".join(lines)

    def budget_notes(self) -> list[str]:
        """What --budget-usd would do to the run, at the projected mean cost per game."""
        if self.budget_usd is None:
            return []
        t = self.total
        if t is None:
            return [f"--budget-usd {self.budget_usd:.2f}: refused at the start (a model without "
                    "a price)"]
        if t.usd <= self.budget_usd:
            return [f"--budget-usd {self.budget_usd:.2f}: the projected ${t.usd:.4f} is within "
                    "it" + (" (the range's high end is not)" if t.high_usd > self.budget_usd
                            else "")]
        fits = int(self.budget_usd / (t.usd / self.games)) if self.games else 0
        return [f"--budget-usd {self.budget_usd:.2f}: the run would stop after about {fits} of "
                f"the {self.games} {self.unit}s (at the projected mean of "
                f"${t.usd / self.games:.4f} each)"]


def _player_lines(p: Player) -> list[str]:
    if not p.llm:
        return [f"  {p.spec}: {p.seat_games} {p.unit}s, no LLM: free"]
    mid, low, high = p.decisions
    assert p.call is not None
    c = p.call
    each = "one call each" if mid == low == high else \
        f"{mid} calls each ({low} to {high}, one per decision)"
    lines = [f"  {p.spec}: {p.seat_games} {p.unit}s, {each} = {p.seat_games * mid} calls "
             "(re-asks cost more)",
             f"    reasoning:  {p.reasoning}",
             f"    input:      {c.input_tokens} tokens per call (the rules text's {c.rules_tokens}"
             f" and a typical state), counted by {p.counted_by}",
             f"    cache:      {_writes(p)}, read by every other call: {p.cached_share:.1%} "
             "of the input assumed cached",
             f"    output:     {c.output_tokens} tokens per call " + (
                 "(projected from earlier games: see the note)"
                 if (p.probe or {}).get("source") == "earlier games" else
                 "(measured by the probe)" if p.probe is not None else
                 "(the move's JSON, local estimate; reasoning not counted: a floor)" if p.floor
                 else "(the move's JSON, local estimate)")]
    s = p.spend
    if s is None:
        lines.append(f"    cost:       unknown: {p.model} has no price; {price_hint([p.model])}")
    else:
        lines.append(f"    cost:       ${s.usd:.4f} projected (${s.low_usd:.4f} to "
                     f"${s.high_usd:.4f}): cold calls ${p.cold_usd:.6f}, warm calls "
                     f"${p.warm_usd:.6f} each at the price table's prices")
    lines += [f"    note:       {n}" for n in p.notes]
    return lines


def _writes(p: Player) -> str:
    if p.cold_calls == 0:
        return "the rules text written to the cache by another player's calls (the same text)"
    return (f"the rules text written to the cache by {p.cold_calls} call"
            f"{'s' * (p.cold_calls != 1)} (the first of each {p.unit} running at once)")


Sample = Sequence[tuple[dict[str, Any], list[Move], Move | None]]  # view, legal moves, move made


def sample_decisions(seed: int) -> Sample:
    """Every decision of a rule-against-rule game on deal `seed`: the view and legal moves as
    the seat to move sees them (it is player2 there, as LLM seats are), and the move played."""
    found: list[tuple[dict[str, Any], list[Move], Move | None]] = []

    def seen(record: Any, before: Any, after: Any) -> None:
        p = Perspective.to_move(before)
        found.append((p.view(before), p.moves_out(before.legal_moves()),
                      p.moves_out([record.move])[0]))

    play_match("rule", "rule", seed=seed, on_move=seen)
    return found


def project(command: str, games: int, schedule: str, seat_games: Mapping[str, int], seed: int,
            jobs: int, notes: Sequence[str] = (), sample: Sample | None = None,
            unit: str = "game", probe: int = 0,
            recorded: Mapping[str, dict[str, Any]] | None = None) -> DryRun:
    """The projection of a run of `games` games whose seats' specs play `seat_games` of them
    (by spec, in the order given; a spec in both seats of a game counts it twice); `seed`: the
    run's first deal; `jobs`: games at once (0: all of them). `sample`: the decisions whose
    prompts are counted (default: a game on deal `seed`); `unit` "answer": each of the
    `games` is one decision (a position grading run)."""
    from duel.agents.llm.agent import LLMAgent

    players: list[Player] = []
    for spec, played in seat_games.items():
        agent = make_agent(spec)
        if not isinstance(agent, LLMAgent):
            players.append(Player(agent.spec, played, unit=unit))
            continue
        if sample is None:
            sample = sample_decisions(seed)
        player = _llm_player(agent, played, sample, probe, (recorded or {}).get(agent.spec))
        if unit != "game":  # an answer to a position: one decision
            player.decisions, player.unit = (1, 1, 1), unit
        players.append(player)
    _cold_calls(players, jobs)
    for p in players:
        if p.llm and p.call is not None:
            p.cold_usd = p.call.usd(p.model, warm=False)
            p.warm_usd = p.call.usd(p.model, warm=True)
    return DryRun(command, games, schedule, players, list(notes), unit)


def recorded_spend(games: Sequence[Any], spec: str) -> dict[str, Any] | None:
    """What earlier games of `spec` (GameSummary lines of the run's folder: the same model and
    reasoning setting, as the spec names them) cost per decision, reasoning included, in the
    probe's form; None if none of them recorded a priced LLM total."""
    per_game: list[tuple[float, int]] = []
    for g in games:
        for player, s in zip(("1", "2"), g.specs, strict=True):
            t = (g.totals or {}).get(player)
            if s == spec and t and t.get("cost_usd") is not None and t.get("moves"):
                per_game.append((float(t["cost_usd"]), int(t["moves"])))
    if not per_game:
        return None
    moves = sum(m for _, m in per_game)
    rates = [usd / m for usd, m in per_game]
    return {"source": "earlier games", "games": len(per_game), "decisions": moves,
            "usd_per_decision": sum(usd for usd, _ in per_game) / moves,
            "min_usd_per_decision": min(rates), "max_usd_per_decision": max(rates)}


def _llm_player(agent: Any, games: int, sample: Sample, probe: int = 0,
                recorded: dict[str, Any] | None = None) -> Player:
    from duel.accounting.counting import count

    messages = [agent.conversation(view, legal).messages for view, legal, _ in sample]
    sizes = [sum(len(json.dumps(m)) for m in ms) for ms in messages]
    mean = sum(sizes) / len(sizes)
    typical = messages[min(range(len(sizes)), key=lambda i: abs(sizes[i] - mean))]
    counted = count(agent, typical)
    moves = [m if m is not None else legal[0] for _, legal, m in sample]
    answer = round(sum(estimate_tokens(json.dumps(m.to_json())) for m in moves) / len(moves))
    p = Player(agent.spec, games, llm=True, model=agent.provider.model,
               reasoning=agent.reasoning_label(),
               call=Call(counted.input_tokens, answer, counted.rules_tokens),
               counted_by=counted.by)
    p.cache = (agent.endpoint, agent.provider.model, agent.variant.system)
    if agent.model_reasons or agent.effective_settings().reasons():
        if probe > 0:
            _probe(p, agent, sample, probe)
        elif recorded is not None:
            p.probe = recorded
            p.notes.append(f"projected from {recorded['decisions']} decisions of "
                           f"{recorded['games']} earlier games of this spec in the run's folder "
                           "(the same model and reasoning setting), at what they cost, "
                           "reasoning included; the range spans their cheapest and dearest "
                           "game per decision")
        else:
            p.floor = True
            budget = agent.effective_settings().max_tokens
            at_budget = Call(counted.input_tokens, budget, counted.rules_tokens)
            warm = at_budget.usd(agent.provider.model, warm=True)
            p.ceiling_usd = None if warm is None else \
                round(warm * games * p.decisions[2], 4)
            up_to = "" if p.ceiling_usd is None else f": up to ${p.ceiling_usd:.4f}"
            p.notes.append("a reasoning model: this figure is a floor, its reasoning tokens "
                           "are not in it (not known before a call); every call may spend up "
                           f"to its output budget of {budget} tokens{up_to} for this player. "
                           "--probe N measures N paid calls and projects from them")
    if getattr(agent, "tool_steps", 0):
        p.notes.append(f"tools=on: each look-up is a call of its own (up to {agent.tool_steps} "
                       "per decision), not in this figure")
    if agent.harness.think == "text":
        p.notes.append("think=text: the reasoning in words before each move is not in this "
                       "figure (it can reach the output budget; duel llm check SPEC measures "
                       "one)")
    if agent.harness.history:
        p.notes.append("history=: the turn message grows through the game; projected at a "
                       "typical state's")
    if capabilities(agent.provider).bills_itself:
        p.notes.append("OpenRouter bills each call itself (usage.cost): priced here at the "
                       "maker's list price")
    return p


def _probe(p: Player, agent: Any, sample: Sample, n: int) -> None:
    """`n` paid decisions of the seat, spread over the sample game: its output per decision
    (reasoning, re-asks and regrown budgets included) replaces the move's JSON in the
    projection, and the probe's own cost is said (it is not in the figure)."""
    import random

    picks = [sample[i * len(sample) // n] for i in range(n)]
    outputs: list[int] = []
    costs: list[float | None] = []
    reasoning = 0
    for i, (view, legal, _) in enumerate(picks):
        calls = agent.choose(view, legal, random.Random(i)).details["llm"]["calls"]
        outputs.append(sum(int(c.get("output_tokens") or 0) for c in calls))
        reasoning += sum(int(c.get("reasoning_tokens") or 0) for c in calls)
        priced = [c.get("cost_usd") for c in calls]
        costs.append(None if None in priced else sum(float(x) for x in priced))
    known = [c for c in costs if c is not None]
    usd = sum(known)
    assert p.call is not None
    mean = round(sum(outputs) / n)
    p.call = replace(p.call, output_tokens=mean)
    p.probe = {"decisions": n, "mean_output_tokens": mean, "min_output_tokens": min(outputs),
               "max_output_tokens": max(outputs), "reasoning_tokens": reasoning,
               "cost_usd": round(usd, 6),
               **({"usd_per_decision": usd / n, "min_usd_per_decision": min(known),
                   "max_usd_per_decision": max(known)} if len(known) == n else {})}
    p.notes.append(f"projected from {n} paid probe decisions (${usd:.4f}, not in this figure) "
                   f"at what the provider billed them: output mean {mean} tokens a decision "
                   f"({min(outputs)} to {max(outputs)}), {reasoning} of them reasoning; the "
                   "range spans their cheapest and dearest decision")


def _cold_calls(players: list[Player], jobs: int) -> None:
    """Each cache group (model and rules text) writes the cache once per game running at once:
    its first `jobs` games' first calls (all of them when `jobs` is 0), given to its players in
    order."""
    groups: dict[Any, list[Player]] = {}
    for p in players:
        if p.llm:
            groups.setdefault(p.cache, []).append(p)
    for members in groups.values():
        games = sum(p.seat_games for p in members)
        cold = games if jobs <= 0 else min(jobs, games)
        for p in members:
            p.cold_calls = min(cold, p.seat_games)
            cold -= p.cold_calls

