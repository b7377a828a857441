"""`duel llm check SPEC`: one real call with a real game state, before money goes on a tournament.

The position is a seeded game after the wonder draft (Age I, the player to move, as that seat
sees it). The check reports the settings that work once the agent has adapted them to the model,
the adaptations made, the move and whether it was legal at the first try, the latency, the tokens
(reasoning ones too), the cost, and the projected cost of a whole game. A key, endpoint or model
that fails, parameters that cannot be adapted, or no legal move raise a DuelError: the CLI prints
one line and exits non-zero.
"""

from __future__ import annotations

import argparse
import random
import textwrap
import time
from typing import Any

from duel.accounting.projection import DECISIONS_PER_SEAT, DECISIONS_RANGE, Call, estimate_tokens
from duel.accounting.projection import spend as project_spend
from duel.agents.llm.agent import LLMAgent
from duel.agents.spec import make_agent
from duel.cli.options import add_seed, dump
from duel.cli.status import live_status, seat_label
from duel.engine import GameState, Seat, new_game
from duel.errors import ProviderError, UsageError
from duel.match import agent_rng, decide
from duel.words.narrate import move_text

# A check should say quickly that an endpoint does not answer: at most this many retries of a
# failed connection (or 429, 5xx) per attempt, whatever the spec's transport_retries.
CHECK_TRANSPORT_RETRIES = 1
TRANSPORT = "TRANSPORT"  # the call category of a call that got no reply
# Settings shown by name (provider and model are in the spec line).
_SHOWN = ("provider", "model", "mode", "temperature", "token_param", "max_tokens",
          "reasoning_effort", "thinking", "provider_pin")


def position(seed: int) -> GameState:
    """Seed `seed`'s game after the wonder draft (the picks drawn with the same seed)."""
    state = new_game(seed)
    rng = random.Random(seed)
    while state.step_name == "WONDER_SELECTION":
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def check(spec: str, seed: int = 0) -> dict[str, Any]:
    """Play one decision of the LLM agent `spec` at `position(seed)`; the findings as a dict
    (what `--json` prints). Raises a DuelError naming the reason when no legal move came back."""
    if not spec.strip().startswith("llm:"):
        raise UsageError(f"expected an llm: agent spec (e.g. llm:openai:gpt-5-mini), got {spec!r}")
    agent = make_agent(spec)  # SpecError: a missing key, an unknown option
    if not isinstance(agent, LLMAgent):
        raise UsageError(f"{spec!r} does not build an LLM agent")
    agent.transport_retries = min(agent.transport_retries, CHECK_TRANSPORT_RETRIES)
    state = position(seed)
    seat = Seat.of_index(state.current)
    start = time.monotonic()
    with live_status([(agent, seat_label(seat.player, agent.spec))]):  # a reasoning model is slow
        move, details, _ = decide(agent, state, agent_rng(seed, seat))  # LLMConfigError: key...
    wall = time.monotonic() - start
    llm: dict[str, Any] = details.get("llm") or {}
    calls: list[dict[str, Any]] = llm.get("calls") or []
    if llm.get("fallback") is not None:
        raise ProviderError(_no_move(calls))
    costs: list[float | None] = [c.get("cost_usd") for c in calls]
    known = [c for c in costs if c is not None]
    cost = round(sum(known), 6) if len(known) == len(costs) else None
    settings = _settings(agent, llm)
    return {
        "spec": agent.spec, "seed": seed,
        "position": f"seed {seed}, Age {state.age} after the wonder draft, "
                    f"player {seat.player} to move",
        "settings": settings,
        "reasoning": _reasoning_label(agent),
        "harness": agent.harness.label,
        "adaptations": list(llm.get("adaptations") or []),
        "move": move.to_json(), "move_text": move_text(state, move, state.apply(move)),
        "legal_at_attempt": llm.get("legal_at_attempt"),
        "first_try_legal": llm.get("legal_at_attempt") == 1,
        "failed_attempts": [{"attempt": c.get("attempt"), "category": c.get("category"),
                             "error": c.get("error", "")}
                            for c in calls if c.get("category") != "OK"],
        "latency_s": round(wall, 3), "calls": len(calls),
        # tools=on: each call's tool calls, by name (None: tools off)
        "tool_calls": [[t.get("tool") for t in c["tool_calls"]] for c in calls]
        if any("tool_calls" in c for c in calls) else None,
        "input_tokens": _sum(calls, "input_tokens"), "cached_tokens": _sum(calls, "cached_tokens"),
        "output_tokens": _sum(calls, "output_tokens"),
        "reasoning_tokens": _sum(calls, "reasoning_tokens"),
        "cost_usd": cost,
        "projection": projection(agent, calls, cost),
        # what the harness took out of the reply: the reasoning in words, the note kept
        "thinking": (calls[-1].get("thinking") or None) if calls else None,
        "note": llm.get("note"),
    }


