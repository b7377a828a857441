"""`duel train dqn`: train the masked deep-Q network; `duel train guide`: the network guiding
the search (duel/cli/guide.py), both with the `train` extra; `duel train grpo`: an LLM with
TRL's GRPO on duel's positions or games (duel.envs.grpo; the `trl` extra)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from duel.cli.options import integer, real, seed
from duel.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from duel.learning.rl.config import (
        Config,  # no torch needed: the defaults of the shipped model's run
    )

    run = Config()
    top = sub.add_parser("train", help="train a learning agent (dqn, guide: the train extra) "
                         "or an LLM (grpo: the trl extra)")
    algorithms = top.add_subparsers(dest="algorithm", required=True)
    add_grpo_parser(algorithms)
    for name, text in (("dqn", "the masked deep-Q agent"),
                       ("guide", "the network guiding the search (mcts:guide=MODEL, "
                        "docs/guide.md)")):
        p = algorithms.add_parser(name, help=text)
        _learning_options(p, run)
        p.set_defaults(func=train, command_name=f"train {name}")


def _learning_options(p: argparse.ArgumentParser, run: Any) -> None:
    p.add_argument("--opponent", default=run.opponent,
                   help="agent spec the learner plays against")
    p.add_argument("--teacher", default=run.teacher,
                   help="agent spec whose play is distilled (MCTS: its root values)")
    p.add_argument("--episodes", type=integer, default=run.episodes,
                   help="RL episodes after pre-training (default %(default)s: they did not help "
                   "the shipped model)")
    p.add_argument("--demo-episodes", type=integer, default=run.demo_episodes,
                   help="teacher episodes")
    p.add_argument("--pretrain-steps", type=integer, default=run.pretrain_steps)
    p.add_argument("--eval-every", type=integer, default=run.eval_every,
                   help="RL episodes between evaluations")
    p.add_argument("--eval-games", type=integer, default=None,
                   help=f"games per evaluation (default dqn {run.eval_games} greedy games; "
                   f"guide: each net's search against the ISMCTS, 0: none)")
    p.add_argument("--hidden", type=integer, default=run.hidden,
                   help="width of the state embedding")
    p.add_argument("--jobs", type=integer, default=None,
                   help=f"processes for the self-play or teacher's games (default dqn "
                   f"{run.jobs}, guide 1)")
    p.add_argument("--seed", type=seed, default=run.seed)
    p.add_argument("--out", required=True, help="run folder (resumed if it has a checkpoint)")
    p.add_argument("--restart", action="store_true", help="ignore an existing checkpoint "
                   "(guide: train every net again; the self-play games are kept)")
    from duel.cli.guide import add_train_arguments

    add_train_arguments(p)


def add_grpo_parser(algorithms: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`duel train grpo`."""
    from duel.envs.grpo import GrpoSettings

    d = GrpoSettings(out=Path("."))
    p = algorithms.add_parser(
        "grpo", help="GRPO an LLM with TRL: single-turn on a positions dataset (--positions) "
        "or whole games against an opponent (--opponent); held-out figures before and after")
    p.add_argument("--model", default=d.model,
                   help="local (the shipped Qwen2.5-Coder-0.5B GGUF, loaded by transformers), a "
                   ".gguf file, or a Hugging Face model folder or id (default %(default)s)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--positions", type=Path, default=None, metavar="DATASET",
                      help="a duel positions export folder: each row a prompt, rewarded by "
                      "the value of the move a completion names (no search)")
    what.add_argument("--opponent", default=None, metavar="SPEC",
                      help="whole games against this agent, through DuelToolEnv's tools")
    p.add_argument("--reward", default=d.reward,
                   help="the games' reward mix (default %(default)s; docs/training.md)")
    p.add_argument("--steps", type=integer, default=d.steps, help="GRPO steps")
    p.add_argument("--generations", type=integer, default=d.generations,
                   help="completions per prompt, a group (default %(default)s)")
    p.add_argument("--batch", type=integer, default=d.batch,
                   help="completions per step, a multiple of --generations (default "
                   "%(default)s)")
    p.add_argument("--completion-tokens", type=integer, default=d.completion_tokens,
                   help="longest completion (default %(default)s)")
    p.add_argument("--learning-rate", type=real, default=d.learning_rate)
    p.add_argument("--games", type=integer, default=d.games,
                   help="--opponent: deals in the dataset (seeds from --seed)")
    p.add_argument("--tool-rounds", type=integer, default=d.tool_rounds,
                   help="--opponent: tool calls a game's rollout may make")
    p.add_argument("--held-out", type=Path, default=None, metavar="DATASET",
                   help="positions answered greedily before and after training (default: "
                   "--held-out-n rows drawn from --positions and left out of training)")
    p.add_argument("--held-out-n", type=integer, default=d.held_out_n,
                   help="held-out positions (default %(default)s; 0: none)")
    p.add_argument("--gpu", action="store_true", help="train on the GPU (default: the CPU)")
    p.add_argument("--seed", type=seed, default=d.seed)
    p.add_argument("--out", required=True, type=Path,
                   help="run folder: checkpoints, final/ (the model), grpo.json (the figures)")
    p.set_defaults(func=grpo, command_name="train grpo")


def grpo(args: argparse.Namespace) -> int:
    from duel.envs.grpo import GrpoSettings, train

    train(GrpoSettings(
        out=args.out, model=args.model, positions=args.positions, opponent=args.opponent,
        reward=args.reward, steps=args.steps, generations=args.generations, batch=args.batch,
        completion_tokens=args.completion_tokens, learning_rate=args.learning_rate,
        seed=args.seed, games=args.games, tool_rounds=args.tool_rounds, held_out=args.held_out,
        held_out_n=args.held_out_n, use_cpu=not args.gpu))
    return 0


def train(args: argparse.Namespace) -> int:
    if args.algorithm == "guide":
        from duel.cli.guide import run_train

        return run_train(args)
    from duel.agents.spec import make_agent
    from duel.learning.rl.config import Config as Defaults

    if args.jobs is None:
        args.jobs = Defaults().jobs
    if args.eval_games is None:
        args.eval_games = Defaults().eval_games

    try:
        from duel.learning.rl.dqn import Config
        from duel.learning.rl.dqn import train as run_training
    except ImportError as exc:
        raise UsageError(f"training needs PyTorch: pip install -e '.[train]' ({exc})") from None
    make_agent(args.opponent)  # a bad spec fails before any work
    make_agent(args.teacher)
    out = Path(args.out)
    cfg = Config(opponent=args.opponent, teacher=args.teacher, episodes=args.episodes,
                 demo_episodes=args.demo_episodes, pretrain_steps=args.pretrain_steps,
                 eval_every=args.eval_every, eval_games=args.eval_games, jobs=args.jobs,
                 seed=args.seed, hidden=args.hidden)
    trainer = run_training(cfg, out, resume=not args.restart)
    for point in trainer.curve:
        print(f"  after {point['episodes']:>6.0f} episodes: score rate vs {args.opponent} "
              f"{point['score_rate']:.3f} ({args.eval_games} greedy games)")
    print(f"model: {out / 'model.onnx'} (play it with --p1 dqn:{out / 'model.onnx'}); "
          f"curve: {out / 'learning_curve.png'}; checkpoint: {out / 'checkpoint.pt'}")
    return 0
