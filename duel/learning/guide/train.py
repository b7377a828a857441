"""`duel train guide`: the guide's network learnt from duel's own search, generation by
generation (AlphaZero's loop, sized for a 2-core machine).

1. **Bootstrap** (generation 0): self-play games of today's ISMCTS (`bootstrap_spec`), each
   searched decision's root visits recorded (`duel.learning.guide.selfplay`).
2. **Train** net 0 on them: policy cross-entropy against the search's targets, value
   cross-entropy against the mixed result (`duel.learning.guide.dataset`), Adam, a held-out
   tenth of the games for the curves.
3. **Generation k** (1..`generations`): self-play of the search guided by net k-1
   (`guided_spec`, Gumbel root: its improved policy is the target), then net k trained from
   net k-1 on the last `window` generations' games.
4. After each net, `eval_games` seat-swapped games against the ISMCTS at the same number of
   iterations (`eval_spec`): the strength curve.

Everything lands in the run folder (`--out DIR`): ``genK/games.jsonl``, ``netK/`` (checkpoint,
model.onnx/.npz/.json, eval games), ``curve.json`` and ``learning_curves.png``; the last net is
copied to ``DIR/model.onnx`` (play it with ``mcts:guide=DIR/model.onnx``). A killed run resumes
where it stopped: games are appended one by one, a net's training checkpoints every epoch, and a
finished stage is never run again. Torch uses one thread (`torch.set_num_threads(1)`); `jobs`
processes play the games.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from duel.agents.guided.features import N_FEATURES, N_POLICY
from duel.errors import UsageError
from duel.learning.guide.config import GuideConfig
from duel.learning.guide.dataset import MAX_MOVES, Examples, concat, examples
from duel.learning.guide.selfplay import generate, read_games

Progress = Callable[[str], object]


def run(cfg: GuideConfig, out: Path, say: Progress = print) -> list[dict[str, Any]]:
    """The whole loop (resumable); returns the curve (one entry per net)."""
    import torch

    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "config.json"
    if saved.exists():
        before = GuideConfig.from_json(json.loads(saved.read_text()))
        if before != cfg:
            changed = [f.name for f in fields(cfg) if getattr(cfg, f.name) !=
                       getattr(before, f.name)]
            say(f"note: settings differ from the run's first start: {', '.join(changed)}")
    saved.write_text(json.dumps(cfg.to_json(), indent=1) + "\n")
    curve = _read_curve(out)
    for gen in range(cfg.generations + 1):
        games = _games(cfg, out, gen, say)
        net_dir = out / f"net{gen}"
        point = next((p for p in curve if p["net"] == gen), None)
        if point is None:
            window = [g for k in range(max(0, gen - cfg.window + 1), gen + 1)
                      for g in (games if k == gen else read_games(out / f"gen{k}" /
                                                                  "games.jsonl"))]
            init = out / f"net{gen - 1}" / "checkpoint.pt" if gen > 0 else None
            point = train_net(cfg, window, net_dir, init, say)
            point["net"] = gen
            point["games"] = len(window)
            curve.append(point)
            _write_curve(out, curve)
        if "eval" not in point and cfg.eval_games > 0:
            point["eval"] = evaluate(cfg, net_dir / "model.onnx", say)
            _write_curve(out, curve)
        plot(curve, out / "learning_curves.png")
    final = out / f"net{cfg.generations}" / "model.onnx"
    for suffix in (".onnx", ".npz", ".json"):
        shutil.copy(final.with_suffix(suffix), (out / "model").with_suffix(suffix))
    return curve


def _games(cfg: GuideConfig, out: Path, gen: int, say: Progress) -> list[Any]:
    path = out / f"gen{gen}" / "games.jsonl"
    if gen == 0:
        spec, count, explore, seed = (cfg.bootstrap_spec, cfg.bootstrap_games, cfg.explore,
                                      cfg.first_seed)
    else:
        model = out / f"net{gen - 1}" / "model.onnx"
        spec = f"mcts:guide={model},{cfg.guided_spec}"
        count, explore = cfg.games_per_generation, cfg.guided_explore
        seed = cfg.first_seed + 100_000 * gen
    have = len(read_games(path))
    if have < count:
        say(f"generation {gen}: {count - have} self-play games of {spec} ({have} done)")
    start = time.perf_counter()
    last = [start]

    def tick(k: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 60:
            last[0] = now
            say(f"  generation {gen}: {len(read_games(path))} of {count} games")

    games = generate(path, spec, count, seed, explore, cfg.jobs, progress=tick)
    return games


def split(ex: Examples, held_out: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Rows of training and held-out examples: every tenth game held out."""
    every = max(2, round(1 / held_out))
    test = (ex.game % every) == every - 1
    return np.flatnonzero(~test), np.flatnonzero(test)


