"""TRL's real GRPOTrainer over duel's environment, offline on CPU: a tiny randomly initialised
Qwen2 model and a byte-level BPE tokenizer trained here on the seat's own prompt (no hub
download), Qwen2.5's chat template (TRL's copy: it parses the tool calls), 2 GRPO steps with
``environment_factory``. The rewards TRL logs are the environments' own and a checkpoint is
written. Skipped without the trl extra."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

trl = pytest.importorskip("trl", reason="the trl extra is not installed (pip install duel[trl])")

from helpers.tiny_lm import tiny_model, tiny_tokenizer  # noqa: E402

from duel.envs.trl import DuelToolEnv  # noqa: E402


@pytest.mark.slow
def test_two_grpo_steps_on_cpu_with_duel_s_environment(tmp_path: Path) -> None:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    factory = partial(DuelToolEnv, opponent="random", transcripts=tmp_path / "games")
    probe = factory()
    corpus = [probe.reset(seed=s) for s in range(3)] + [json.dumps(probe.infos)]
    tokenizer = tiny_tokenizer(corpus)
    seen: list[float] = []

    def env_rewards(completions: list[Any], environments: list[DuelToolEnv],
                    **_: Any) -> list[float]:
        """Reads the environments, as TRL hands them to a reward function."""
        seen.extend(e.get_reward() for e in environments)
        return [0.0 for _ in completions]

    # The seeds a group shares: GRPO compares completions of one deal.
    data = Dataset.from_dict({"prompt": [[{"role": "user", "content": ""}]] * 4,
                              "seed": [11, 11, 12, 12]})
    args = GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=2,
                      num_generations=2, max_completion_length=8, max_tool_calling_iterations=2,
                      learning_rate=1e-3, logging_steps=1, save_steps=2, report_to=[],
                      use_cpu=True, bf16=False, seed=0, dataloader_num_workers=0)
    trainer = GRPOTrainer(model=tiny_model(tokenizer), args=args, processing_class=tokenizer,
                          reward_funcs=env_rewards, train_dataset=data,
                          environment_factory=factory)
    trainer.train()
    logs = [e for e in trainer.state.log_history if "reward" in e]
    assert len(logs) == 2
    env_key = "rewards/DuelToolEnv/mean"
    assert all(env_key in e for e in logs), logs[0].keys()
    # A random model calls no tool: its games stay unfinished, each rollout -1 (get_reward).
    assert seen and all(r == pytest.approx(-1.0) for r in seen)
    assert all(e[env_key] == pytest.approx(-1.0) for e in logs)
    checkpoint = tmp_path / "out" / "checkpoint-2"
    assert (checkpoint / "model.safetensors").exists()
