"""A masked deep-Q network trained against an opponent, seeded with demonstrations.

The design (what worked, see the README): Deep Q-learning from Demonstrations (Hester et al.,
2018). A teacher (by default MCTS) plays the learner's seat for some episodes; the network is
pre-trained on them with the double-DQN n-step TD loss plus a large-margin loss that pushes the
teacher's action above every other legal one, then it plays itself (epsilon-greedy) against the
opponent and keeps learning from both its own replay buffer and the demonstrations. Illegal
actions are masked to -inf before every max and argmax, in targets as in play.

Needs the ``train`` extra (PyTorch); playing the exported model needs only onnxruntime.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import torch
from torch import nn

from duel.agents.mcts import MCTSAgent
from duel.agents.spec import make_agent
from duel.engine import Seat, new_game
from duel.engine.perspective import Perspective
from duel.match import decide
from duel.rl.encoding import (
    A_BUILD,
    A_DISCARD,
    A_SELECT,
    A_WONDER,
    N_ACTIONS,
    N_WONDERS,
    OBS_SIZE,
    PRIOR_START,
    SLOT_FEATURES,
    SLOTS,
    SLOTS_START,
    action_mask,
    action_of,
    encode_view,
    move_of,
)

# The per-slot head's outputs, in the action layout's order.
SLOT_ACTIONS = 2 + N_WONDERS
assert A_BUILD == 0 and A_DISCARD == SLOTS and A_WONDER == 2 * SLOTS
assert A_SELECT == A_WONDER + SLOTS * N_WONDERS
assert SLOTS_START + SLOTS * SLOT_FEATURES == PRIOR_START
assert PRIOR_START + N_ACTIONS == OBS_SIZE
N_OTHER: Final = N_ACTIONS - A_SELECT


@dataclass
class Config:
    opponent: str = "rule"
    teacher: str = "mcts:iterations=300"
    demo_episodes: int = 600
    pretrain_steps: int = 6000
    episodes: int = 400
    hidden: int = 256
    gamma: float = 0.99
    n_step: int = 10
    lr: float = 2.5e-4
    batch: int = 128
    buffer: int = 200_000
    demo_ratio: float = 0.25  # share of each batch drawn from the demonstrations
    margin: float = 0.8  # large-margin loss: how far the teacher's action must lead
    margin_weight: float = 1.0  # for demonstrations without search statistics
    distill_weight: float = 1.0  # for a searching teacher's root values
    adv_penalty: float = 0.1  # keeps advantages near 0 where nothing moves them
    eps_start: float = 0.10
    eps_end: float = 0.01
    eps_episodes: int = 1500
    updates_per_episode: int = 16
    target_every: int = 500  # gradient steps between target-network copies
    eval_every: int = 250
    eval_games: int = 100
    jobs: int = 2
    seed: int = 0


class QNet(nn.Module):
    """Observation in, one Q-value per action out.

    The 20 pyramid slots share one small network: a slot's build, discard and "bury under each
    wonder" values come from the state's embedding joined with that slot's own features and its
    actions' priors, so what is learnt about a card in one slot holds in every slot (a plain MLP
    must learn each slot apart and, on this little data, does not). Draft, token, destroy,
    discard-pile and start-player values come from the state embedding and their priors.

    Each action's prior (the rule agent's judgement, 0 for its pick, up to 1) also enters the
    Q-value directly, scaled by a learnt positive weight: an untrained network already plays
    the rule agent's pick, and training teaches the heads where to differ from it."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(PRIOR_START, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU())
        self.slot_embed = nn.Sequential(nn.Linear(SLOT_FEATURES, 64), nn.ReLU())
        self.slot_head = nn.Sequential(nn.Linear(hidden + 64 + SLOT_ACTIONS, 128), nn.ReLU(),
                                       nn.Linear(128, SLOT_ACTIONS))
        self.other_head = nn.Linear(hidden + N_OTHER, N_OTHER)
        self.value = nn.Linear(hidden, 1)
        # softplus(1.8546) = 2: a prior of 0.1 (one point of the evaluation) costs 0.2.
        self.prior_weight = nn.Parameter(torch.tensor(1.8546))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        value, advantage, prior = self.parts(obs)
        return value + advantage - prior

    def parts(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Q = value + advantage - prior term: the state's value (batch, 1), each action's
        learnt advantage and its scaled prior (batch, N_ACTIONS). Training keeps advantages
        small where nothing shows them (a penalty), so the value absorbs what the returns say
        about the state and the prior's ranking stands until evidence moves it."""
        batch = obs.shape[0]
        base, prior = obs[:, :PRIOR_START], obs[:, PRIOR_START:]
        h = self.trunk(base)
        slots = base[:, SLOTS_START:].reshape(batch, SLOTS, SLOT_FEATURES)
        slot_prior = torch.cat([prior[:, A_BUILD:A_DISCARD, None],
                                prior[:, A_DISCARD:A_WONDER, None],
                                prior[:, A_WONDER:A_SELECT].reshape(batch, SLOTS, N_WONDERS)],
                               dim=2)
        joint = torch.cat([h.unsqueeze(1).expand(batch, SLOTS, h.shape[1]),
                           self.slot_embed(slots), slot_prior], dim=2)
        per_slot = self.slot_head(joint)  # (batch, slot, [build, discard, wonder x 12])
        advantage = torch.cat([per_slot[:, :, 0], per_slot[:, :, 1],
                               per_slot[:, :, 2:].reshape(batch, SLOTS * N_WONDERS),
                               self.other_head(torch.cat([h, prior[:, A_SELECT:]], dim=1))],
                              dim=1)
        return (self.value(h), advantage,
                nn.functional.softplus(self.prior_weight) * prior)


# ---------------------------------------------------------------------------- experience
@dataclass
class Episode:
    """The learner's decisions of one game, and the final reward from its side."""

    obs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    reward: float = 0.0
    won: float = 0.5
    # A searching teacher's root statistics per decision: each action's value (-1..1) and its
    # share of the visits (0 where not searched). Empty for other players.
    teacher_q: list[np.ndarray] = field(default_factory=list)
    teacher_w: list[np.ndarray] = field(default_factory=list)


Chooser = Callable[[np.ndarray, np.ndarray, dict[str, Any], list[Any], random.Random], int]


def play_episode(seed: int, seat: int, opponent: str, choose: Chooser) -> Episode:
    """One game: `choose` acts for `seat` (given the observation, mask, view and legal moves in
    its labels), the opponent agent for the other seat."""
    rng = random.Random(seed * 2 + seat)
    opp = make_agent(opponent)
    state = new_game(seed)
    ep = Episode()
    while not state.is_terminal():
        mover = state.current_player
        if mover != seat:
            move, _, _ = decide(opp, state, rng)
            state.play(move)
            continue
        view = Perspective.of_player(seat).view(state)
        legal = state.legal_moves()
        shown = Perspective.of_player(seat).moves_out(legal)
        obs, mask = encode_view(view), action_mask(shown)
        a = choose(obs, mask, view, shown, rng)
        move = move_of(a)
        state.play(Perspective.of_player(seat).move_in(move))
        ep.obs.append(obs)
        ep.masks.append(mask)
        ep.actions.append(a)
    result = state.result()
    assert result is not None
    ep.won = result.points(Seat.of_player(seat))
    ep.reward = 2.0 * ep.won - 1.0
    return ep


def _teacher_episode(args: tuple[int, int, str, str]) -> Episode:
    seed, seat, opponent, teacher_spec = args
    teacher = make_agent(teacher_spec)
    searches = isinstance(teacher, MCTSAgent)
    qs: list[np.ndarray] = []
    ws: list[np.ndarray] = []

    def choose(obs: np.ndarray, mask: np.ndarray, view: dict[str, Any], shown: list[Any],
               rng: random.Random) -> int:
        if not searches:
            return action_of(teacher.choose(view, shown, rng).move)
        assert isinstance(teacher, MCTSAgent)
        decision, children = teacher.analyse(view, shown, rng)
        q = np.zeros(N_ACTIONS, np.float32)
        w = np.zeros(N_ACTIONS, np.float32)
        total = sum(visits for _, visits, _ in children)
        for move, visits, reward in children:
            if visits:
                q[action_of(move)] = 2.0 * reward / visits - 1.0
                w[action_of(move)] = visits / total
        if not children:  # a forced move or an immediate win: certain
            q[action_of(decision.move)] = 1.0 if len(shown) > 1 else 0.0
            w[action_of(decision.move)] = 1.0 if len(shown) > 1 else 0.0
        qs.append(q)
        ws.append(w)
        return action_of(decision.move)

    ep = play_episode(seed, seat, opponent, choose)
    ep.teacher_q, ep.teacher_w = qs, ws
    return ep


class Replay:
    """A ring buffer of n-step transitions (obs, action, discounted reward, bootstrap obs and
    mask, bootstrap discount; discount 0 ends the return)."""

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


def _cat(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Rows of `a` then `b`; fields only `a` has (the teacher's statistics) stay `a`'s."""
    return {k: torch.cat([a[k], b[k]]) if k in b else a[k] for k in a}


NEG = -1e9


# ---------------------------------------------------------------------------- the trainer
class Trainer:
    """Holds the networks, buffers and counters; `run` trains with checkpoints under `out`."""

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
            batch = own if batch is None else _cat(batch, own)
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
        tmp = path.with_suffix(".tmp")
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
        for ep in _map(_teacher_episode, jobs, cfg.jobs):
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


def _map(fn: Callable[[Any], Episode], jobs: list[Any], processes: int) -> Iterator[Episode]:
    if processes <= 1:
        yield from map(fn, jobs)
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes) as pool:
        yield from pool.imap(fn, jobs, chunksize=1)


def export_onnx(net: QNet, path: Path) -> None:
    """The Q-network as ONNX (opset 17, dynamic batch), the format the `dqn` agent plays."""
    net.eval()
    dummy = torch.zeros(1, OBS_SIZE)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (dummy,), str(path), input_names=["obs"], output_names=["q"],
                      dynamic_axes={"obs": {0: "batch"}, "q": {0: "batch"}}, opset_version=17,
                      dynamo=False)


def plot_curve(curve: list[dict[str, float]], path: Path, opponent: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [c["episodes"] for c in curve]
    ax.plot(xs, [c["score_rate"] for c in curve], marker="o")
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("training episodes (after pre-training on demonstrations)")
    ax.set_ylabel(f"score rate vs {opponent}")
    ax.set_ylim(0, 1)
    ax.set_title("masked DQN: greedy score rate (draw = 1/2)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def train(cfg: Config, out: Path, resume: bool = True, quiet: bool = False) -> Trainer:
    """Collect demonstrations, pre-train, then train for `cfg.episodes` episodes, evaluating and
    checkpointing every `cfg.eval_every`; a run in `out` resumes where its checkpoint left off."""
    from tqdm import tqdm

    torch.set_num_threads(1)
    trainer = Trainer(cfg, out)
    ck = out / "checkpoint.pt"
    if resume and ck.exists():
        trainer.load(ck)
    start = time.perf_counter()
    if trainer.demos.n == 0 and cfg.demo_episodes:
        with tqdm(total=cfg.demo_episodes, desc=f"demos ({cfg.teacher})", disable=quiet) as bar:
            trainer.collect_demos(bar.update)
        trainer.save()
    if trainer.pretrained < cfg.pretrain_steps:
        with tqdm(total=cfg.pretrain_steps, initial=trainer.pretrained, desc="pre-training",
                  disable=quiet) as bar:
            trainer.pretrain(bar.update)
        trainer.target.load_state_dict(trainer.net.state_dict())
        trainer.curve.append({"episodes": 0, "score_rate": trainer.evaluate(cfg.eval_games)})
        torch.save(trainer.net.state_dict(), out / "best.pt")  # the first candidate
        trainer.save()
    with tqdm(total=cfg.episodes, initial=trainer.episodes, desc=f"training vs {cfg.opponent}",
              disable=quiet) as bar:
        recent: list[float] = []
        while trainer.episodes < cfg.episodes:
            recent = (recent + [trainer.train_episode().won])[-100:]
            bar.update(1)
            bar.set_postfix(eps=f"{trainer.epsilon():.3f}",
                            won=f"{sum(recent) / len(recent):.2f}")
            if trainer.episodes % cfg.eval_every == 0 or trainer.episodes == cfg.episodes:
                rate = trainer.evaluate(cfg.eval_games)
                trainer.curve.append({"episodes": trainer.episodes, "score_rate": rate})
                if rate >= max(c["score_rate"] for c in trainer.curve):
                    torch.save(trainer.net.state_dict(), out / "best.pt")
                trainer.save()
    elapsed = time.perf_counter() - start
    meta = {"config": asdict(cfg), "curve": trainer.curve, "demo_stats": trainer.demo_stats,
            "seconds_this_run": round(elapsed, 1), "steps": trainer.steps}
    (out / "train.json").write_text(json.dumps(meta, indent=1))
    best = out / "best.pt"
    final = QNet(cfg.hidden)
    final.load_state_dict(torch.load(best) if best.exists() else trainer.net.state_dict())
    export_onnx(final, out / "model.onnx")
    plot_curve(trainer.curve, out / "learning_curve.png", cfg.opponent)
    return trainer
