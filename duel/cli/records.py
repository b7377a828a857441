"""`duel replay` and `duel view`: a recorded game checked through the engine, or shown in the
browser."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from duel.cli.options import dump, integer
from duel.engine import Perspective
from duel.errors import TranscriptError, UsageError
from duel.util.datadir import add_option, data_dir


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="re-play a transcript through the engine and check it")
    p.add_argument("file")
    p.add_argument("--at", type=integer, default=None, help="print the state after this ply")
    p.add_argument("--seat", type=integer, choices=[1, 2], default=None,
                   help="with --at: show the view in which this seat is player2")
    p.set_defaults(func=replay)

    p = sub.add_parser("view", help="show a transcript in the browser")
    p.add_argument("file")
    p.add_argument("--out", default=None, help="HTML file to write (default: pages/FILE.html "
                   "in the data folder)")
    p.add_argument("--port", type=integer, default=0)
    p.add_argument("--no-serve", action="store_true", help="only write the page")
    add_option(p)
    p.set_defaults(func=view)


def replay(args: argparse.Namespace) -> int:
    from duel.transcripts import check_result, initial_state, read
    from duel.transcripts import replay as steps
    from duel.words.narrate import numbered_line, result_lines

    t = read(args.file)
    for problem in t.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.at is None:
        print(f"Replay of {args.file}: player 1 = {t.spec(1)}, player 2 = {t.spec(2)}, "
              f"seed {t.header.get('seed')}")
    final = None
    try:
        for step in steps(t):
            final = step.after
            if args.at is not None and step.ply == args.at:
                dump(Perspective.of_player(args.seat).view(step.after))
                return 0
            if args.at is None:
                print(numbered_line(step.ply, step.before, step.move, step.after))
        if args.at is not None:
            if args.at == 0:
                dump(Perspective.of_player(args.seat).view(initial_state(t)))
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


def view(args: argparse.Namespace) -> int:
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
    out = Path(args.out) if args.out else \
        data_dir(args.data_dir) / "pages" / Path(args.file).with_suffix(".html").name
    out.parent.mkdir(parents=True, exist_ok=True)
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