def train_net(cfg: GuideConfig, games: list[Any], net_dir: Path, init: Path | None,
              say: Progress) -> dict[str, Any]:
    """Train one net on `games` (resuming from `net_dir`'s checkpoint; starting from `init`'s
    weights if given), export it, and return its curve point."""
    import torch

    from duel.learning.guide.net import GuideNet, export

    if not games:
        raise UsageError("no self-play games to learn from")
    ex = examples(games, cfg.q_weight)
    train_rows, test_rows = split(ex)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    net = GuideNet(cfg.hidden, cfg.depth)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps_per_epoch = max(1, len(train_rows) // cfg.batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg.epochs * steps_per_epoch)
    ck_path = net_dir / "checkpoint.pt"
    epoch = 0
    epochs: list[dict[str, float]] = []
    best: tuple[int, dict[str, float], dict[str, Any]] | None = None
    net_dir.mkdir(parents=True, exist_ok=True)
    if (net_dir / "training.pt").exists():
        ck = torch.load(net_dir / "training.pt", weights_only=False)
        net.load_state_dict(ck["net"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        epoch, epochs, best = ck["epoch"], ck["epochs"], ck.get("best")
        rng.bit_generator.state = ck["rng"]
        say(f"  {net_dir.name}: resuming at epoch {epoch}")
    elif init is not None and init.exists():
        net.load_state_dict(torch.load(init, weights_only=False)["net"])
    say(f"{net_dir.name}: {len(train_rows)} training and {len(test_rows)} held-out positions "
        f"from {len(games)} games; {cfg.epochs} epochs")
    start = time.perf_counter()
    while epoch < cfg.epochs:
        net.train()
        order = rng.permutation(train_rows)
        total = n = 0.0
        for b in range(steps_per_epoch):
            rows = order[b * cfg.batch:(b + 1) * cfg.batch]
            loss_p, loss_v = losses(net, ex, rows)
            loss = loss_p + cfg.value_weight * loss_v
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(rows)
            n += len(rows)
        epoch += 1
        held = held_out(net, ex, test_rows)
        epochs.append({"epoch": epoch, "train_loss": total / max(1.0, n), **held})
        say(f"  {net_dir.name} epoch {epoch}: train loss {total / max(1.0, n):.4f}, held-out "
            f"policy {held['policy_loss']:.4f} (top-1 {held['policy_top1']:.3f}), value "
            f"{held['value_mse']:.4f} (MSE)")
        if best is None or _score(held, cfg) < _score(best[1], cfg):
            best = (epoch, held, {k: v.clone() for k, v in net.state_dict().items()})
        tmp = net_dir / "training.tmp"
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict(), "epoch": epoch, "epochs": epochs,
                    "rng": rng.bit_generator.state, "best": best}, tmp)
        tmp.replace(net_dir / "training.pt")
    assert best is not None
    # The epoch of the best held-out loss: a net started from the last one's weights sees the
    # older games again and overfits them (net1 of the shipped run: held-out policy loss 1.348
    # after its first epoch, 1.399 after its twelfth).
    net.load_state_dict(best[2])
    torch.save({"net": net.state_dict(), "settings": net.settings()}, ck_path)
    export(net, net_dir / "model.onnx", {"trained_on_games": len(games),
                                         "positions": len(train_rows), "epochs": cfg.epochs,
                                         "best_epoch": best[0]})
    return {"epochs": epochs, "positions": len(train_rows), "held_out": len(test_rows),
            "seconds": round(time.perf_counter() - start, 1), "best_epoch": best[0],
            **best[1]}


def _score(held: dict[str, float], cfg: GuideConfig) -> float:
    """What picks a net's epoch: its held-out loss, as trained."""
    return held["policy_loss"] + cfg.value_weight * held["value_loss"]


def losses(net: Any, ex: Examples, rows: np.ndarray) -> tuple[Any, Any]:
    """Mean policy cross-entropy and value cross-entropy of `rows`."""
    import torch

    x = torch.from_numpy(ex.dense(rows, N_FEATURES))
    policy, value = net(x)
    slots = torch.from_numpy(ex.slots[rows].astype(np.int64))  # (B, M, 2)
    present = slots[:, :, 0] >= 0
    # A zero column stands for "no second output" (-1) and for padding.
    padded = torch.cat([policy, torch.zeros(len(rows), 1)], dim=1)
    first = torch.where(present, slots[:, :, 0], N_POLICY)
    second = torch.where(slots[:, :, 1] >= 0, slots[:, :, 1], N_POLICY)
    logits = padded.gather(1, first) + padded.gather(1, second)
    logits = logits.masked_fill(~present, -1e9)
    target = torch.from_numpy(ex.policy[rows])
    loss_p = -(target * torch.log_softmax(logits, dim=1)).sum(1).mean()
    z = torch.from_numpy(ex.value[rows])
    loss_v = torch.nn.functional.binary_cross_entropy_with_logits(value[:, 0], z)
    return loss_p, loss_v


def held_out(net: Any, ex: Examples, rows: np.ndarray) -> dict[str, float]:
    """Held-out figures: policy cross-entropy and top-1 agreement with the target's best move,
    value cross-entropy and squared error (against the mixed target)."""
    import torch

    net.eval()
    if len(rows) == 0:
        return {"policy_loss": math.nan, "policy_top1": math.nan, "value_loss": math.nan,
                "value_mse": math.nan}
    lp = lv = top = mse = 0.0
    with torch.no_grad():
        for b in range(0, len(rows), 1024):
            chunk = rows[b:b + 1024]
            p, v = losses(net, ex, chunk)
            lp += float(p) * len(chunk)
            lv += float(v) * len(chunk)
            x = torch.from_numpy(ex.dense(chunk, N_FEATURES))
            policy, value = net(x)
            slots = torch.from_numpy(ex.slots[chunk].astype(np.int64))
            present = slots[:, :, 0] >= 0
            padded = torch.cat([policy, torch.zeros(len(chunk), 1)], dim=1)
            first = torch.where(present, slots[:, :, 0], N_POLICY)
            second = torch.where(slots[:, :, 1] >= 0, slots[:, :, 1], N_POLICY)
            logits = (padded.gather(1, first) + padded.gather(1, second)).masked_fill(
                ~present, -1e9)
            target = torch.from_numpy(ex.policy[chunk])
            top += float((logits.argmax(1) == target.argmax(1)).float().sum())
            pred = torch.sigmoid(value[:, 0])
            mse += float(((pred - torch.from_numpy(ex.value[chunk])) ** 2).sum())
    n = len(rows)
    return {"policy_loss": lp / n, "policy_top1": top / n, "value_loss": lv / n,
            "value_mse": mse / n}


def evaluate(cfg: GuideConfig, model: Path, say: Progress) -> dict[str, Any]:
    """The net's search against the ISMCTS at the same iterations: seat-swapped games."""
    from duel.runs.tournament import run as tournament
    from duel.stats import wilson

    a = f"mcts:guide={model},{cfg.eval_spec}"
    b = f"mcts:{cfg.eval_spec}"
    standings = tournament(a, b, cfg.eval_games, seed=cfg.first_seed - 10_000, jobs=cfg.jobs,
                           out=str(model.parent / "eval"), progress=False,
                           transcripts=False)
    wins, draws, losses_ = standings.counts()
    n = wins + draws + losses_
    score = wins + 0.5 * draws
    lo, hi = wilson(score, n)
    say(f"  {model.parent.name} vs {b}: score rate {score / n:.3f} (95% CI {lo:.3f}-{hi:.3f}, "
        f"n={n})")
    return {"opponent": b, "games": n, "wins": wins, "draws": draws, "score_rate": score / n,
            "ci": [lo, hi]}


def _read_curve(out: Path) -> list[dict[str, Any]]:
    path = out / "curve.json"
    if not path.exists():
        return []
    data: list[dict[str, Any]] = json.loads(path.read_text())
    return data


def _write_curve(out: Path, curve: list[dict[str, Any]]) -> None:
    tmp = out / "curve.tmp"
    tmp.write_text(json.dumps(curve, indent=1) + "\n")
    tmp.replace(out / "curve.json")


def plot(curve: list[dict[str, Any]], path: Path) -> None:
    """Held-out losses per epoch across nets, and each net's score against the ISMCTS."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(13, 4))
    x0 = 0
    for point in curve:
        eps = point["epochs"]
        xs = [x0 + e["epoch"] for e in eps]
        ax1.plot(xs, [e["policy_loss"] for e in eps], color="tab:blue")
        ax2.plot(xs, [e["value_mse"] for e in eps], color="tab:orange")
        ax1.axvline(x0 + 0.5, color="grey", linewidth=0.5)
        ax2.axvline(x0 + 0.5, color="grey", linewidth=0.5)
        x0 = xs[-1] if xs else x0
    ax1.set_title("held-out policy cross-entropy")
    ax2.set_title("held-out value squared error")
    for ax in (ax1, ax2):
        ax.set_xlabel("epochs (nets one after another)")
    evals = [(p["net"], p["eval"]) for p in curve if "eval" in p]
    if evals:
        xs = [k for k, _ in evals]
        ys = [e["score_rate"] for _, e in evals]
        err = [[y - e["ci"][0] for (_, e), y in zip(evals, ys, strict=True)],
               [e["ci"][1] - y for (_, e), y in zip(evals, ys, strict=True)]]
        ax3.errorbar(xs, ys, yerr=err, fmt="o-", capsize=3)
        ax3.axhline(0.5, color="grey", linestyle="--", linewidth=1)
        ax3.set_ylim(0, 1)
        ax3.set_xticks(xs)
        ax3.set_title(f"score vs {evals[0][1]['opponent']} (n={evals[0][1]['games']}, 95% CI)",
                      fontsize=9)
        ax3.set_xlabel("net (0: trained on the ISMCTS bootstrap)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


__all__ = ["GuideConfig", "MAX_MOVES", "concat", "run", "train_net"]
