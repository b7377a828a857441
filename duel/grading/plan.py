"""A grading run's plan: the variants it plays (the baseline and the null variant always among
them), their games deal by deal from both seats and where each is kept, and the --until-decided
design a grading folder records once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duel.errors import UsageError
from duel.grading.sequential import Design
from duel.grading.variants import GradeVariant

NULL_VARIANT = "null"
BASELINE = "baseline"
DESIGN_FILE = "sequential.json"  # the --until-decided design of a grading folder


def variant_spec(model: str, variant: str) -> str:
    """The model's agent spec with the variant's prompt and harness settings set
    (duel.grading.variants)."""
    return GradeVariant.parse(variant).spec(model)


def prompt_hash(variant: str) -> str:
    """The hash of the variant's prompt text now."""
    return GradeVariant.parse(variant).variant.hash


def game_path(out: Path, variant: str, seed: int, seat: int) -> Path:
    return out / "games" / variant / f"deal{seed}-seat{seat}.jsonl"


@dataclass(frozen=True)
class Plan:
    """The --until-decided plan of a grading folder: the design, the first deal, the variants."""

    design: Design
    seed: int
    names: list[str]


@dataclass
class RunOutcome:
    """How a grading run ended: lines for the user and the report (the money), and the
    sequential plan when it ran --until-decided."""

    notes: list[str]
    plan: Plan | None = None


@dataclass(frozen=True)
class GradeTask:
    """One game of a grading run: the prompt variant the LLM plays, the deal's seed and the
    LLM's seat (1 or 2)."""

    variant: str
    seed: int
    seat: int

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "seed": self.seed, "seat": self.seat}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> GradeTask:
        return GradeTask(str(obj["variant"]), int(obj["seed"]), int(obj["seat"]))


def variant_names(variants: list[str]) -> list[str]:
    """The variants a run plays: every variant is compared with the baseline, and the null
    variant (the baseline under another name) shows the noise floor, so both are always
    played."""
    return list(dict.fromkeys([BASELINE, *variants, NULL_VARIANT]))


def schedule(names: list[str], deals: int, seed: int) -> list[GradeTask]:
    """A grading run's games in playing order: deal by deal (seeds seed, seed+1, ...), every
    variant at each, from both seats."""
    return [GradeTask(v, seed + d, seat) for d in range(deals) for v in names
            for seat in (1, 2)]


def holders(names: list[str]) -> list[str]:
    """The variants whose undecided test keeps an --until-decided run going: every variant
    but the baseline and the null one, or the null one when there is no other."""
    real = [n for n in names if n not in (BASELINE, NULL_VARIANT)]
    return real or [NULL_VARIANT]


def folder_plan(folder: Path, names: list[str], deals: int, look_every: int, seed: int) -> Plan:
    """The sequential plan of this folder: written by its first --until-decided run, and the
    same for every later one (another design would spend alpha twice)."""
    design = Design(deals, look_every, comparisons=len(holders(names)))
    record = {**design.to_json(), "seed": seed, "variants": names}
    path = folder / DESIGN_FILE
    if path.exists():
        try:
            before = json.loads(path.read_text())
        except ValueError:
            before = None
        if before != record:
            raise UsageError(f"{path} records another --until-decided design ({before}); this "
                             f"run's is {record}: use the same --variants, --deals, --seed and "
                             "--look-every, or grade into another --out")
    else:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record) + "\n")
    return Plan(design, seed, names)
