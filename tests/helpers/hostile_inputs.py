"""Hostile inputs for the server's tests: agent specs that would make a trusting server call
out, read files or hold work, and malformed bodies and headers."""

from __future__ import annotations

import json


def hostile_specs(port: int) -> list[str]:
    """Specs a caller could use to make the server call out to 127.0.0.1:`port` or read a
    file: base URLs, compat endpoints (decimal, hex, short and IPv6-mapped loopback), an
    http: agent, model files, and the parameters that hold work (timeouts, attempts)."""
    hosts = [f"127.0.0.1:{port}", f"2130706433:{port}", f"0x7f000001:{port}",
             f"127.1:{port}", f"[::ffff:127.0.0.1]:{port}", f"localhost:{port}"]
    return [
        f"llm:openai:gpt-4o-mini,base_url=http://127.0.0.1:{port}/v1",
        f"llm:anthropic:claude-sonnet-4-5,base_url=http://127.0.0.1:{port}",
        *(f"llm:compat:m@http://{host}/v1" for host in hosts),
        f"llm:compat:m@https://127.0.0.1:{port}/v1,timeout=100000,max_attempts=1000000000",
        f"llm:compat:m@http://127.0.0.1:{port}/v1,transport_retries=1000000,backoff=0",
        "llm:openai:gpt-4o-mini", "llm:local", f"http:http://127.0.0.1:{port}/",
        "dqn:/etc/shadow", "dqn:/nonexistent", "dqn:" + "d" * 290,
        f" llm:compat:m@http://127.0.0.1:{port}/v1 ",
    ]


# Specs that are merely broken: every one a 422, never a 5xx.
BROKEN_SPECS = ["", " ", ":", "::", "mcts:=", "mcts:,", "mcts:time", "mcts:time=1,time=2",
                "mcts:time=nan", "mcts:time=inf", "mcts:time=-1", "mcts:iterations=1e9",
                "mcts:iterations=" + "9" * 5000, "mcts:workers=100000", "mcts:seed=x",
                "random:x=1", "rule:x", "dqn:\x00", "external:1", "\u00e9\u00e9", "mcts:c=1" * 30,
                "%6c%6c%6d:openai:x", "RANDOM", "llm", "llm:", "llm:openai", "llm:compat:m@"]

# Request bodies that are not what any route takes.
HOSTILE_BODIES: list[bytes] = [
    b"", b"null", b"[]", b"\xff\xfe\x00", b"{", b'{"a": 1}', b"1" * 5000,
    ("[" * 5000 + "]" * 5000).encode(), ('{"a":' * 3000 + "1" + "}" * 3000).encode(),
    json.dumps({"player1": ["x"], "player2": {"y": 1}}).encode(),
    json.dumps({"player1": "external", "player2": "external", "seed": 2**80}).encode(),
    json.dumps({"player1": "external", "player2": "external", "time_per_move": 1e308}).encode(),
    json.dumps({"agent": "rule", "state": {"step": "x" * 1000}}).encode(),
    json.dumps({"move": "DISCARD", "moveData": {"cardIndex": 10**30}, "ply": 10**30}).encode(),
]

# Authorization headers and query strings that are not a token, or disguise one.
HOSTILE_AUTH = ["Bearer " + "x" * 5000, "Bearer", "Bearer  ", "Basic Zm9vOmJhcg==", "bearer",
                "Bearer a b c", "Bearer \u00e9\u00e8", "Token abc", "Bearer \t"]
HOSTILE_QUERIES = ["%74oken=abc", "tok%65n=abc", "token=a&token=b", "token=" + "t" * 500,
                   "token=%00", "%00=1", "token", "=", "&&&", "token=%ZZ"]
