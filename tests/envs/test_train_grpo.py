"""`duel train grpo` (issue 40, item 5): TRL's real GRPOTrainer on a positions dataset and on
whole games, offline on CPU with a tiny random model saved as a transformers folder (the --model
a user gives); the held-out figures before and after, a checkpoint and the final model written.
And the dataset as Arrow gives it: a move read back from `datasets` carries every move kind's
fields (the absent ones None), and the reward must score it as the row it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.suites import make_suite

from duel.cli import main
from duel.envs.grpo import GrpoSettings, positions_dataset, split, text_position_reward
from duel.envs.positions import REFUSED, export, position_reward, rows
from duel.errors import UsageError


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ds")
    path, _ = make_suite(folder / "suite", per_kind=3)
    export(path, folder / "ds")
    return folder / "ds"


def _answers(table: list[dict]) -> list[str]:
    """Per row: the best move, the worst, and a refused reply, in turn."""
    out = []
    for i, r in enumerate(table):
        worst = min(r["values"], key=lambda v: v["value"])["move"]
        out.append([json.dumps(r["best"]), json.dumps(worst), "no move"][i % 3])
    return out


def test_the_reward_reads_the_dataset_as_datasets_loads_it(dataset: Path) -> None:
    datasets = pytest.importorskip("datasets")
    table = [json.loads(x) for x in (dataset / "positions.jsonl").read_text().splitlines()]
    loaded = datasets.load_dataset("json", data_files=str(dataset / "positions.jsonl"))["train"]
    kinds = {r["legal"][0]["move"] for r in table}
    assert len(kinds) > 1  # moves of several kinds: Arrow merges their fields
    answers = _answers(table)
    want = position_reward(answers, **{k: [r[k] for r in table]
                                       for k in ("legal", "values", "prompt_variant", "harness")})
    columns = {k: loaded[k] for k in ("legal", "values", "prompt_variant", "harness")}
    assert position_reward(answers, **columns) == want
    assert any(w == 0.0 for w in want) and any(w == -REFUSED for w in want) \
        and any(-REFUSED < w < 0 for w in want)
    # ... and the trainer's own dataset (moves kept as JSON text) scores alike.
    ours = positions_dataset(table)
    assert text_position_reward(answers, **{k: ours[k] for k in ours.column_names
                                            if k != "prompt"}) == want


def test_bad_runs_are_refused_in_one_line(dataset: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "run")
    assert main(["train", "grpo", "--positions", str(dataset), "--batch", "3",
                 "--generations", "2", "--out", out]) == 2
    assert "--batch (3) must be a multiple of --generations (2)" in capsys.readouterr().err
    assert main(["train", "grpo", "--positions", str(tmp_path / "nothing"), "--out", out]) == 2
    assert "no positions.jsonl here" in capsys.readouterr().err
    assert main(["train", "grpo", "--opponent", "nosuchagent", "--out", out]) == 2
    assert "nosuchagent" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: one of the two forms
        main(["train", "grpo", "--positions", str(dataset), "--opponent", "random",
              "--out", out])
    with pytest.raises(UsageError, match="leave some to train on"):
        split(rows_of(dataset), 10_000, 0)
    with pytest.raises(UsageError, match="one of them"):
        GrpoSettings(out=tmp_path).check()
    assert not (tmp_path / "run").exists()  # nothing loaded, nothing written


def rows_of(dataset: Path) -> list[dict]:
    return [json.loads(x) for x in (dataset / "positions.jsonl").read_text().splitlines()]


def _tiny(tmp_path: Path, dataset: Path) -> Path:
    pytest.importorskip("trl", reason="the trl extra is not installed (pip install duel[trl])")
    from helpers.tiny_lm import save_tiny

    corpus = [m["content"] for r in rows_of(dataset)[:3] for m in r["prompt"]]
    return save_tiny(tmp_path / "tiny", corpus)


@pytest.mark.slow
def test_grpo_on_positions_with_held_out_figures(dataset: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    model = _tiny(tmp_path, dataset)
    out = tmp_path / "run"
    assert main(["train", "grpo", "--positions", str(dataset), "--model", str(model),
                 "--steps", "2", "--generations", "2", "--batch", "2",
                 "--completion-tokens", "8", "--held-out-n", "2", "--learning-rate", "1e-3",
                 "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "before (2 held-out positions): first-try legal" in said
    assert "after  (2 held-out positions): first-try legal" in said
    record = json.loads((out / "grpo.json").read_text())
    assert record["form"] == "positions" and len(record["rewards"]) == 2
    assert record["train_positions"] == len(rows(dataset_suite(dataset))) - 2
    # A random model names no move: every answer refused, before and after.
    assert record["before"]["rewards"] == [-REFUSED, -REFUSED]
    assert all(r == pytest.approx(-REFUSED) for r in record["rewards"])
    assert (out / "checkpoint-2" / "model.safetensors").exists()
    assert (out / "final" / "config.json").exists()


def dataset_suite(dataset: Path) -> Path:
    return dataset.parent / "suite" / "suite.json"


@pytest.mark.slow
def test_grpo_on_whole_games(dataset: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    model = _tiny(tmp_path, dataset)
    out = tmp_path / "run"
    assert main(["train", "grpo", "--opponent", "random", "--model", str(model),
                 "--steps", "1", "--generations", "2", "--batch", "2", "--games", "2",
                 "--completion-tokens", "8", "--tool-rounds", "2", "--held-out-n", "0",
                 "--out", str(out)]) == 0
    record = json.loads((out / "grpo.json").read_text())
    # A random model calls no tool: each game unfinished, its rollout's reward -1.
    assert record["form"] == "games" and record["rewards"] == [pytest.approx(-1.0)]
    assert (out / "final" / "config.json").exists()
    assert "1 GRPO step (2 completions each)" in capsys.readouterr().out
