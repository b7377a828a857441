"""The local model's server process: llama.cpp's own C++ server (OpenAI-compatible chat
completions, prompt caching, JSON-schema-constrained output), from the `xllamacpp` package's
prebuilt wheel, so installing the `local` extra compiles nothing.

    python -m duel.agents.llm.servers.xserver --model PATH --port N [--host 127.0.0.1]
        [--n_ctx 16384] [--n_threads 2] [--n_batch 128] [--n_ubatch 128] [--flash_attn true]
        [--n_parallel 1] [--cache_ram_mib 1024]

It serves until it is terminated (duel.agents.llm.servers.local.LocalServer starts and stops it)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

TRUE = ("1", "true", "on", "yes")


def params_of(args: argparse.Namespace) -> object:
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = args.model
    p.model_alias = {args.model_alias}
    p.hostnames = [args.host]
    p.port = args.port
    p.n_ctx = args.n_ctx
    # Each slot keeps its own prompt cache and n_ctx / n_parallel of the context; a request goes
    # to the slot whose cached prompt it shares most of.
    p.n_parallel = args.n_parallel
    p.kv_unified = False
    p.cpuparams.n_threads = args.n_threads
    p.cpuparams_batch.n_threads = args.n_threads
    p.n_batch = args.n_batch
    p.n_ubatch = args.n_ubatch
    p.flash_attn_type = 1 if args.flash_attn.lower() in TRUE else 0
    p.cache_prompt = True  # the rules text is read once, then reused from the cache
    # llama.cpp also copies a slot's prompt state to memory whenever the slot takes another
    # prompt, up to 8 GB by default: a position grading run's server grew to 7.7 GB. Capped at
    # 1 GB: it still brings back recent prompts when more prefixes than slots take turns (12
    # requests over 4 prefixes and 3 slots took 186 s with it and did not end in 400 s without).
    p.cache_ram_mib = args.cache_ram_mib
    return p


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m duel.agents.llm.servers.xserver")
    p.add_argument("--model", required=True)
    p.add_argument("--model_alias", default="local")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--n_ctx", type=int, default=16384)
    p.add_argument("--n_threads", type=int, default=2)
    p.add_argument("--n_batch", type=int, default=128)
    p.add_argument("--n_ubatch", type=int, default=128)
    p.add_argument("--flash_attn", default="true")
    p.add_argument("--n_parallel", type=int, default=1)
    p.add_argument("--cache_ram_mib", type=int, default=1024)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    parent = os.getppid()
    import xllamacpp as xlc

    server = xlc.Server(params_of(args))  # listens once the model is loaded
    print(f"serving {args.model} at {server.listening_address}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    # A duel process killed outright runs no exit hook: the server then outlives it, holding
    # the CPU and ~0.5 GB. It goes when its parent does.
    while not done.wait(2.0):
        if os.getppid() != parent:
            break
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
