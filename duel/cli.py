"""The `duel` console command: one entry point for everything a user runs."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from duel.agents.spec import make_agent
from duel.engine import SEATS, new_game, seat_view
from duel.engine.perspective import Perspective
from duel.errors import DuelError as _DuelError
from duel.errors import TranscriptError, UsageError

GRADE_OPPONENT = "mcts:iterations=300"
GRADE_DEALS = 50


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
        result = state.result()
        assert result is not None
        _dump({"deal": deal.to_json(), "moves": record, "result": result.to_json()})
    else:
        print(f"Random game, seed {args.seed} (code {state.code}), {len(record)} moves")
        print("\n".join(lines))
        print("\n".join(result_lines(state)))
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from duel.match import play_match
    from duel.narrate import llm_lines, move_line, result_lines

    agents = make_agent(args.p1), make_agent(args.p2)

    def show(record: Any, before: Any, after: Any) -> None:
        if record.is_forfeit:
            return  # the result line says who resigned
        line = move_line(record.ply, before, record.move, after)
        llm = record.details.get("llm")
        if args.verbose and llm:
            line += "".join(f"\n       {text}" for text in llm_lines(llm))
        elif args.verbose and record.details:
            line += f"  {json.dumps(record.details)[:200]}"
        print(line, flush=True)

    from duel.engine import Deal
    from duel.transcripts import TranscriptWriter, default_path

    if args.analyse and args.no_transcript:
        raise UsageError("--analyse analyses the game's transcript: drop --no-transcript")
    if args.analyse:
        from duel.analysis.command import after_match, settings_of

        analyse_settings = settings_of(args.analyse_iterations)  # bad values fail before play
    print(f"Match, seed {args.seed}: player 1 = {args.p1}, player 2 = {args.p2}")
    state = new_game(args.seed, open_box=not args.hidden_box)
    writer = None
    if not args.no_transcript:
        path = args.transcript or default_path(state.code)
        writer = TranscriptWriter.for_match(path, args.seed, state.deal, agents,
                                            not args.hidden_box)

    def on_move(record: Any, before: Any, after: Any) -> None:
        if writer is not None:
            writer.record(record, before, after)
        show(record, before, after)

    deal: Deal = state.deal
    from duel.status import match_status

    try:
        with match_status(agents, quiet=args.quiet):
            result = play_match(agents[0], agents[1], seed=args.seed, deal=deal,
                                open_box=not args.hidden_box, on_move=on_move)
    finally:
        if writer is not None:
            writer.close()
    from duel.agents.llm.accounting import llm_totals, totals_line

    if result.forfeit is not None:
        print(f"Result: {result.result.describe()}")
    else:
        print("\n".join(result_lines(result.final)))
    print(f"{len(result.records)} moves in {result.seconds:.1f} s")
    for seat in SEATS:
        totals = llm_totals(r.details for r in result.records if r.seat is seat)
        if totals:
            print(totals_line(seat.player, totals))
    if writer is not None:
        writer.finish(result.result)
        print(f"Transcript: {writer.path} (duel replay {writer.path})")
        if args.analyse:
            after_match(writer.path, analyse_settings)
    return 0


def cmd_llm_check(args: argparse.Namespace) -> int:
    from duel.llmcheck import check, report_text

    result = check(args.spec, args.seed)
    if args.json:
        _dump(result)
    else:
        print(report_text(result))
    return 0


def _add_ray_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="play the games as tasks of a Ray cluster: local (a private instance "
                   "here), auto (the cluster of this node), ray://HOST:PORT (Ray Client) or a "
                   "head's HOST:PORT; needs the ray extra")
    p.add_argument("--llm-limit", default=None, metavar="IN_FLIGHT/PER_MINUTE",
                   help="with --ray: at most IN_FLIGHT requests at once and PER_MINUTE started "
                   "per minute to each provider and model, across the whole cluster (e.g. "
                   "8/500: your API key's limits)")


def _llm_limit(args: argparse.Namespace) -> Any:
    from duel.agents.llm.limits import LimitSpec

    return None if args.llm_limit is None else LimitSpec.parse(args.llm_limit)


def cmd_tournament(args: argparse.Namespace) -> int:
    import time

    from duel.tournament import run

    start = time.perf_counter()
    if args.llm_limit is not None and args.ray is None:
        raise UsageError("--llm-limit applies only with --ray (a local run's cap is the "
                         "spec's concurrency)")
    jobs = args.jobs if args.jobs is not None else (0 if args.ray else 1)
    standings = run(args.p1, args.p2, args.games, seed=args.seed, jobs=jobs, out=args.out,
                    progress=not args.no_progress, budget_usd=args.budget_usd, ray=args.ray,
                    llm_limit=_llm_limit(args))
    print(standings.report(wall=time.perf_counter() - start))
    return 0


def cmd_ladder(args: argparse.Namespace) -> int:
    from duel import ladder
    from duel.ratings import table

    if args.llm_limit is not None and args.ray is None:
        raise UsageError("--llm-limit applies only with --ray (a local run's cap is the "
                         "spec's concurrency)")
    jobs = args.jobs if args.jobs is not None else (0 if args.ray else 1)
    result = ladder.run(args.player, ladder.parse_rungs(args.rungs), args.games, args.out,
                        seed=args.seed, jobs=jobs, progress=not args.no_progress,
                        budget_usd=args.budget_usd, ray=args.ray, llm_limit=_llm_limit(args),
                        resamples=args.resamples)
    for pairing, standings in result.standings:
        print(f"{pairing.folder}:")
        print(standings.report())
    print(f"Bradley-Terry ratings over {result.rated} games (Elo scale; 0 = the smallest MCTS "
          "budget; bootstrap 95% CIs)")
    print(table(result.ratings))
    print(f"{result.player}: {result.place}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from duel.narrate import move_line, result_lines
    from duel.transcripts import check_result, initial_state, read, replay

    t = read(args.file)
    for problem in t.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.at is None:
        print(f"Replay of {args.file}: player 1 = {t.spec(1)}, player 2 = {t.spec(2)}, "
              f"seed {t.header.get('seed')}")
    final = None
    try:
        for step in replay(t):
            final = step.after
            if args.at is not None and step.ply == args.at:
                _dump(Perspective.of_player(args.seat).view(step.after))
                return 0
            if args.at is None:
                print(move_line(step.ply, step.before, step.move, step.after))
        if args.at is not None:
            if args.at == 0:
                _dump(Perspective.of_player(args.seat).view(initial_state(t)))
                return 0
            raise UsageError(f"--at {args.at}: the transcript has {len(t.moves)} moves")
        if final is None:
            final = initial_state(t)
        check_result(t, final)
    except TranscriptError as exc:
        print(f"duel replay: mismatch: {exc}", file=sys.stderr)
        return 1
    if t.footer is not None and t.footer.get("forfeit"):
        print(f"Result: player {t.footer['forfeit']} forfeits")
    else:
        print("\n".join(result_lines(final)))
    print(f"OK: {len(t.moves)} moves replayed; every recorded fact matches")
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    from duel.analysis.command import run, seats_of, settings_of

    if len(args.file) == 1 and args.ray is None:
        return run(args.file[0], args.seat, args.iterations, args.time, args.jobs, args.seed,
                   args.json, args.force, args.guide)
    from duel.analysis.many import run_many

    if args.json:
        raise UsageError("--json prints one transcript's analysis: give one file, no --ray")
    return run_many(args.file, seats_of(args.seat), settings_of(args.iterations, args.time,
                                                                  args.seed, args.guide),
                    args.jobs, args.force, args.ray)


def cmd_grade(args: argparse.Namespace) -> int:
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if args.positions is not None:
        from duel.suites.command import grade_positions

        if args.ray is not None:
            raise UsageError("--ray plays games; --positions asks positions on this machine")
        args.jobs = 4 if args.jobs is None else args.jobs

        return grade_positions(args, variants)
    from duel import grading
    from duel.sequential import LOOK_EVERY

    if args.out is None:
        raise UsageError("--out is required: the folder for the games and the report")
    if args.look_every is not None and not args.until_decided:
        raise UsageError("--look-every applies only with --until-decided")
    if args.analyse_iterations is not None and not args.analyse:
        raise UsageError("--analyse-iterations applies only with --analyse")
    settings = None
    if args.analyse:
        from duel.analysis.command import settings_of

        settings = settings_of(args.analyse_iterations)  # bad values fail before play
    deals = GRADE_DEALS if args.deals is None else args.deals
    if args.llm_limit is not None and args.ray is None:
        raise UsageError("--llm-limit applies only with --ray (a local run's cap is the "
                         "spec's concurrency)")
    jobs = args.jobs if args.jobs is not None else (0 if args.ray else 4)
    outcome = grading.run(variants, args.model, args.opponent or GRADE_OPPONENT, deals,
                          args.out, seed=args.seed, jobs=jobs,
                          progress=not args.no_progress, budget_usd=args.budget_usd,
                          until_decided=args.until_decided,
                          look_every=args.look_every or LOOK_EVERY, ray=args.ray,
                          llm_limit=_llm_limit(args))
    if settings is not None:
        from duel.grading_quality import analyse_games

        analyse_games(args.out, settings, jobs or 4, progress=not args.no_progress,
                      ray=args.ray)
    md, paths = grading.report(args.out, outcome)
    print(md)
    print("Written: " + ", ".join(str(p) for p in paths))
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from duel.ratings import collect, rate, table

    games = collect(args.folders)
    if not games:
        raise UsageError("no finished games in " + ", ".join(args.folders))
    print(f"Bradley-Terry ratings over {len(games)} games (Elo scale; 0 = the smallest MCTS "
          "budget present; bootstrap 95% CIs)")
    print(table(rate(games, resamples=args.resamples, seed=args.seed)))
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    import http.server
    import threading
    import webbrowser
    from functools import partial

    from duel.analysis.sidecar import load
    from duel.transcripts import read
    from duel.viewer import render

    try:
        analysis = load(args.file)  # GAME.analysis.json, when `duel analyse` wrote one
    except TranscriptError as exc:
        print(f"warning: analysis not shown: {exc}", file=sys.stderr)
        analysis = None
    page = render(read(args.file), title=Path(args.file).name, analysis=analysis)
    out = Path(args.out) if args.out else Path(args.file).with_suffix(".html")
    out.write_text(page)
    print(f"Viewer page: {out}")
    if args.no_serve:
        return 0
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(out.parent.resolve()))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/{out.name}"
    print(f"Serving {url} (Ctrl-C to stop)")
    threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def cmd_prompts(args: argparse.Namespace) -> int:
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


def cmd_serve(args: argparse.Namespace) -> int:
    from server.catalogue import Catalogue, configured_agents
    from server.connections import Server, server_config
    from server.main import create_app
    from server.settings import from_args
    from server.store import open_store, shown

    limits = from_args(args)
    agents = configured_agents(args.agents_file, args.agent)
    admin_token = args.admin_token or os.environ.get("DUEL_ADMIN_TOKEN") or None
    Catalogue(agents, admin_token).check()  # a typo or a missing key stops the server here
    if "://" in args.db and not args.db.startswith("sqlite:"):
        # So do an unknown scheme and an unreachable database (a SQLite file is made at start).
        open_store(args.db, limits.lease).close()
    app = create_app(args.db, rate=args.rate, burst=args.burst, limits=limits, agents=agents,
                     admin_token=admin_token)
    print(f"duel server on http://{args.host}:{args.port} (docs at /docs), games in "
          f"{shown(args.db)}")
    if agents:
        print(f"configured agents: {', '.join(agents)}"
              + (" (LLM and remote ones need the operator's token)" if admin_token else ""))
    Server(server_config(app, args.host, args.port, args.log_level, limits, args.http),
           app).run()
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from duel.play import play

    return play(args.vs, args.seed, args.seat, args.port, args.db, not args.no_browser)


def cmd_agents(args: argparse.Namespace) -> int:
    from duel.agents.spec import describe_kinds

    print(describe_kinds())
    return 0


def _games(args: argparse.Namespace, default: int) -> int:
    """`duel bench --games`, whose default depends on the benchmark."""
    return int(args.games) if args.games is not None else default


def _load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"


def _load_line(r: dict[str, Any]) -> str:
    return (f"rates per second of process CPU time; load average {r['load_average']:.2f} on "
            f"{r['cpus']} CPUs")


def cmd_bench(args: argparse.Namespace) -> int:
    from duel.build import describe

    if not args.json:
        print(f"build: {describe()}", flush=True)
    if args.what == "engine":
        from duel.bench import compare_engine

        r = compare_engine(args.seconds)
        if args.json:
            _dump(r)
            return 0
        print(_load_line(r))
        print(f"{r['games_per_s']:.0f} games/s, {r['moves_per_s']:.0f} moves/s "
              "(random vs random, one core, in-place play)")
        print(f"{r['apply_games_per_s']:.0f} games/s (checked apply, a new state per move)")
        print(f"pure build of the same source: {r['pure_games_per_s']:.0f} games/s in place, "
              f"{r['pure_apply_games_per_s']:.0f} with apply; {r['speedup']:.2f}x")
        return 0
    if args.what == "mcts":
        from duel.bench import compare_mcts

        r = compare_mcts(args.seconds, args.spec)
        if args.json:
            _dump(r)
            return 0
        print(_load_line(r))
        print(f"{r['iterations_per_s']:.0f} iterations/s from the start position "
              f"({args.spec}, one core; pure build {r['pure_iterations_per_s']:.0f}, "
              f"{r['speedup']:.2f}x)")
        print(f"{r['mid_age_two_iterations_per_s']:.0f} iterations/s from a mid-Age-II "
              f"position (pure build {r['pure_mid_age_two_iterations_per_s']:.0f})")
        return 0
    if args.what == "server":
        from duel.bench import bench_server

        r = bench_server(args.clients, args.seconds, args.db, args.servers)
        from server.store import shown

        print(f"{shown(args.db) if args.db else 'SQLite'}, {args.servers} server(s): "
              f"{r['moves']} moves by {args.clients} clients in {r['seconds']:.1f} s: "
              f"{r['moves_per_s']:.0f} moves/s; POST move latency p50 {r['post_p50_ms']:.1f} ms, "
              f"p99 {r['post_p99_ms']:.1f} ms; GET moves p50 {r['get_p50_ms']:.1f} ms, "
              f"p99 {r['get_p99_ms']:.1f} ms; {r['games_finished']} games finished, "
              f"{r['errors']} errors; server CPU {r['server_cpu_ms_per_move']:.2f} ms per move; "
              f"{_load()}")
        return 0
    if args.what == "tournament":
        from duel.bench import bench_tournament

        p1 = args.p1 or "mcts:iterations=200"
        r = bench_tournament(p1, args.p2 or p1, _games(args, 20), args.jobs, args.ray,
                             args.seed)
        where = f"Ray {args.ray}" if args.ray else "processes here"
        print(f"{p1} vs {args.p2 or p1}: {r['games']:.0f} games, {args.jobs} at once on "
              f"{where}: {r['games_per_s']:.3f} games/s (wall {r['wall']:.1f} s); one game "
              f"{r['game_s']:.2f} s (95% CI {r['game_s_lo']:.2f}-{r['game_s_hi']:.2f}, "
              f"n={r['games']:.0f})")
        return 0
    if args.what == "dqn":
        from duel.bench import bench_dqn

        bench_dqn(_games(args, 100), args.jobs, args.seed,
                  args.spec if args.spec != "mcts" else "dqn")
        return 0
    if args.what == "analyse":
        from duel.bench import bench_analyse

        bench_analyse(args.iterations, args.jobs, args.seed)
        return 0
    if args.what == "positions":
        from duel.suites.command import bench

        return bench(args)
    if args.what == "strength":
        from duel.bench import bench_strength

        bench_strength(_games(args, 100), args.time, args.jobs, args.seed,
                       baseline=args.baseline, out=args.out)
        return 0
    if args.what == "reuse":
        from duel.bench import bench_reuse

        bench_reuse(_games(args, 10), args.time, args.seed)
        return 0
    if args.what == "calibration":
        from duel.bench import bench_calibration

        bench_calibration(_games(args, 200), args.plies, args.iterations, args.jobs, args.seed,
                          args.out, args.plot)
        return 0
    if args.what == "ordering":
        from duel.analysis.figures import ORDERING_PLAYERS
        from duel.bench import bench_ordering

        bench_ordering(args.players or list(ORDERING_PLAYERS), args.deals or 50, args.iterations,
                       args.jobs, args.seed, args.out)
        return 0
    if args.what == "stability":
        from duel.analysis.figures import ORDERING_PLAYERS
        from duel.bench import bench_stability

        bench_stability(args.players or list(ORDERING_PLAYERS), args.deals or 2,
                        args.iterations, args.jobs, args.seed, args.out)
        return 0
    if args.what == "efficiency":
        from duel.analysis.figures import EFFICIENCY_PAIR
        from duel.bench import bench_efficiency

        bench_efficiency(args.p1 or EFFICIENCY_PAIR[0], args.p2 or EFFICIENCY_PAIR[1],
                         _games(args, 40), args.win_games, args.iterations, args.jobs, args.seed,
                         args.out)
        return 0
    if args.what == "guide":
        from duel.guide.command import bench as bench_guide

        return bench_guide(args)
    if args.what == "guide-analyser":
        from duel.guide.command import bench_analysers

        return bench_analysers(args)
    if args.what == "local":
        from duel.bench_local import bench_local

        settings = dict(item.partition("=")[::2] for item in args.server_setting)
        bench_local(args.variants.split(","), args.positions, args.seed,
                    args.quality_iterations, settings, args.out)
        return 0
    raise UsageError(f"unknown benchmark {args.what!r}")


def cmd_train(args: argparse.Namespace) -> int:
    if args.algorithm == "guide":
        from duel.guide.command import run_train

        return run_train(args)
    from duel.rl.config import Config as DQNConfig

    if args.jobs is None:
        args.jobs = DQNConfig().jobs
    if args.eval_games is None:
        args.eval_games = DQNConfig().eval_games
    try:
        from duel.rl.dqn import Config, train
    except ImportError as exc:
        raise UsageError(f"training needs PyTorch: pip install -e '.[train]' ({exc})") from None
    make_agent(args.opponent)  # a bad spec fails before any work
    make_agent(args.teacher)
    out = Path(args.out)
    cfg = Config(opponent=args.opponent, teacher=args.teacher, episodes=args.episodes,
                 demo_episodes=args.demo_episodes, pretrain_steps=args.pretrain_steps,
                 eval_every=args.eval_every, eval_games=args.eval_games, jobs=args.jobs,
                 seed=args.seed, hidden=args.hidden)
    trainer = train(cfg, out, resume=not args.restart)
    for point in trainer.curve:
        print(f"  after {point['episodes']:>6.0f} episodes: score rate vs {args.opponent} "
              f"{point['score_rate']:.3f} ({args.eval_games} greedy games)")
    print(f"model: {out / 'model.onnx'} (play it with --p1 dqn:{out / 'model.onnx'}); "
          f"curve: {out / 'learning_curve.png'}; checkpoint: {out / 'checkpoint.pt'}")
    return 0


def _version() -> str:
    from duel import __version__
    from duel.build import describe

    return f"duel {__version__}, {describe()} build"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="duel", description="7 Wonders Duel for LLM agents, "
                                     "MCTS and external bots.")
    parser.add_argument("--version", action="version", version=_version())
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

    p = sub.add_parser("match", help="play one game and print it move by move")
    p.add_argument("--p1", default="mcts:time=1", help="agent spec of player 1")
    p.add_argument("--p2", default="rule", help="agent spec of player 2")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hidden-box", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="print agents' details")
    p.add_argument("--transcript", default=None,
                   help="transcript file (default: transcripts/DATE-CODE.jsonl)")
    p.add_argument("--no-transcript", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no live status line while an LLM seat thinks")
    p.add_argument("--analyse", action="store_true",
                   help="then grade both players' decisions (duel analyse)")
    p.add_argument("--analyse-iterations", type=int, default=None, metavar="N",
                   help="with --analyse: iterations per decision (default: duel analyse's)")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("llm", help="LLM tools: check a model before spending on a tournament")
    llm_sub = p.add_subparsers(dest="llm_command", required=True)
    p = llm_sub.add_parser("check", help="one real call with a real game state: the settings "
                           "that work, the move, latency, tokens, cost and a whole game's "
                           "projected cost; exits 2 with the reason if no legal move came back")
    p.add_argument("spec", help="an llm: agent spec, e.g. llm:openai:gpt-5-mini")
    p.add_argument("--seed", type=int, default=0, help="the game whose position is asked")
    p.add_argument("--json", action="store_true", help="the findings as one JSON object")
    p.set_defaults(func=cmd_llm_check, command_name="llm check")

    p = sub.add_parser("replay", help="re-play a transcript through the engine and check it")
    p.add_argument("file")
    p.add_argument("--at", type=int, default=None, help="print the state after this ply")
    p.add_argument("--seat", type=int, choices=[1, 2], default=None,
                   help="with --at: show the view in which this seat is player2")
    p.set_defaults(func=cmd_replay)

    from duel.analysis.command import SEAT_CHOICES
    from duel.analysis.search import DEFAULT_ITERATIONS

    p = sub.add_parser("analyse", help="grade each decision of a transcript with an MCTS "
                       "analyser (sidecar GAME.analysis.json)")
    p.add_argument("file", nargs="+", help="finished games' transcripts (several: each "
                   "analysed in turn, or with --ray each as a task of the cluster)")
    p.add_argument("--seat", choices=SEAT_CHOICES, default="both",
                   help="the player(s) whose decisions are analysed (default both)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="analyse each transcript as a task of a Ray cluster (local, auto, "
                   "ray://HOST:PORT or a head's HOST:PORT); needs the ray extra")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=int, default=None,
                        help=f"search iterations per decision (default {DEFAULT_ITERATIONS})")
    budget.add_argument("--time", type=float, default=None,
                        help="seconds per decision instead (not reproducible)")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the analysis as one JSON object")
    p.add_argument("--force", action="store_true",
                   help="analyse again even if a fresh sidecar with these settings exists")
    p.add_argument("--guide", nargs="?", const="default", default=None, metavar="MODEL",
                   help="search below each move with the learned guide (docs/guide.md): the "
                   "shipped model, or a .onnx file")
    p.set_defaults(func=cmd_analyse)

    p = sub.add_parser("tournament", help="seat-swapped pairs on the same deals, in parallel")
    p.add_argument("--p1", required=True, help="agent spec A")
    p.add_argument("--p2", required=True, help="agent spec B")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--jobs", type=int, default=None,
                   help="games at once (default 1; with --ray, one per CPU of the cluster)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="folder for games.jsonl (resumable)")
    _add_ray_option(p)
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--budget-usd", type=float, default=None, metavar="X",
                   help="start no game that would take the LLM money spent (earlier runs in "
                   "--out included) past X dollars; run again with more to resume")
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("ladder", help="place a player on the MCTS ladder: it plays every "
                       "rung, each rung the next, then the ratings (resumable)")
    p.add_argument("--player", required=True, help="agent spec to place")
    p.add_argument("--rungs", default="50,200,1000",
                   help="MCTS iteration budgets, increasing (default 50,200,1000)")
    p.add_argument("--games", type=int, default=20, help="games per pairing (default 20)")
    p.add_argument("--out", required=True,
                   help="folder of the ladder: one games.jsonl per pairing (resumable)")
    p.add_argument("--seed", type=int, default=0, help="first deal's seed, in every pairing")
    p.add_argument("--jobs", type=int, default=None,
                   help="games at once (default 1; with --ray, one per CPU of the cluster)")
    _add_ray_option(p)
    p.add_argument("--resamples", type=int, default=200, help="bootstrap resamples")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--budget-usd", type=float, default=None, metavar="X",
                   help="per pairing: start no game that would take its LLM money (earlier "
                   "runs included) past X dollars")
    p.set_defaults(func=cmd_ladder)

    p = sub.add_parser("view", help="show a transcript in the browser")
    p.add_argument("file")
    p.add_argument("--out", default=None, help="HTML file to write (default: FILE.html)")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--no-serve", action="store_true", help="only write the page")
    p.set_defaults(func=cmd_view)

    p = sub.add_parser("grade", help="grade prompt variants on the same deals, or on the "
                       "positions of a suite (resumable)")
    p.add_argument("--variants", default="baseline,errata,legal-moves",
                   help="comma-separated prompt variants (baseline and null are always added)")
    p.add_argument("--model", required=True, help="an llm: spec without prompt=")
    p.add_argument("--positions", default=None, metavar="SUITE",
                   help="ask the variants the positions of this suite (duel positions extract) "
                   "instead of playing games; scored by the analyser's loss")
    p.add_argument("--opponent", default=None,
                   help=f"games: the opponent's agent spec (default {GRADE_OPPONENT})")
    p.add_argument("--deals", type=int, default=None,
                   help=f"games: deals played (default {GRADE_DEALS})")
    p.add_argument("--out", default=None, help="folder for the games or answers and the report "
                   "(required for games; with --positions default SUITE-grade beside it)")
    p.add_argument("--seed", type=int, default=0, help="first deal's seed")
    p.add_argument("--jobs", type=int, default=None,
                   help="games played at once (default 4; with --ray, one per CPU of the "
                   "cluster)")
    _add_ray_option(p)
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--budget-usd", type=float, default=None, metavar="X",
                   help="start no game that would take the LLM money spent (earlier runs in "
                   "--out included) past X dollars; run again with more to resume")
    p.add_argument("--until-decided", action="store_true",
                   help="stop once a group-sequential test has decided every variant against "
                   "the baseline (--deals is the maximum); the report says where and why")
    p.add_argument("--look-every", type=int, default=None, metavar="K",
                   help="with --until-decided: deals between looks (default 10)")
    p.add_argument("--analyse", action="store_true",
                   help="then grade the LLM's decisions in every game with the analyser "
                   "(duel analyse): mean loss and blunder rate per variant in the report")
    p.add_argument("--analyse-iterations", type=int, default=None, metavar="N",
                   help="with --analyse: iterations per decision (default: duel analyse's)")
    p.set_defaults(func=cmd_grade)

    from duel.suites.command import add_positions_parser

    add_positions_parser(sub)

    p = sub.add_parser("ratings", help="Bradley-Terry ratings over transcript folders")
    p.add_argument("folders", nargs="+")
    p.add_argument("--resamples", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_ratings)

    p = sub.add_parser("prompts", help="prompt variants: list, or show one rendered")
    p.add_argument("action", choices=["list", "show"])
    p.add_argument("name", nargs="?")
    p.set_defaults(func=cmd_prompts)

    p = sub.add_parser("serve", help="run the REST game server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default="duel.db",
                   help="SQLite file (or sqlite:///PATH), or postgresql://USER@HOST:PORT/DB "
                   "(several servers may share one PostgreSQL database; needs the "
                   "postgresql extra)")
    p.add_argument("--log-level", default="info")
    p.add_argument("--http", choices=("auto", "httptools", "h11"), default="auto",
                   help="the HTTP parser (auto: httptools when installed, else h11)")
    p.add_argument("--rate", type=float, default=200.0,
                   help="requests per second per token (or per address without one)")
    p.add_argument("--burst", type=int, default=400)
    p.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC",
                   help="offer an agent by name (repeatable), e.g. gpt=llm:openai:gpt-5-mini "
                   "or mybot=llm:compat:MODEL@URL; callers name it (\"player2\": \"gpt\"), "
                   "never its spec. Only these can call out, read a model file or spend the "
                   "keys in this server's environment; requests get random, rule, mcts "
                   "(capped) and the shipped dqn")
    p.add_argument("--agents", dest="agents_file", metavar="FILE",
                   help='a TOML file of agents: [agents] then name = "spec" lines (--agent '
                   "wins over the file's agent of the same name)")
    p.add_argument("--admin-token", metavar="TOKEN",
                   help="the operator's token (default: $DUEL_ADMIN_TOKEN): games with LLM or "
                   "remote seats, and /agents/move with them, need it as the Authorization "
                   "bearer; without it anyone may use every configured agent")
    from server.settings import add_arguments

    add_arguments(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("play", help="play against an agent in the browser (a local server on a "
                       "free loopback port)")
    p.add_argument("--vs", required=True, metavar="SPEC",
                   help="the opponent: any agent spec, e.g. mcts:time=1, rule, "
                   "llm:openai:gpt-5-mini")
    p.add_argument("--seed", type=int, default=None, help="the deal's seed (default: random)")
    p.add_argument("--seat", type=int, choices=(1, 2), default=1, help="your seat (default 1)")
    p.add_argument("--port", type=int, default=0, help="default: a free one")
    p.add_argument("--db", default=None, help="SQLite file for the games (default: a "
                   "temporary one)")
    p.add_argument("--no-browser", action="store_true", help="only print the page's address")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("agents", help="the agent specs and their parameters")
    p.set_defaults(func=cmd_agents)

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
    p.add_argument("--episodes", type=int, default=run.episodes,
                   help="RL episodes after pre-training (default %(default)s: they did not help "
                   "the shipped model)")
    p.add_argument("--demo-episodes", type=int, default=run.demo_episodes,
                   help="teacher episodes")
    p.add_argument("--pretrain-steps", type=int, default=run.pretrain_steps)
    p.add_argument("--eval-every", type=int, default=run.eval_every,
                   help="RL episodes between evaluations")
    p.add_argument("--eval-games", type=int, default=None,
                   help=f"games per evaluation (default dqn {run.eval_games} greedy games; "
                   f"guide 40 games of each net's search against the ISMCTS, 0: none)")
    p.add_argument("--hidden", type=int, default=run.hidden, help="width of the state embedding")
    p.add_argument("--jobs", type=int, default=None,
                   help=f"processes for the self-play or teacher's games (default dqn "
                   f"{run.jobs}, guide 1)")
    p.add_argument("--seed", type=int, default=run.seed)
    p.add_argument("--out", required=True, help="run folder (resumed if it has a checkpoint)")
    p.add_argument("--restart", action="store_true", help="ignore an existing checkpoint "
                   "(guide: train every net again; the self-play games are kept)")
    from duel.guide.command import add_train_arguments

    add_train_arguments(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("bench", help="benchmarks (figures, not tests)")
    p.add_argument("what", choices=["engine", "mcts", "strength", "server", "dqn", "analyse",
                                    "calibration", "ordering", "stability", "efficiency", "local",
                                    "positions", "tournament", "reuse", "guide",
                                    "guide-analyser"])
    p.add_argument("--clients", type=int, default=50, help="server: concurrent bots")
    p.add_argument("--db", default=None, help="server: the database (default a fresh SQLite "
                   "file), e.g. postgresql://USER@HOST:PORT/DB")
    p.add_argument("--servers", type=int, default=1,
                   help="server: server processes on the --db PostgreSQL database, the bots "
                   "spread over them")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="tournament: play on this Ray cluster (e.g. local) instead of --jobs "
                   "processes here")
    p.add_argument("--seconds", type=float, default=6.0, help="engine, mcts: time per figure")
    p.add_argument("--spec", default="mcts", help="mcts, dqn: the agent spec to measure "
                   "(dqn: default the shipped model); guide: the model (default the shipped "
                   "one)")
    p.add_argument("--games", type=int, default=None,
                   help="strength, dqn: games per pairing (default 100); reuse: games (10); "
                   "calibration: games "
                   "(200); efficiency: games analysed (40)")
    p.add_argument("--time", type=float, default=1.0, help="strength, reuse: MCTS seconds per "
                   "move")
    p.add_argument("--baseline", default=None, metavar="URL",
                   help="strength: a server whose MCTS the running one plays (duel serve from "
                   "a checkout of an older commit), instead of random")
    p.add_argument("--jobs", type=int, default=2, help="strength, calibration, ordering, "
                   "stability, efficiency: parallel games; analyse: processes")
    p.add_argument("--iterations", type=int, default=None,
                   help="analyse, calibration, ordering, stability, efficiency: the analyser's "
                   "iterations per decision (default: the analyser's default)")
    p.add_argument("--plies", type=int, default=5, help="calibration, guide-analyser: "
                   "decisions per game")
    p.add_argument("--guide-iterations", default="1000", metavar="N[,N...]",
                   help="guide-analyser: the guided analyser's budgets (default %(default)s)")
    p.add_argument("--plot", default=None, help="calibration: write the reliability plot (PNG)")
    p.add_argument("--deals", type=int, default=None,
                   help="ordering (default 50), stability (2): deals of the round robin")
    p.add_argument("--players", nargs="+", default=None,
                   help="ordering, stability: agent specs, best first (default "
                   "mcts:iterations=1000 rule random)")
    p.add_argument("--p1", default=None, help="efficiency: the first agent "
                   "(default mcts:iterations=100); positions, tournament: "
                   "(mcts:iterations=200)")
    p.add_argument("--p2", default=None, help="efficiency, positions: the second agent "
                   "(default rule)")
    p.add_argument("--win-games", type=int, default=400,
                   help="efficiency: games for the win rate (the analysed ones first)")
    p.add_argument("--out", default=None, help="calibration, ordering, stability, efficiency: "
                   "keep the transcripts and analyses there (a run again reuses them); local: "
                   "append every decision to this JSONL")
    p.add_argument("--suite", default=None, help="positions: the suite answered")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="engine, mcts: one JSON object")
    p.add_argument("--positions", type=int, default=20, help="local: positions per candidate")
    p.add_argument("--variants", default="baseline,local,local+legal",
                   help="local: candidates, a prompt variant each, +legal for output "
                        "constrained to the legal moves, or default (llm:local as shipped)")
    p.add_argument("--quality-iterations", type=int, default=2000,
                   help="local: MCTS iterations that judge each position's moves (0: off)")
    p.add_argument("--server-setting", action="append", default=[], metavar="KEY=VALUE",
                   help="local: a llama-cpp-python server setting for every candidate")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except _DuelError as exc:
        print(f"duel {getattr(args, 'command_name', args.command)}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
