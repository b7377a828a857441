"""`duel train dqn`: train the masked deep-Q network; `duel train guide`: the network guiding
the search (duel/cli/guide.py). Both need the `train` extra."""

from __future__ import annotations

import argparse
from pathlib import Path

from duel.cli.options import integer, seed
from duel.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from duel.rl.config import Config  # no torch needed: the defaults of the shipped model's run

    run = Config()
    p = sub.add_parser("train", help="train a learning agent (needs the train extra)")
    p.add_argument("algorithm", choices=["dqn", "guide"],
                   help="dqn: the masked deep-Q agent; guide: the network guiding the search "
                   "(mcts:guide=MODEL, docs/guide.md)")
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
    p.set_defaults(func=train)


def train(args: argparse.Namespace) -> int:
    if args.algorithm == "guide":
        from duel.cli.guide import run_train

        return run_train(args)
    from duel.agents.spec import make_agent
    from duel.rl.config import Config as Defaults

    if args.jobs is None:
        args.jobs = Defaults().jobs
    if args.eval_games is None:
        args.eval_games = Defaults().eval_games

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
