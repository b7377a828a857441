"""The readable summary of an analysis: per seat the figures with their n, by Age and kind, and
the worst decisions with the move played, the analyser's move and the loss, in the game's words."""

from __future__ import annotations

from typing import Any

from .game import Analysis
from .summary import BLUNDER, MISTAKE, grade

AGE_NAMES = {"1": "I", "2": "II", "3": "III"}
WORST = 5  # decisions listed per seat


def _figures(f: dict[str, Any]) -> str:
    return (f"n={f['decisions']} loss {f['mean_loss']:.3f} ± {f['loss_se']:.3f}, "
            f"accuracy {f['accuracy']:.1f}")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _outcome(a: Analysis) -> str:
    winner, victory = a.result.get("winner"), a.result.get("victory")
    if winner is None:
        return "no result"
    return f"{'shared victory' if winner == 'draw' else f'player {winner} wins'} ({victory})"


def render(a: Analysis) -> str:
    """The summary, several lines, ready to print."""
    s = a.settings
    budget = f"{s.time:g} s" if s.time > 0 else f"{s.iterations} iterations"
    n = len(a.decisions)
    lines = [
        f"Analysis of {a.transcript}: player 1 = {a.players.get('1')}, player 2 = "
        f"{a.players.get('2')}; {_outcome(a)}",
        f"Analyser: {budget} per decision, seed {s.seed}; {_count(n, 'decision')} in "
        f"{a.seconds:.1f} s with {_count(a.jobs, 'job')}"
        + (" (read back from the sidecar)" if a.reused else ""),
        f"Loss: expected score given away (win 1, draw 1/2); mistake >= {MISTAKE:.2f}, "
        f"blunder >= {BLUNDER:.2f}; accuracy 0-100 (100: no loss).",
    ]
    for player in a.seats:
        f = a.seat(player)
        lines += [
            "",
            f"Player {player} ({a.players.get(str(player))}): "
            f"{_count(f['decisions'], 'decision')} ({f['forced']} forced, skipped): mean loss "
            f"{f['mean_loss']:.3f} ± {f['loss_se']:.3f}, {_count(f['blunders'], 'blunder')}, "
            f"{_count(f['mistakes'], 'mistake')}, accuracy {f['accuracy']:.1f}",
            "  by Age:  " + " | ".join(f"{AGE_NAMES[age]} {_figures(g)}"
                                       for age, g in f["by_age"].items()),
            "  by kind: " + " | ".join(f"{kind.replace('_', ' ')} {_figures(g)}"
                                       for kind, g in f["by_kind"].items()),
        ]
        worst = sorted((d for d in a.decisions if d.player == player and d.loss > 0),
                       key=lambda d: (-d.loss, d.ply))[:WORST]
        if not worst:
            lines.append("  no decision lost anything")
            continue
        lines.append("  worst decisions:")
        for d in worst:
            mark = grade(d.loss)
            lines += [
                f"    ply {d.ply} (Age {AGE_NAMES[str(d.age)]}, {d.kind.replace('_', ' ')}, "
                f"{d.legal_count} legal moves): loss {d.loss:.3f} ± {d.loss_se:.3f}"
                + (f" - {mark}" if mark else ""),
                f"      played:   {d.played_text} (value {d.played.value:.3f})",
                f"      analyser: {d.best_text} (value {d.best.value:.3f})",
            ]
    return "\n".join(lines)