def projection(agent: LLMAgent, calls: list[dict[str, Any]], cost: float | None
               ) -> dict[str, Any]:
    """One seat's whole game by the projection model (duel.accounting.projection): this
    decision as measured (its first call may have been cold), then warm calls: the last call's
    input with the rules text read from the provider's cache (its tokens estimated as a quarter
    of its characters, at least what was read from the cache already), and the same output, at
    the price table's prices. The range is the number of decisions of one seat
    (DECISIONS_RANGE); a reasoning model's output varies per move, which one call cannot
    measure."""
    out: dict[str, Any] = {"decisions": DECISIONS_PER_SEAT, "cost_usd": None,
                           "decisions_range": list(DECISIONS_RANGE), "low_usd": None,
                           "high_usd": None, "warm_call_usd": None}
    answered = [c for c in calls if c.get("category") != TRANSPORT]
    if cost is None or not answered:
        return out
    last = answered[-1]
    inp, output = int(last.get("input_tokens") or 0), int(last.get("output_tokens") or 0)
    rules = max(int(last.get("cached_tokens") or 0), estimate_tokens(agent.variant.system))
    warm = Call(inp, output, rules).usd(agent.provider.model, agent.prices)
    if warm is None:  # OpenRouter's own bill, for a model the table has no price for
        return out
    game = project_spend(cost, warm)  # the game's one cold call is this decision, as measured
    out.update(cost_usd=game.usd, low_usd=game.low_usd, high_usd=game.high_usd,
               warm_call_usd=round(warm, 8))
    return out


def _sum(calls: list[dict[str, Any]], key: str) -> int:
    return sum(int(c.get(key) or 0) for c in calls)


def _settings(agent: LLMAgent, llm: dict[str, Any]) -> dict[str, Any]:
    """The settings in use after adaptation: the agent's own account, or the decision's."""
    own = getattr(agent, "settings", None)
    if callable(own):
        return dict(own())
    return dict(llm.get("settings") or {})


def _reasoning_label(agent: LLMAgent) -> str:
    label = getattr(agent, "reasoning_label", None)
    return str(label()) if callable(label) else "default"


def _no_move(calls: list[dict[str, Any]]) -> str:
    """Why the check failed when the agent fell back: no reply at all, or no legal one."""
    last = next((c.get("error") for c in reversed(calls) if c.get("error")), "")
    if calls and all(c.get("category") == TRANSPORT for c in calls):
        return f"the endpoint did not answer: {last}"
    categories = ", ".join(str(c.get("category")) for c in calls)
    attempts = max((int(c.get("attempt") or 0) for c in calls), default=0)
    return (f"no legal move came back in {attempts} attempts ({categories})"
            + (f"; last: {last}" if last else ""))


def settings_text(settings: dict[str, Any]) -> str:
    """E.g. 'mode json_schema, temperature not sent, max_completion_tokens 16000'."""
    if not settings:
        return "not reported by this agent"
    parts = []
    if "mode" in settings:
        parts.append(f"mode {settings['mode']}")
    if "temperature" in settings:
        t = settings["temperature"]
        parts.append("temperature not sent" if t is None else f"temperature {t}")
    if "max_tokens" in settings:
        parts.append(f"{settings.get('token_param') or 'max_tokens'} {settings['max_tokens']}")
    # Reasoning options only when sent: the check's "reasoning" line names the setting anyway.
    if settings.get("reasoning_effort"):
        parts.append(f"reasoning_effort {settings['reasoning_effort']}")
    if settings.get("thinking"):
        parts.append("adaptive thinking" if settings["thinking"] == "adaptive"
                     else f"thinking budget {settings['thinking']} tokens")
    if settings.get("provider_pin"):
        parts.append(f"provider pinned to {settings['provider_pin']}")
    # anything else the agent reports (e.g. how the move tool is chosen), as it says it
    parts += [f"{k} {v}" for k, v in settings.items() if k not in _SHOWN and v is not None]
    return ", ".join(parts)


