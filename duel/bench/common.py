"""What the benchmarks share: the load they ran under, and a figure measured again on the pure
build, in a process of its own."""

from __future__ import annotations

import sys
from typing import Any

from duel.errors import BenchError


def pure_figures(module: str, call: str) -> dict[str, float]:
    """`call` (an expression in `module` returning a dict of figures) evaluated by a
    subprocess that runs the pure Python source (DUEL_PURE=1), one after the running build's
    own figures so that the two never share the core."""
    import json
    import os
    import subprocess

    code = f"import json, {module} as b; print(json.dumps(b.{call}))"
    env = {**os.environ, "DUEL_PURE": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise BenchError(f"the pure build's benchmark failed: {done.stderr.strip()[-500:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _load_fields() -> dict[str, Any]:
    import os

    return {"load_average": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}


def _load() -> str:
    import os

    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"


def rounds_figures(figures: dict[str, list[float]],
                   ratios: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """Alternating rounds' figures as the benchmarks report them: each figure's mean, bootstrap
    95% interval over the rounds and values; each ratio (name: (top, bottom), taken round by
    round, so that a round's load falls on both sides of it) its mean and interval."""
    from duel.stats import bootstrap_ci, mean

    out: dict[str, Any] = {}
    for key, values in figures.items():
        out[key] = {"mean": mean(values), "ci": bootstrap_ci(values), "values": values}
    for name, (top, bottom) in ratios.items():
        pairs = [t / b for t, b in zip(figures[top], figures[bottom], strict=True)]
        out[name] = {"mean": mean(pairs), "ci": bootstrap_ci(pairs)}
    return out


def figure(entry: dict[str, Any], digits: int = 0, unit: str = "") -> str:
    """One figure of `rounds_figures`: "mean (95% CI lo-hi)"; a ratio with unit="x"."""
    lo, hi = entry["ci"]
    if unit == "x":
        return f"{entry['mean']:.{digits}f}x ({lo:.{digits}f}-{hi:.{digits}f})"
    return f"{entry['mean']:.{digits}f}{unit} (95% CI {lo:.{digits}f}-{hi:.{digits}f})"

