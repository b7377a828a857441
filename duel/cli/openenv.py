"""`duel openenv`: the text environment served as an OpenEnv environment (duel.envs.openenv)."""

from __future__ import annotations

import argparse
import sys

from duel.cli.options import integer, real
from duel.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("openenv", help="serve the text environment to RL trainers as an "
                       "OpenEnv environment (needs the openenv extra)",
                       description="openenv-core's HTTP and WebSocket server over duel's text "
                       "environment: each WebSocket session its own game against the opponent; "
                       "docs/training.md has the recipes.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: "
                   "loopback only)")
    p.add_argument("--port", type=integer, default=8000)
    p.add_argument("--opponent", default="random", metavar="SPEC",
                   help="the agent the trained seat plays (default random)")
    p.add_argument("--seat", default="alternate", choices=("1", "2", "alternate"),
                   help="the trained seat: player 1, 2, or by the seed's parity (default)")
    p.add_argument("--prompt", default="baseline", help="the prompt variant")
    p.add_argument("--reward", default="outcome+legal",
                   help="the reward mix, e.g. outcome+0.5*quality+legal (docs/training.md)")
    p.add_argument("--max-attempts", type=integer, default=3,
                   help="replies a decision may have refused before the fallback plays")
    p.add_argument("--max-sessions", type=integer, default=8,
                   help="WebSocket sessions (games) at once; one more is refused")
    p.add_argument("--idle-timeout", type=real, default=600.0, metavar="SECONDS",
                   help="a session unused this long is closed")
    p.add_argument("--transcripts", default=None, metavar="DIR",
                   help="write every episode's transcript here")
    p.set_defaults(func=openenv)


def openenv(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UsageError(f"--port takes a port from 1 to 65535, got {args.port}")
    if args.max_sessions < 1 or args.idle_timeout <= 0:
        raise UsageError("--max-sessions and --idle-timeout must be positive")
    try:
        from duel.envs.openenv import make_app
    except ImportError as exc:
        raise UsageError(f"duel openenv needs the openenv extra (pip install "
                         f"'duel[openenv]'): {exc}") from None
    import uvicorn

    app = make_app(max_sessions=args.max_sessions, idle_timeout=args.idle_timeout,
                   opponent=args.opponent, seat=args.seat, prompt=args.prompt,
                   reward=args.reward, max_attempts=args.max_attempts,
                   transcripts=args.transcripts)
    print(f"duel OpenEnv server at http://{args.host}:{args.port} (WebSocket /ws), opponent "
          f"{args.opponent}, at most {args.max_sessions} sessions", file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
