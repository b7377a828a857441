"""`duel train grpo`: GRPO with TRL's `GRPOTrainer` on duel, in two forms, and the held-out figures
that say whether it helped.

- **positions** (single-turn, no search at training time): each dataset row of
  `duel positions export` is one prompt, and `position_reward` scores a completion by the value
  of the move it names (duel.envs.positions), as chess-puzzle training does.
- **games** (multi-turn): each rollout a whole game against an opponent spec through
  `DuelToolEnv` (duel.envs.trl), its reward the environment's mix, summed.

The model is a Hugging Face model folder or id, a GGUF file, or ``local``: the shipped local
model's GGUF file (Qwen2.5-Coder-0.5B-Instruct), which `transformers` loads (dequantised to 32-bit
floats) with `gguf_file=`, so there is a real model to train offline. Before and after training
the model answers held-out positions greedily (no sampling, so the two figures differ by the
training only): its first-try legality (a share, Wilson 95% interval) and mean position reward
(bootstrap 95% interval), n given. Both need the `trl` extra (torch, transformers, trl,
datasets, gguf)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from duel.envs.positions import REFUSED, ROWS, position_reward, score
from duel.errors import UsageError
from duel.stats import bootstrap_ci, mean, wilson

INSTALL = "duel train grpo needs the trl extra: pip install -e '.[trl]'"


@dataclass(frozen=True)
class GrpoSettings:
    """One run's settings (the CLI's flags)."""

    out: Path
    model: str = "local"
    positions: Path | None = None  # a `duel positions export` folder: single-turn
    opponent: str | None = None  # an agent spec: multi-turn games against it
    reward: str = "outcome+legal"  # the games' reward mix (duel.envs.rewards)
    steps: int = 10
    generations: int = 4  # completions per prompt (a GRPO group)
    batch: int = 4  # completions per step: a multiple of `generations`
    completion_tokens: int = 96
    learning_rate: float = 1e-6
    seed: int = 0
    games: int = 64  # deals in the games' dataset (seeds seed..seed+games-1)
    tool_rounds: int = 60  # tool calls a game's rollout may make
    held_out: Path | None = None  # positions answered before and after training
    held_out_n: int = 20
    use_cpu: bool = True
    extra: dict[str, Any] = field(default_factory=dict)  # more GRPOConfig fields

    def check(self) -> None:
        if (self.positions is None) == (self.opponent is None):
            raise UsageError("duel train grpo: give --positions DATASET (single-turn) or "
                             "--opponent SPEC (whole games), one of them")
        for name in ("steps", "generations", "batch", "completion_tokens", "games",
                     "tool_rounds"):
            if getattr(self, name) < 1:
                raise UsageError(f"duel train grpo: --{name.replace('_', '-')} must be at "
                                 f"least 1, got {getattr(self, name)}")
        if self.batch % self.generations:
            raise UsageError(f"duel train grpo: --batch ({self.batch}) must be a multiple of "
                             f"--generations ({self.generations}): a step holds whole groups")
        if self.generations < 2:
            raise UsageError("duel train grpo: --generations must be at least 2 (GRPO compares "
                             "the completions of one prompt)")
        if self.held_out_n < 0:
            raise UsageError(f"duel train grpo: --held-out-n must be >= 0, got "
                             f"{self.held_out_n}")
        if not self.learning_rate > 0:
            raise UsageError(f"duel train grpo: --learning-rate must be > 0, got "
                             f"{self.learning_rate}")


@dataclass(frozen=True)
class HeldOut:
    """A model's answers to held-out positions, greedy."""

    n: int
    legal: int  # answers the LLM seat would accept at the first try
    rewards: tuple[float, ...]

    @property
    def legal_share(self) -> float:
        return self.legal / self.n if self.n else 0.0

    def line(self, label: str) -> str:
        lo, hi = wilson(self.legal, self.n)
        m = mean(list(self.rewards)) if self.rewards else 0.0
        rlo, rhi = bootstrap_ci(list(self.rewards)) if len(self.rewards) > 1 else (m, m)
        return (f"{label}: first-try legal {self.legal}/{self.n} = {self.legal_share:.0%} "
                f"(95% CI {lo:.0%}-{hi:.0%}); mean position reward {m:+.3f} (95% CI "
                f"{rlo:+.3f} to {rhi:+.3f}; -{REFUSED:g} a refused answer, 0 the best move)")

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "first_try_legal": self.legal, "rewards": list(self.rewards)}


