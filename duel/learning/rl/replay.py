"""The replay buffer: n-step transitions cut from episodes, sampled as tensors."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from duel.learning.rl.encoding import N_ACTIONS, OBS_SIZE
from duel.learning.rl.episodes import Episode


class Replay:
    """A ring buffer of n-step transitions (obs, action, discounted reward, bootstrap obs and
    mask, bootstrap discount; discount 0 ends the return). With `teacher`, each row also keeps
    the teacher's root statistics (`tq`, `tw`) for distillation."""

    def __init__(self, size: int, teacher: bool = False) -> None:
        self.size = size
        self.teacher = teacher
        self.tq = np.zeros((size if teacher else 0, N_ACTIONS), np.float16)
        self.tw = np.zeros((size if teacher else 0, N_ACTIONS), np.float16)
        self.obs = np.zeros((size, OBS_SIZE), np.float32)
        self.mask = np.zeros((size, N_ACTIONS), np.int8)
        self.action = np.zeros(size, np.int64)
        self.ret = np.zeros(size, np.float32)
        self.next_obs = np.zeros((size, OBS_SIZE), np.float32)
        self.next_mask = np.zeros((size, N_ACTIONS), np.int8)
        self.discount = np.zeros(size, np.float32)
        self.n = 0
        self.pos = 0

    def add_episode(self, ep: Episode, gamma: float, n_step: int) -> None:
        t_end = len(ep.actions)
        for t in range(t_end):
            k = min(n_step, t_end - t)
            i = self.pos
            self.obs[i] = ep.obs[t]
            self.mask[i] = ep.masks[t]
            self.action[i] = ep.actions[t]
            if self.teacher:
                has = bool(ep.teacher_w)
                self.tq[i] = ep.teacher_q[t] if has else 0.0
                self.tw[i] = ep.teacher_w[t] if has else 0.0
            if t + k < t_end:  # bootstrap from the learner's decision k steps later
                self.ret[i] = 0.0
                self.next_obs[i] = ep.obs[t + k]
                self.next_mask[i] = ep.masks[t + k]
                self.discount[i] = gamma ** k
            else:  # the game ends within n steps: the return is the discounted result
                self.ret[i] = ep.reward * gamma ** (t_end - 1 - t)
                self.next_obs[i] = 0.0
                self.next_mask[i] = 0
                self.next_mask[i, 0] = 1  # any legal action, its value is multiplied by 0
                self.discount[i] = 0.0
            self.pos = (self.pos + 1) % self.size
            self.n = min(self.n + 1, self.size)

    def sample(self, rng: np.random.Generator, k: int) -> dict[str, torch.Tensor]:
        idx = rng.integers(0, self.n, size=k)
        extra = {"tq": torch.from_numpy(self.tq[idx].astype(np.float32)),
                 "tw": torch.from_numpy(self.tw[idx].astype(np.float32))} if self.teacher else {}
        return {**extra, "obs": torch.from_numpy(self.obs[idx]),
                "mask": torch.from_numpy(self.mask[idx].astype(bool)),
                "action": torch.from_numpy(self.action[idx]),
                "ret": torch.from_numpy(self.ret[idx]),
                "next_obs": torch.from_numpy(self.next_obs[idx]),
                "next_mask": torch.from_numpy(self.next_mask[idx].astype(bool)),
                "discount": torch.from_numpy(self.discount[idx])}

    def _fields(self) -> tuple[str, ...]:
        return ("obs", "mask", "action", "ret", "next_obs", "next_mask", "discount") + (
            ("tq", "tw") if self.teacher else ())

    def state_dict(self) -> dict[str, Any]:
        n = self.n
        return {"n": n, "pos": self.pos,
                **{k: getattr(self, k)[:n].copy() for k in self._fields()}}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        n = int(d["n"])
        for k in self._fields():
            getattr(self, k)[:n] = d[k]
        self.n, self.pos = n, int(d["pos"]) % self.size


def concat_batches(a: dict[str, torch.Tensor],
                   b: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Rows of `a` then `b`; fields only `a` has (the teacher's statistics) stay `a`'s."""
    return {k: torch.cat([a[k], b[k]]) if k in b else a[k] for k in a}
