"""`duel train dqn`: train the masked deep-Q network (the `train` extra)."""

from __future__ import annotations

import argparse
from pathlib import Path

from duel.cli.options import integer, seed
from duel.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from duel.rl.config import Config  # no torch needed: the defaults of the shipped model's run

    run = Config()
    p = sub.add_parser("train", help="train a learning agent (needs the train extra)")
    p.add_argument("algorithm", choices=["dqn"])
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
    p.add_argument("--eval-games", type=integer, default=run.eval_games,
                   help="greedy games per evaluation")
    p.add_argument("--hidden", type=integer, default=run.hidden,
                   help="width of the state embedding")
    p.add_argument("--jobs", type=integer, default=run.jobs,
                   help="processes for the teacher's games")
    p.add_argument("--seed", type=seed, default=run.seed)
    p.add_argument("--out", required=True, help="run folder (resumed if it has a checkpoint)")
    p.add_argument("--restart", action="store_true", help="ignore an existing checkpoint")
    p.set_defaults(func=train)


def train(args: argparse.Namespace) -> int:
    from duel.agents.spec import make_agent

    try:
        from duel.rl.dqn import Config
        from duel.rl.dqn import train as run_training
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