def read_rows(folder: Path) -> list[dict[str, Any]]:
    """The rows of a `duel positions export` folder (or its positions.jsonl)."""
    path = folder / ROWS if folder.is_dir() else folder
    if not path.is_file():
        raise UsageError(f"{folder}: no {ROWS} here; write one with duel positions export")
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
        missing = [k for k in ("prompt", "legal", "values") if k not in row]
        if missing:
            raise UsageError(f"{path}:{number}: a positions row needs {', '.join(missing)}")
        out.append(row)
    if not out:
        raise UsageError(f"{path}: no positions")
    return out


def load_model(spec: str) -> tuple[Any, Any]:
    """(model, tokenizer) of `spec`: ``local``, a .gguf file, or a model folder or id."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError:
        raise UsageError(INSTALL) from None
    kwargs: dict[str, Any] = {}
    source = spec
    if spec == "local" or spec.endswith(".gguf"):
        if spec == "local":
            from duel.agents.llm.servers.model_source import model_path

            path = model_path()
        else:
            path = Path(spec)
            if not path.is_file():
                raise UsageError(f"--model {spec}: no such GGUF file")
        source, kwargs = str(path.parent), {"gguf_file": path.name}
    elif Path(spec).exists() and not Path(spec, "config.json").exists():
        raise UsageError(f"--model {spec}: a folder without config.json is no model")
    tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32, **kwargs)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def answer(model: Any, tokenizer: Any, prompt: list[dict[str, str]], tokens: int) -> str:
    """The model's greedy reply to a chat prompt."""
    import torch

    ids = tokenizer.apply_chat_template(prompt, add_generation_prompt=True,
                                        return_tensors="pt")
    if not isinstance(ids, torch.Tensor):  # newer tokenizers return a BatchEncoding
        ids = ids["input_ids"]
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=tokens,
                             do_sample=False, pad_token_id=tokenizer.pad_token_id)
    text: str = tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)
    return text


def held_out(model: Any, tokenizer: Any, rows: Sequence[dict[str, Any]], tokens: int
             ) -> HeldOut:
    """Greedy answers to `rows`, scored as the position reward scores them."""
    rewards = []
    for row in rows:
        text = answer(model, tokenizer, row["prompt"], tokens)
        rewards.append(score(text, row["legal"], row["values"],
                             row.get("prompt_variant") or "baseline", row.get("harness") or {}))
    return HeldOut(len(rows), sum(1 for r in rewards if r != -REFUSED), tuple(rewards))


def positions_dataset(rows: Sequence[dict[str, Any]]) -> Any:
    """The training rows as a `datasets.Dataset`: the prompt, and the columns the position
    reward reads (legal moves and values as JSON text, so that Arrow's merging of the move
    kinds' fields cannot change a move)."""
    from datasets import Dataset

    return Dataset.from_dict({
        "prompt": [r["prompt"] for r in rows],
        "legal": [json.dumps(r["legal"]) for r in rows],
        "values": [json.dumps(r["values"]) for r in rows],
        "prompt_variant": [r.get("prompt_variant") or "baseline" for r in rows],
        "harness": [json.dumps(r.get("harness") or {}) for r in rows]})


def text_position_reward(completions: Sequence[Any], **columns: Any) -> list[float]:
    """`position_reward` over the JSON-text columns of :func:`positions_dataset`."""
    return position_reward(
        completions, legal=[json.loads(x) for x in columns["legal"]],
        values=[json.loads(x) for x in columns["values"]],
        prompt_variant=columns.get("prompt_variant"),
        harness=[json.loads(x) for x in columns.get("harness") or ["{}"] * len(completions)])


