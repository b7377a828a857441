"""`python -m duel.inspect`: duel's Inspect tasks and their parameters (`-T name=value`), as
Inspect's registry holds them once it has loaded duel's entry point, so what is listed is what
`inspect eval duel/...` finds. (`inspect list tasks` lists a source folder's tasks by their
decorators only, without parameters: docs/inspect.md.)"""

from __future__ import annotations

import inspect
import sys
from typing import Any

SKIP = {"unknown"}  # the **kwargs that catches a mistyped name, to refuse it


def registered() -> dict[str, dict[str, Any]]:
    """Each duel task Inspect registers, by its name (duel/match...): its parameters and their
    defaults, in the task's order."""
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_find, registry_info

    ensure_entry_points("duel")
    out: dict[str, dict[str, Any]] = {}
    for task in registry_find(lambda i: i.type == "task" and i.name.startswith("duel/")):
        info = registry_info(task)
        signature = inspect.signature(task)  # type: ignore[arg-type]
        out[info.name] = {name: signature.parameters[name].default
                          for name in info.metadata["params"] if name not in SKIP}
    return dict(sorted(out.items()))


def main() -> int:
    for name, params in registered().items():
        print(name)
        for param, default in params.items():
            print(f"  -T {param}={default}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
