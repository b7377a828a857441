"""The trainer: networks, buffers and counters, the losses, acting, checkpoints and the phases
of a run (demonstrations, pre-training, RL episodes). `duel.learning.rl.dqn.train` drives it."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

import numpy as np
import torch
from torch import nn

from duel.learning.rl.config import Config
from duel.learning.rl.demos import map_episodes, teacher_episode
from duel.learning.rl.episodes import Episode, play_episode
from duel.learning.rl.network import QNet
from duel.learning.rl.replay import Replay, concat_batches
from duel.util.files import PARTIAL

# What illegal actions hold before every max and argmax in the losses: far below any Q-value.
NEG: Final = -1e9


class Trainer:
    """Holds the networks, buffers and counters; `duel.learning.rl.dqn.train` runs the phases with
    checkpoints under `out`."""

    def __init__(self, cfg: Config, out: Path) -> None:
        self.cfg = cfg
        self.out = out
        torch.manual_seed(cfg.seed)
        self.net = QNet(cfg.hidden)
        self.target = QNet(cfg.hidden)
        self.target.load_state_dict(self.net.state_dict())
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.replay = Replay(cfg.buffer)
        self.demos = Replay(max(1, cfg.demo_episodes * 40), teacher=True)
        self.np_rng = np.random.default_rng(cfg.seed)
        self.steps = 0
        self.episodes = 0
        self.pretrained = 0
        self.curve: list[dict[str, float]] = []
        self.demo_stats: dict[str, float] = {}

    # -- losses
    def _loss(self, batch: dict[str, torch.Tensor], n_demo: int) -> torch.Tensor:
        """TD loss on every row; on the first `n_demo` rows (demonstrations) the distillation
        of the teacher's root values where it searched, else the large-margin loss; and the
        advantage penalty."""
        cfg = self.cfg
        value, advantage, prior = self.net.parts(batch["obs"])
        q_raw = value + advantage - prior
        q = q_raw.masked_fill(~batch["mask"], NEG)
        q_a = q.gather(1, batch["action"][:, None]).squeeze(1)
        with torch.no_grad():  # double DQN: the online net picks, the target net values
            best = self.net(batch["next_obs"]).masked_fill(~batch["next_mask"], NEG).argmax(1)
            q_next = self.target(batch["next_obs"]).gather(1, best[:, None]).squeeze(1)
            target = batch["ret"] + batch["discount"] * q_next
        loss = nn.functional.smooth_l1_loss(q_a, target)
        if n_demo:
            searched = batch["tw"][:n_demo].sum(1) > 0 if "tw" in batch else \
                torch.zeros(n_demo, dtype=torch.bool)
            if searched.any():
                # Each searched action's value, weighted by its share of the visits: the
                # teacher's confident judgements count, its guesses about rare moves hardly.
                tw, tq = batch["tw"][:n_demo][searched], batch["tq"][:n_demo][searched]
                err = (tw * (q_raw[:n_demo][searched] - tq) ** 2).sum(1)
                loss = loss + cfg.distill_weight * err.mean()
            if not searched.all():
                rows = ~searched
                margin = self._margin(q[:n_demo][rows], batch["action"][:n_demo][rows])
                loss = loss + cfg.margin_weight * margin
        legal = batch["mask"].float()
        spread = ((advantage ** 2) * legal).sum(1) / legal.sum(1).clamp(min=1.0)
        return loss + cfg.adv_penalty * spread.mean()

    def _margin(self, q: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
        """max over legal a of Q(s, a) + margin * [a != teacher's], minus Q(s, teacher's):
        zero once the teacher's action leads every other legal one by the margin (illegal
        actions hold NEG and never count)."""
        margins = torch.full_like(q, self.cfg.margin)
        margins.scatter_(1, teacher[:, None], 0.0)
        lead = (q + margins).max(1).values - q.gather(1, teacher[:, None]).squeeze(1)
        return lead.mean()

    def _update(self, demo_share: float) -> float:
        cfg = self.cfg
        n_demo = int(round(cfg.batch * demo_share)) if self.demos.n else 0
        if self.replay.n == 0:
            n_demo = cfg.batch
        batch = self.demos.sample(self.np_rng, n_demo) if n_demo else None
        if n_demo < cfg.batch:
            own = self.replay.sample(self.np_rng, cfg.batch - n_demo)
            batch = own if batch is None else concat_batches(batch, own)
        assert batch is not None
        loss = self._loss(batch, n_demo)
        self.opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        nn.utils.clip_grad_norm_(self.net.parameters(), 10.0)
        self.opt.step()
        self.steps += 1
        if self.steps % cfg.target_every == 0:
            self.target.load_state_dict(self.net.state_dict())
        return float(loss.detach())

    # -- acting
    def greedy(self, obs: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            q = self.net(torch.from_numpy(obs)[None])[0].numpy()
        return int(np.where(mask.astype(bool), q, -np.inf).argmax())

    def epsilon(self) -> float:
        cfg = self.cfg
        frac = min(1.0, self.episodes / max(1, cfg.eps_episodes))
        return cfg.eps_start + frac * (cfg.eps_end - cfg.eps_start)

    def evaluate(self, games: int) -> float:
        """Greedy score rate (draw = 1/2) against the opponent on fixed seat-swapped deals."""
        def choose(obs: np.ndarray, mask: np.ndarray, view: dict[str, Any], shown: list[Any],
                   rng: random.Random) -> int:
            return self.greedy(obs, mask)

        points = 0.0
        for g in range(games):
            points += play_episode(10_000_000 + g // 2, 1 + g % 2, self.cfg.opponent, choose).won
        return points / games

    # -- checkpoints
    def save(self) -> Path:
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / "checkpoint.pt"
        tmp = path.with_name(path.name + PARTIAL)
        torch.save({"config": asdict(self.cfg), "net": self.net.state_dict(),
                    "target": self.target.state_dict(), "opt": self.opt.state_dict(),
                    "steps": self.steps, "episodes": self.episodes,
                    "pretrained": self.pretrained, "curve": self.curve,
                    "demo_stats": self.demo_stats, "np_rng": self.np_rng.bit_generator.state,
                    "replay": self.replay.state_dict(), "demos": self.demos.state_dict()}, tmp)
        tmp.replace(path)  # a crash mid-write never leaves a broken checkpoint
        (self.out / "curve.json").write_text(json.dumps(self.curve, indent=1))
        return path

    def load(self, path: Path) -> None:
        ck = torch.load(path, weights_only=False)
        self.net.load_state_dict(ck["net"])
        self.target.load_state_dict(ck["target"])
        self.opt.load_state_dict(ck["opt"])
        self.steps, self.episodes = ck["steps"], ck["episodes"]
        self.pretrained, self.curve = ck["pretrained"], ck["curve"]
        self.demo_stats = ck.get("demo_stats", {})
        self.np_rng.bit_generator.state = ck["np_rng"]
        self.replay.load_state_dict(ck["replay"])
        self.demos.load_state_dict(ck["demos"])

    # -- the phases
    def collect_demos(self, progress: Callable[[int], object]) -> None:
        cfg = self.cfg
        jobs = [(cfg.seed * 100_003 + i // 2, 1 + i % 2, cfg.opponent, cfg.teacher)
                for i in range(cfg.demo_episodes)]
        won = 0.0
        for ep in map_episodes(teacher_episode, jobs, cfg.jobs):
            self.demos.add_episode(ep, cfg.gamma, cfg.n_step)
            won += ep.won
            progress(1)
        self.demo_stats = {"episodes": float(cfg.demo_episodes),
                           "teacher_score_rate": won / max(1, cfg.demo_episodes)}

    def pretrain(self, progress: Callable[[int], object]) -> None:
        while self.pretrained < self.cfg.pretrain_steps:
            self._update(1.0)
            self.pretrained += 1
            progress(1)

    def train_episode(self) -> Episode:
        cfg = self.cfg
        eps = self.epsilon()

        def choose(obs: np.ndarray, mask: np.ndarray, view: dict[str, Any], shown: list[Any],
                   rng: random.Random) -> int:
            if rng.random() < eps:
                return int(rng.choice(np.flatnonzero(mask)))
            return self.greedy(obs, mask)

        seed = cfg.seed * 1_000_003 + 500_000 + self.episodes
        ep = play_episode(seed, 1 + self.episodes % 2, cfg.opponent, choose)
        self.replay.add_episode(ep, cfg.gamma, cfg.n_step)
        for _ in range(cfg.updates_per_episode):
            self._update(cfg.demo_ratio)
        self.episodes += 1
        return ep
