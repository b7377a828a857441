"""The MCTS ladder: a player placed among MCTS iteration budgets ("between MCTS-200 and
MCTS-1000"). The player meets every rung and each rung the next one up, each pairing a
tournament of its own (duel.runs.tournament: resumable, on this machine or a Ray cluster) in
DIR/<pairing>/games.jsonl; the ratings over every pairing's games place the player.

The pairings are played one after another: each one's games run in parallel (`jobs`, or the
cluster's CPUs), and a run stopped anywhere resumes where it stopped."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duel.agents.account import SeatAccount
from duel.agents.llm.transport.limits import LimitSpec
from duel.agents.spec import make_agent
from duel.errors import UsageError
from duel.runs import tournament
from duel.runs.ratings import as_games, found_games, player_accounts, rate, reasoning_settings

RUNGS = (50, 200, 1000)  # MCTS iterations: the README's ladder
MANIFEST = "ladder.json"  # which player and rungs a ladder folder holds


@dataclass(frozen=True)
class Pairing:
    folder: str  # under the ladder's folder
    a: str
    b: str


def rung(iterations: int) -> str:
    return f"mcts:iterations={iterations}"


def parse_rungs(text: str) -> list[int]:
    """"50,200,1000": at least one budget, each a positive whole number, strictly increasing."""
    try:
        rungs = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--rungs {text!r}: give iteration budgets separated by commas, "
                         "e.g. 50,200,1000") from None
    if not rungs or min(rungs) < 1 or rungs != sorted(set(rungs)):
        raise UsageError(f"--rungs {text!r}: budgets must be positive and increasing, "
                         "e.g. 50,200,1000")
    return rungs


def pairings(player: str, rungs: list[int]) -> list[Pairing]:
    """The player against each rung, then each rung against the next (what ties the rungs
    into one scale)."""
    against = [Pairing(f"player-{n}", player, rung(n)) for n in rungs]
    steps = [Pairing(f"{lo}-{hi}", rung(lo), rung(hi))
             for lo, hi in zip(rungs, rungs[1:], strict=False)]
    return against + steps


def _claim(out: Path, player: str, rungs: list[int]) -> None:
    """Mark `out` as this ladder's, or refuse a folder that holds another player's: the
    ratings read every game under it, so two ladders in one folder would rate together."""
    manifest = out / MANIFEST
    mine = {"player": player, "rungs": rungs}
    if manifest.exists():
        theirs = json.loads(manifest.read_text())
        if theirs.get("player") != player:
            raise UsageError(f"{out} holds the ladder of {theirs.get('player')!r}; give "
                             "another --out for this player")
        # More rungs later is a resume too: the games already played still count.
        mine["rungs"] = sorted(set(rungs) | set(theirs.get("rungs", [])))
    out.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(mine) + "\n")


@dataclass
class LadderResult:
    standings: list[tuple[Pairing, tournament.Standings]]
    ratings: list[dict[str, Any]]  # duel.runs.ratings.rate's rows, the strongest first
    player: str
    rated: int  # games the ratings are over
    reasoning: dict[str, str] = field(default_factory=dict)  # LLM players' settings, by spec
    # each player's moves: how many were its own (duel.runs.ratings.player_accounts)
    accounts: dict[str, SeatAccount | None] = field(default_factory=dict)

    @property
    def place(self) -> str:
        """Where the player stands: "between MCTS-200 and MCTS-1000" (or below, above)."""
        return str(next((r["place"] for r in self.ratings if r["player"] == self.player),
                        "not placed: none of its games is finished"))


def run(player: str, rungs: list[int], games: int, out: str, seed: int = 0, jobs: int = 1,
        progress: bool = True, budget_usd: float | None = None, ray: str | None = None,
        llm_limit: LimitSpec | None = None, resamples: int = 200,
        transcripts: bool = True) -> LadderResult:
    """Play (or resume) every pairing of the ladder, `games` games each on the same deals
    (`seed`), then rate them all. `budget_usd` caps each pairing's LLM money (its folder's
    games included); `ray`, `jobs`, `llm_limit`: as for duel.runs.tournament.run."""
    if games < 1:
        raise UsageError(f"--games {games}: give at least 1 game per pairing")
    # The spec as the games record it; a bad one fails here, before anything is played.
    player = make_agent(player).spec
    if player in {make_agent(rung(n)).spec for n in rungs}:
        raise UsageError(f"{player!r} is a rung of the ladder already; place another player")
    root = Path(out)
    _claim(root, player, rungs)
    played = []
    for p in pairings(player, rungs):
        standings = tournament.run(p.a, p.b, games, seed=seed, jobs=jobs,
                                   out=str(root / p.folder), progress=progress,
                                   budget_usd=budget_usd, ray=ray, llm_limit=llm_limit,
                                   transcripts=transcripts)
        played.append((p, standings))
    # Every game under the folder: those of earlier runs' rungs too (one player's, by _claim).
    found = found_games([str(root)])
    rated = as_games(found)
    rows = rate(rated, resamples=resamples, seed=seed)
    return LadderResult(played, rows, player, len(rated), reasoning_settings(found),
                        player_accounts(found))