def report_text(r: dict[str, Any]) -> str:
    """The check's findings for a person."""
    adaptations = [f"{a.get('parameter')}: {a.get('change')} ({a.get('reason')})"
                   for a in r["adaptations"]]
    if r["first_try_legal"]:
        legality = "legal at the first try"
    else:
        failed = "; ".join(f"attempt {f['attempt']} {f['category']}"
                           + (f": {f['error']}" if f["error"] else "")
                           for f in r["failed_attempts"])
        legality = f"legal at attempt {r['legal_at_attempt']} ({failed})"
    tokens = (f"{r['input_tokens']} in ({r['cached_tokens']} cached) / {r['output_tokens']} out"
              f" ({r['reasoning_tokens']} of them reasoning)")
    p = r["projection"]
    n = p["decisions"]
    if r["cost_usd"] is None:
        cost = "unknown price (no price for this model: add one with a DUEL_PRICES file)"
        projected = "unknown (no price)"
    else:
        cost = f"${r['cost_usd']:.4f} for this move"
        projected = "unknown (no price to project warm calls with)" \
            if p.get("cost_usd") is None else \
            (f"${p['cost_usd']:.4f} projected (${p['low_usd']:.4f} to ${p['high_usd']:.4f} for "
             f"{p['decisions_range'][0]} to {p['decisions_range'][1]} decisions): this move, "
             f"then {n - 1} warm calls at ${p['warm_call_usd']:.6f} each (the rules text read "
             "from the provider's cache; re-asks cost more)")
    lines = [
        f"duel llm check {r['spec']}",
        f"  position:    {r['position']}",
        f"  settings:    {settings_text(r['settings'])}",
        f"  reasoning:   {r['reasoning']}",
        *([f"  harness:     {r['harness']}"] if r.get("harness", "default") != "default" else []),
        "  adaptations: " + ("; ".join(adaptations) if adaptations else "none"),
        f"  move:        {r['move_text']}: {legality}",
        f"  latency:     {r['latency_s']:.1f} s ({r['calls']} call{'s' * (r['calls'] != 1)})",
        *([f"  tools:       {_tools_text(r['tool_calls'])}"] if r.get("tool_calls") else []),
        *([f"  thinking:    {_line(r['thinking'])}"] if r.get("thinking") else []),
        *([f"  note kept:   {_line(r['note'])}"] if r.get("note") else []),
        f"  tokens:      {tokens}",
        f"  cost:        {cost}",
        f"  whole game:  {projected}",
        f"OK: {r['spec']} answered with a legal move",
    ]
    return "\n".join(lines)


def _line(text: str) -> str:
    return textwrap.shorten(text, 300, placeholder="...")  # on one line, whitespace collapsed


def _tools_text(per_call: list[list[str]]) -> str:
    """E.g. 'get_state, legal_moves -> simulate -> make_move (3 look-ups)'."""
    names = [", ".join(call) or "(answered as text)" for call in per_call]
    looked = sum(1 for call in per_call for name in call if name != "make_move")
    return f"{' -> '.join(names)} ({looked} look-up{'s' * (looked != 1)})"


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("llm", help="LLM tools: check a model before spending on a tournament")
    llm_sub = p.add_subparsers(dest="llm_command", required=True)
    p = llm_sub.add_parser("check", help="one real call with a real game state: the settings "
                           "that work, the move, latency, tokens, cost and a whole game's "
                           "projected cost; exits 2 with the reason if no legal move came back")
    p.add_argument("spec", help="an llm: agent spec, e.g. llm:openai:gpt-5-mini")
    add_seed(p, 0, "the game whose position is asked")
    p.add_argument("--json", action="store_true", help="the findings as one JSON object")
    p.set_defaults(func=command, command_name="llm check")


def command(args: argparse.Namespace) -> int:
    result = check(args.spec, args.seed)
    if args.json:
        dump(result)
    else:
        print(report_text(result))
    return 0
