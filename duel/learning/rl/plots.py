"""The learning curve of a run as a PNG."""

from __future__ import annotations

from pathlib import Path


def plot_curve(curve: list[dict[str, float]], path: Path, opponent: str) -> None:
    """Greedy score rate against `opponent` at each evaluation; episode 0 is the network right
    after pre-training."""
    import matplotlib

    matplotlib.use("Agg")  # no display on training machines
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [c["episodes"] for c in curve]
    ax.plot(xs, [c["score_rate"] for c in curve], marker="o")
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("RL episodes (0: right after pre-training on demonstrations)")
    ax.set_ylabel(f"score rate vs {opponent}")
    ax.set_ylim(0, 1)
    ax.set_title("masked DQN: greedy score rate (draw = 1/2)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
