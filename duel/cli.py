"""The `duel` console command: one entry point for everything a user runs."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from duel.engine import DuelError, new_game, seat_view


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def _dump(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def cmd_new(args: argparse.Namespace) -> int:
    state = new_game(args.seed, open_box=not args.hidden_box)
    _dump(seat_view(state))
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    from duel.io import load_state, read_json

    state = load_state(read_json(args.state), args.seed)
    _dump([{**m.to_json(), "price": p} for m, p in state.priced_moves()])
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    from duel.io import load_move, load_state, read_json

    state = load_state(read_json(args.state), args.seed)
    move = load_move(read_json(args.move))
    _dump(seat_view(state.apply(move)))
    return 0


def cmd_random_game(args: argparse.Namespace) -> int:
    from duel.narrate import move_line, result_lines

    state = new_game(args.seed)
    deal = state.deal
    rng = random.Random(args.seed)
    record: list[dict[str, Any]] = []
    lines: list[str] = []
    while not state.is_terminal():
        move = rng.choice(state.legal_moves())
        player = state.current_player
        after = state.apply(move)
        record.append({"player": player, **move.to_json()})
        lines.append(move_line(len(record), state, move, after))
        state = after
    if args.json:
        _dump({"deal": deal.to_json(), "moves": record, "result": state.result()})
    else:
        print(f"Random game, seed {args.seed} (code {state.code}), {len(record)} moves")
        print("\n".join(lines))
        print("\n".join(result_lines(state)))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "engine":
        from duel.bench import bench_engine

        r = bench_engine(args.seconds)
        print(f"{r['play_games_per_s']:.0f} games/s, {r['play_moves_per_s']:.0f} moves/s "
              "(random vs random, one core, in-place play)")
        print(f"{r['apply_games_per_s']:.0f} games/s, {r['apply_moves_per_s']:.0f} moves/s "
              "(checked apply, a new state per move)")
        return 0
    raise UsageError(f"unknown benchmark {args.what!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="duel", description="7 Wonders Duel for LLM agents, "
                                     "MCTS and external bots.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("new", help="the initial state (JSON) as player 1 sees it")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--hidden-box", action="store_true",
                   help="hide the boxed tokens and undrafted wonders (open box is the default)")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("moves", help="legal moves of a JSON state, each with its price")
    p.add_argument("state", help="a prompt-format state file, or - for stdin")
    p.add_argument("--seed", type=int, default=0, help="seed for sampling hidden cards")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("apply", help="apply a move to a JSON state; prints the next state")
    p.add_argument("state")
    p.add_argument("move")
    p.add_argument("--seed", type=int, default=0,
                   help="seed for sampling the hidden cards the move reveals")
    p.set_defaults(func=cmd_apply)

    p = sub.add_parser("random-game", help="play a seeded random game and summarise it")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="deal, moves and result as JSON")
    p.set_defaults(func=cmd_random_game)

    p = sub.add_parser("bench", help="benchmarks (figures, not tests)")
    p.add_argument("what", choices=["engine"])
    p.add_argument("--seconds", type=float, default=6.0)
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (DuelError, UsageError) as exc:
        print(f"duel {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