def split(rows: list[dict[str, Any]], held: int, seed: int
          ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(training rows, held-out rows): `held` rows drawn with `seed`, the rest to train on."""
    if held >= len(rows):
        raise UsageError(f"--held-out-n {held}: the dataset has {len(rows)} positions; leave "
                         "some to train on, or give --held-out DATASET")
    order = list(range(len(rows)))
    random.Random(f"duel-grpo:{seed}").shuffle(order)
    out = set(order[:held])
    return ([r for i, r in enumerate(rows) if i not in out],
            [r for i, r in enumerate(rows) if i in out])


def trainer_for(s: GrpoSettings, model: Any, tokenizer: Any,
                train_rows: Sequence[dict[str, Any]]) -> Any:
    """TRL's GRPOTrainer for the run."""
    import importlib

    try:
        from datasets import Dataset

        trl: Any = importlib.import_module("trl")  # its names are lazily exported, untyped
    except ImportError:
        raise UsageError(INSTALL) from None
    config = trl.GRPOConfig(
        output_dir=str(s.out), max_steps=s.steps, per_device_train_batch_size=s.batch,
        num_generations=s.generations, max_completion_length=s.completion_tokens,
        learning_rate=s.learning_rate, logging_steps=1, save_steps=s.steps, report_to=[],
        use_cpu=s.use_cpu, bf16=False, seed=s.seed, dataloader_num_workers=0,
        **({"max_tool_calling_iterations": s.tool_rounds} if s.opponent else {}), **s.extra)
    if s.opponent is not None:
        from duel.envs.trl import DuelToolEnv

        data = Dataset.from_dict({"prompt": [[{"role": "user", "content": ""}]] * s.games,
                                  "seed": list(range(s.seed, s.seed + s.games))})
        factory = partial(DuelToolEnv, opponent=s.opponent, reward=s.reward,
                          transcripts=s.out / "games")
        # No reward function: TRL takes an environment's get_reward as its reward (weight 1).
        return trl.GRPOTrainer(model=model, args=config, processing_class=tokenizer,
                               reward_funcs=None, train_dataset=data,
                               environment_factory=factory)
    return trl.GRPOTrainer(model=model, args=config, processing_class=tokenizer,
                           reward_funcs=text_position_reward,
                           train_dataset=positions_dataset(train_rows))


def train(s: GrpoSettings, say: Any = print) -> dict[str, Any]:
    """Train, with the held-out figures before and after; the run's record (also written to
    ``OUT/grpo.json``)."""
    s.check()
    if s.opponent is not None:
        from duel.agents.spec import make_agent

        make_agent(s.opponent)  # a bad spec is refused before the model loads
        from duel.envs.rewards import Mix

        Mix.parse(s.reward)
    rows = read_rows(s.positions) if s.positions is not None else []
    if s.held_out is not None:
        held = read_rows(s.held_out)[:s.held_out_n]
    elif rows and s.held_out_n:
        rows, held = split(rows, s.held_out_n, s.seed)
    else:
        held = []
    model, tokenizer = load_model(s.model)
    record: dict[str, Any] = {"model": s.model, "steps": s.steps,
                              "form": "games" if s.opponent else "positions",
                              "train_positions": len(rows)}
    if held:
        before = held_out(model, tokenizer, held, s.completion_tokens)
        say(before.line(f"before ({len(held)} held-out positions)"))
        record["before"] = before.to_json()
    trainer = trainer_for(s, model, tokenizer, rows)
    trainer.train()
    logs = [e for e in trainer.state.log_history if "reward" in e]
    record["rewards"] = [e["reward"] for e in logs]
    steps = f"{len(logs)} GRPO step{'' if len(logs) == 1 else 's'}"
    say(f"{steps} ({s.batch} completions each); the training reward by step: "
        + ", ".join(f"{r:+.3f}" for r in record["rewards"]))
    if held:
        after = held_out(trainer.model, tokenizer, held, s.completion_tokens)
        say(after.line(f"after  ({len(held)} held-out positions)"))
        record["after"] = after.to_json()
    final = s.out / "final"
    trainer.save_model(str(final))
    tokenizer.save_pretrained(str(final))
    record["saved"] = str(final)
    (s.out / "grpo.json").write_text(json.dumps(record, indent=1) + "\n")
    say(f"model: {final} (a transformers folder); record: {s.out / 'grpo.json'}")
    return record
