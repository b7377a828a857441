"""Training examples from self-play games: each decision's position (encoded from the mover's
side), its legal moves, the search's policy target and the game's result.

A game is re-played from its deal's seed and moves (`duel.learning.guide.selfplay`); every position
where the mover had a choice becomes one example:

- **policy target**: the improved policy the guided search recorded (Gumbel's
  softmax(logit + sigma(completed q))), else the root's visit shares (the ISMCTS bootstrap);
  a position won on the spot (no search) targets the winning move;
- **value target**: the mover's result z (1, 1/2, 0) mixed with the root's value q (the root
  children's values weighted by the improved policy, or by visits for the bootstrap) as
  ``(1 - q_weight) * z + q_weight * q`` where a search ran. z alone is very noisy in a game
  with this much luck: from the first 180 bootstrap games, a net taught z alone (q_weight 0.3)
  made a one-ply player that scored 5 of 20 against `rule`, one taught q alone (q_weight 1,
  the default) 13 of 20 (docs/guide.md). The net then learns what a search thinks of a
  position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from duel.agents.guided.features import encode, moves_slots
from duel.engine import new_game
from duel.learning.guide.selfplay import GameRecord

MAX_MOVES = 96  # legal moves per position kept (the most seen in self-play is about 60)


@dataclass
class Examples:
    """Examples as arrays: features in CSR form, moves padded to MAX_MOVES."""

    indptr: np.ndarray  # (n + 1,) int64
    indices: np.ndarray  # (nnz,) int32
    values: np.ndarray  # (nnz,) float32
    slots: np.ndarray  # (n, MAX_MOVES, 2) int32, -1 where none
    policy: np.ndarray  # (n, MAX_MOVES) float32, 0 on padding
    value: np.ndarray  # (n,) float32
    game: np.ndarray  # (n,) int32: the game's index (for held-out splits)

    def __len__(self) -> int:
        return len(self.value)

    def take(self, rows: np.ndarray) -> Examples:
        starts, ends = self.indptr[rows], self.indptr[rows + 1]
        lengths = ends - starts
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        picks = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends, strict=True)]) \
            if len(rows) else np.zeros(0, dtype=np.int64)
        return Examples(indptr, self.indices[picks], self.values[picks], self.slots[rows],
                        self.policy[rows], self.value[rows], self.game[rows])

    def dense(self, rows: np.ndarray, n_features: int) -> np.ndarray:
        """The rows' features as a dense (len(rows), n_features) float32 array."""
        x = np.zeros((len(rows), n_features), dtype=np.float32)
        for r, i in enumerate(rows):
            s, e = self.indptr[i], self.indptr[i + 1]
            x[r, self.indices[s:e]] = self.values[s:e]
        return x


def examples(games: Sequence[GameRecord], q_weight: float = 1.0) -> Examples:
    """Every decision with a choice in `games`, in order."""
    indptr = [0]
    indices: list[int] = []
    values: list[float] = []
    slots: list[np.ndarray] = []
    policy: list[np.ndarray] = []
    value: list[float] = []
    game_of: list[int] = []
    for g in games:
        state = new_game(g.seed)
        for move in g.moves:
            legal = state.legal_moves()
            if len(legal) > 1 and len(legal) <= MAX_MOVES:
                mover = state.current
                z = 0.5 if g.winner < 0 else (1.0 if g.winner == mover else 0.0)
                target = np.zeros(MAX_MOVES, dtype=np.float32)
                stats = g.searches.get(state.ply)
                v = z
                if stats:
                    where = {m: i for i, m in enumerate(legal)}
                    total = sum(n for _, n, _ in stats)
                    shares = g.targets.get(state.ply) if g.targets else None
                    for k, (m, n, _) in enumerate(stats):
                        if m in where:
                            target[where[m]] = shares[k] if shares else n / max(1, total)
                    q = root_value(stats, shares)
                    v = (1.0 - q_weight) * z + q_weight * q
                else:
                    target[legal.index(move)] = 1.0  # won on the spot, or a move played unsearched
                s = target.sum()
                if s > 0:
                    target /= s
                idx: list[int] = []
                val: list[float] = []
                encode(state, idx, val)
                indices.extend(idx)
                values.extend(val)
                indptr.append(len(indices))
                pairs = np.full((MAX_MOVES, 2), -1, dtype=np.int32)
                pairs[:len(legal)] = np.asarray(moves_slots(state, legal),
                                                dtype=np.int32).reshape(-1, 2)
                slots.append(pairs)
                policy.append(target)
                value.append(v)
                game_of.append(g.index)
            state.play(move)
    n = len(value)
    return Examples(np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int32),
                    np.asarray(values, dtype=np.float32),
                    np.stack(slots) if n else np.zeros((0, MAX_MOVES, 2), dtype=np.int32),
                    np.stack(policy) if n else np.zeros((0, MAX_MOVES), dtype=np.float32),
                    np.asarray(value, dtype=np.float32), np.asarray(game_of, dtype=np.int32))


def root_value(stats: Sequence[tuple[object, int, float]], shares: Sequence[float] | None
               ) -> float:
    """The root's value: its children's values weighted by the search's policy target (the
    improved policy, over the children it visited) or, without one, by their visits."""
    weights = [(shares[k] if shares else float(n)) if n else 0.0
               for k, (_, n, _) in enumerate(stats)]
    total = sum(weights)
    if total <= 0:
        return sum(n * q for _, n, q in stats) / max(1, sum(n for _, n, _ in stats))
    return sum(w * q for w, (_, _, q) in zip(weights, stats, strict=True)) / total


def concat(parts: Sequence[Examples]) -> Examples:
    offsets = np.cumsum([0] + [len(p.indices) for p in parts])
    shifted = [p.indptr[1:] + o for p, o in zip(parts, offsets, strict=False)]
    indptr = np.concatenate([parts[0].indptr[:1], *shifted])
    return Examples(indptr, np.concatenate([p.indices for p in parts]),
                    np.concatenate([p.values for p in parts]),
                    np.concatenate([p.slots for p in parts]),
                    np.concatenate([p.policy for p in parts]),
                    np.concatenate([p.value for p in parts]),
                    np.concatenate([p.game for p in parts]))
