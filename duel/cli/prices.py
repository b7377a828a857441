"""`duel prices`: the prices duel knows, per million tokens, with where and when each was read
(``duel.accounting.prices.known_prices``)."""

from __future__ import annotations

import argparse

from duel.cli.options import dump


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("prices", help="the LLM prices duel knows (US dollars per million tokens: "
                       "input, cached input, cache write, output), where and when each was "
                       "read, and those given with DUEL_PRICES")
    p.add_argument("--json", action="store_true", help="the rows as a JSON array")
    p.set_defaults(func=run, command_name="prices")


def run(args: argparse.Namespace) -> int:
    from duel.accounting.prices import known_prices
    from duel.agents.llm.models import PRICES_READ
    from duel.util.tables import markdown

    rows = known_prices()
    if args.json:
        dump(rows)
        return 0

    def usd(x: float | None) -> str:
        return "unknown" if x is None else f"${x:g}"

    print(markdown([{"model": r["model"], "input": usd(r["input"]),
                     "cached input": usd(r["cached_input"]),
                     "cache write": usd(r["cache_write_input"]), "output": usd(r["output"]),
                     "checked": r["checked"] or "-", "source": r["source"] or "-",
                     "note": r["note"] or ""} for r in rows]))
    print(f"\nUS dollars per million tokens. List prices read on {PRICES_READ} unless a row says "
          "otherwise; a model not listed (and not a dated snapshot of one) costs \"unknown\". "
          "Add or override prices with DUEL_PRICES=prices.json: "
          '{"MODEL": {"input": USD, "output": USD, "cached_input": USD, '
          '"cache_write_input": USD}}. OpenRouter calls cost what OpenRouter bills '
          "(usage.cost).")
    return 0
