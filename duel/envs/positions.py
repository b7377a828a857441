"""Decision positions as a training set, and a reward that needs no search at training time.

`export(suite, out)` writes a position suite (duel.grading.positions: decisions of real games,
each valued move by move by the analyser when the suite was extracted) as a Hugging Face
`datasets`-loadable folder: ``positions.jsonl`` (``datasets.load_dataset("json",
data_files=...)``), one row a position, and ``README.md``, its card. A row holds the seat's
prompt exactly as the LLM seat would send it under the chosen prompt and harness (``prompt``:
chat messages, system first; duel.envs.seat, the one prompt writer), the legal moves, the
analyser's value of every legal move with its standard error, visits and iterations, the best
move, and the source game (transcript and its SHA-256) and ply.

`position_reward(completions, **columns)` has TRL's reward signature: it scores each completion
by the value of the move it names, read off its row (``values``): minus the move's loss (the
analyser's best move's value minus its value, never below 0, as the analyser's loss per decision
is defined: 0 for the best move), and minus `REFUSED` for a completion
the LLM seat would refuse (no JSON object, malformed, not a legal move). Parsing is the LLM
seat's own reply check, so what the reward accepts is what a game accepts. Single-turn GRPO on
duel decisions, as chess-puzzle training does.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from duel.agents.attempts import Verdict
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.framing import turn as framing
from duel.agents.llm.providers import Reply
from duel.engine import InvalidMoveError, Move
from duel.envs.seat import Decider, framework_seat
from duel.errors import SpecError, UsageError
from duel.util.files import atomic_write

REFUSED = 1.0  # the reward's penalty for a completion the LLM seat would refuse: the worst loss
ROWS = "positions.jsonl"
# Harness settings an export cannot render from a position alone: they need the game's moves
# (history, notes) or images.
UNRENDERED = ("history", "notes", "image", "tools")


def rows(suite_path: str | Path, prompt: str = "baseline",
         harness: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The dataset's rows for the suite at `suite_path` (checked against the engine on load)."""
    import hashlib

    from duel.grading.positions.suite import load

    harness = dict(harness or {})
    for key in UNRENDERED:
        if harness.get(key, "off") not in ("off", "none", ""):
            raise SpecError(f"positions export: {key}= needs the game's moves or pictures, "
                            "which a position alone does not have; export without it")
    suite = load(suite_path)
    seat = framework_seat(prompt=prompt, harness=harness)
    out = []
    for p in suite.positions:
        d = Decider(seat, p.view, list(p.legal), random.Random(0))
        chat = d.prompt.chat()
        iterations = p.analysis.get("ran") or p.analysis.get("iterations")
        out.append({
            "id": p.id, "prompt": chat, "prompt_variant": seat.variant.name,
            "prompt_hash": seat.variant.hash, "harness": harness,
            "step": p.step, "age": p.age, "kind": p.kind,
            "legal": [m.to_json() for m in p.legal],
            "values": [{**v.to_json(), "iterations": iterations} for v in p.values],
            "best": p.best.move.to_json(), "best_value": p.best.value, "gap": p.gap,
            "source_transcript": p.source.get("transcript"),
            "source_sha256": p.source.get("sha256"), "ply": p.source.get("ply"),
            "player": p.source.get("player"),
            "suite_sha256": hashlib.sha256(Path(suite_path).read_bytes()).hexdigest()})
    return out


def export(suite_path: str | Path, out: str | Path, prompt: str = "baseline",
           harness: dict[str, str] | None = None) -> Path:
    """Write the dataset folder; its rows file's path."""
    found = rows(suite_path, prompt, harness)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ROWS
    atomic_write(path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in found))
    atomic_write(folder / "README.md", _card(Path(suite_path), len(found), prompt,
                                             harness or {}))
    return path


def _card(suite: Path, n: int, prompt: str, harness: dict[str, str]) -> str:
    label = ",".join(f"{k}={v}" for k, v in sorted(harness.items())) or "default"
    return (f"---\nconfigs:\n- config_name: default\n  data_files: {ROWS}\n---\n\n"
            f"# duel decision positions\n\n{n} positions of 7 Wonders Duel from `{suite.name}`, "
            f"each the prompt duel's LLM seat sends (prompt `{prompt}`, harness {label}) with "
            "the analyser's value of every legal move (expected score, win 1, draw 1/2, loss "
            "0). Load: `datasets.load_dataset(\"json\", data_files=\"positions.jsonl\")`. "
            "Reward: `duel.envs.positions.position_reward` (TRL's signature): minus the loss "
            f"of the move a completion names, {-REFUSED:g} for one the seat would refuse.\n")


@lru_cache(maxsize=32)
def _seat(prompt: str, harness: str) -> LLMAgent:
    return framework_seat(prompt=prompt, harness=json.loads(harness))


def completion_text(completion: Any) -> str:
    """A completion as TRL passes it: text, or a list of chat messages (the last one's)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    raise UsageError(f"a completion must be text or chat messages, got "
                     f"{type(completion).__name__}")


def score(text: str, legal: Sequence[dict[str, Any]], values: Sequence[dict[str, Any]],
          prompt: str = "baseline", harness: dict[str, str] | None = None) -> float:
    """One completion's reward: minus its move's loss, or minus REFUSED."""
    seat = _seat(prompt, json.dumps(_plain(harness or {}), sort_keys=True))
    reply = Reply(text=text, structured=None, finish_reason="stop")
    if seat.renaming is not None:
        reply = seat.renaming.incoming(reply)
    checked = seat._check(reply, 0)  # the LLM seat's own reading of a reply
    if isinstance(checked, Verdict):
        return -REFUSED
    if not seat.harness.is_default:  # reasoning in words, a note: the move is inside
        taken = checked if isinstance(checked, framing.Taken) else framing.take(seat.harness,
                                                                               checked)
        checked = taken.move
    try:
        move = Move.from_json(checked)
    except InvalidMoveError:
        return -REFUSED
    # A dataset loaded through Arrow gives every move all the move kinds' fields, the absent
    # ones None: a move is compared without them.
    by_move = {json.dumps(_plain(v["move"]), sort_keys=True): float(v["value"]) for v in values}
    key = json.dumps(move.to_json(), sort_keys=True)
    if key not in by_move or move.to_json() not in [_plain(m) for m in legal]:
        return -REFUSED
    # The loss is the analyser's own (duel.analysis.decision): from its best move, the one
    # listed first (sequential halving's survivor), not the highest mean, which may belong to
    # a move dropped early on few iterations.
    return -round(max(0.0, float(values[0]["value"]) - by_move[key]), 4)


def _plain(obj: Any) -> Any:
    """`obj` without its None-valued keys, at every depth."""
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items() if v is not None}
    return obj


def position_reward(completions: Sequence[Any], **columns: Any) -> list[float]:
    """TRL's reward function over a batch: each completion scored against its row's `legal`
    and `values` (and the `prompt_variant` and `harness` it was rendered with)."""
    n = len(completions)
    legal = columns.get("legal")
    values = columns.get("values")
    if legal is None or values is None or len(legal) != n or len(values) != n:
        raise UsageError("position_reward needs the dataset's legal and values columns, one "
                         "per completion")
    prompts = columns.get("prompt_variant") or ["baseline"] * n
    harnesses = columns.get("harness") or [{}] * n
    return [score(completion_text(c), legal[i], values[i], prompts[i], harnesses[i] or {})
            for i, c in enumerate(completions)]
