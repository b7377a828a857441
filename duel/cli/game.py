"""`duel new`, `moves`, `apply`, `random-game`, `match`, `agents` and `prompts`: one state, one
game, the agents and prompts on offer."""

from __future__ import annotations

import argparse
import random
from typing import Any

from duel.cli.options import add_seed, add_stop_after, dump, integer, stop_after_option
from duel.engine import SEATS, Perspective, new_game, seat_view
from duel.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("new", help="the initial state (JSON) as player 1 sees it")
    add_seed(p, None)
    p.add_argument("--hidden-box", action="store_true",
                   help="hide the boxed tokens and undrafted wonders (open box is the default)")
    p.set_defaults(func=new)

    p = sub.add_parser("moves", help="legal moves of a JSON state, each with its price")
    p.add_argument("state", help="a prompt-format state file, or - for stdin")
    add_seed(p, 0, "seed for sampling hidden cards")
    p.set_defaults(func=moves)

    p = sub.add_parser("apply", help="apply a move to a JSON state; prints the next state")
    p.add_argument("state")
    p.add_argument("move")
    add_seed(p, 0, "seed for sampling the hidden cards the move reveals")
    p.set_defaults(func=apply)

    p = sub.add_parser("random-game", help="play a seeded random game and summarise it")
    add_seed(p)
    p.add_argument("--json", action="store_true", help="deal, moves and result as JSON")
    p.set_defaults(func=random_game)

    p = sub.add_parser("match", help="play one game and print it move by move")
    p.add_argument("--p1", default="mcts:time=1", help="agent spec of player 1")
    p.add_argument("--p2", default="rule", help="agent spec of player 2")
    add_seed(p)
    p.add_argument("--hidden-box", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="print agents' details")
    p.add_argument("--transcript", default=None,
                   help="transcript file (default: transcripts/DATE-CODE.jsonl)")
    p.add_argument("--no-transcript", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no live status line while an LLM seat thinks")
    p.add_argument("--analyse", action="store_true",
                   help="then grade both players' decisions (duel analyse)")
    p.add_argument("--analyse-iterations", type=integer, default=None, metavar="N",
                   help="with --analyse: iterations per decision (default: duel analyse's)")
    add_stop_after(p)
    p.set_defaults(func=match)

    p = sub.add_parser("agents", help="the agent specs and their parameters")
    p.set_defaults(func=agents)

    p = sub.add_parser("prompts", help="prompt variants: list, or show one rendered")
    p.add_argument("action", choices=["list", "show"])
    p.add_argument("name", nargs="?")
    p.set_defaults(func=prompts)


def new(args: argparse.Namespace) -> int:
    dump(seat_view(new_game(args.seed, open_box=not args.hidden_box)))
    return 0


def moves(args: argparse.Namespace) -> int:
    from duel.io import load_state, read_json

    state = load_state(read_json(args.state), args.seed)
    dump([{**m.to_json(), "price": p} for m, p in state.priced_moves()])
    return 0


def apply(args: argparse.Namespace) -> int:
    from duel.io import load_move, load_state, read_json

    state = load_state(read_json(args.state), args.seed)
    dump(seat_view(state.apply(load_move(read_json(args.move)))))
    return 0


def random_game(args: argparse.Namespace) -> int:
    from duel.words.narrate import numbered_line, result_lines

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
        lines.append(numbered_line(len(record), state, move, after))
        state = after
    if args.json:
        result = state.result()
        assert result is not None
        dump({"deal": deal.to_json(), "moves": record, "result": result.to_json()})
    else:
        print(f"Random game, seed {args.seed} (code {state.code}), {len(record)} moves")
        print("\n".join(lines))
        print("\n".join(result_lines(state)))
    return 0


def match(args: argparse.Namespace) -> int:
    from duel.accounting.games import llm_totals, totals_line
    from duel.agents.spec import make_agent
    from duel.cli.status import match_status
    from duel.match import play_match
    from duel.transcripts import default_path
    from duel.words.narrate import details_lines, llm_lines, numbered_line, result_lines

    if args.analyse and args.no_transcript:
        raise UsageError("--analyse analyses the game's transcript: drop --no-transcript")
    if args.analyse:
        from duel.cli.analyse import after_match, settings_of

        settings = settings_of(args.analyse_iterations)  # bad values fail before play
    stop_after_option(args)
    agents = make_agent(args.p1), make_agent(args.p2)
    print(f"Match, seed {args.seed}: player 1 = {args.p1}, player 2 = {args.p2}")
    state = new_game(args.seed, open_box=not args.hidden_box)
    path = None if args.no_transcript else (args.transcript or default_path(state.code))

    def show(record: Any, before: Any, after: Any) -> None:
        if record.is_forfeit:
            return  # the result line says who resigned
        line = numbered_line(record.ply, before, record.move, after)
        llm = record.details.get("llm")
        if args.verbose and llm:
            line += "".join(f"\n       {text}" for text in llm_lines(llm))
        elif args.verbose and record.details:
            line += "".join(f"\n       {text}" for text in details_lines(before, record.details))
        print(line, flush=True)

    with match_status(agents, quiet=args.quiet):
        result = play_match(agents[0], agents[1], seed=args.seed, deal=state.deal,
                            open_box=not args.hidden_box, on_move=show, transcript=path)
    if result.forfeit is not None:
        print(f"Result: {result.result.describe()}")
    else:
        print("\n".join(result_lines(result.final)))
    print(f"{len(result.records)} moves in {result.seconds:.1f} s")
    for seat, account in zip(SEATS, result.accounts().values(), strict=True):
        if not account.clean:  # whose moves these were
            print(f"Player {seat.player}'s moves: {account.line()}")
    for seat in SEATS:
        totals = llm_totals(r.details for r in result.records if r.seat is seat)
        if totals:
            print(totals_line(seat.player, totals))
    if result.transcript is not None:
        print(f"Transcript: {result.transcript} (duel replay {result.transcript})")
        if args.analyse:
            after_match(result.transcript, settings)
    return 0


def agents(args: argparse.Namespace) -> int:
    from duel.agents.spec import describe_kinds

    print(describe_kinds())
    return 0


def prompts(args: argparse.Namespace) -> int:
    from duel.prompts import get_variant, variants

    if args.action == "list":
        for v in variants().values():
            print(f"{v.name:12} {v.hash}  ~{v.token_estimate():,} tokens  {v.description}")
        return 0
    if not args.name:
        raise UsageError("prompts show needs a variant name")
    v = get_variant(args.name)
    print(f"# {v.name} (hash {v.hash}, ~{v.token_estimate():,} tokens by a 4-characters-per-token "
          f"estimate)\n# {v.description}\n")
    print(v.system)
    print("\n# --- each turn's message, for the initial state ---\n")
    state = new_game(0)
    print(v.turn_message(Perspective.to_move(state).view(state), state.priced_moves()))
    return 0
