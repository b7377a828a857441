"""The Q-network: one Q-value per action of the fixed action space, from an observation."""

from __future__ import annotations

from typing import Final

import torch
from torch import nn

from duel.learning.rl.encoding import (
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
)

# The per-slot head's outputs, in the action layout's order.
SLOT_ACTIONS: Final = 2 + N_WONDERS
assert A_BUILD == 0 and A_DISCARD == SLOTS and A_WONDER == 2 * SLOTS
assert A_SELECT == A_WONDER + SLOTS * N_WONDERS
assert SLOTS_START + SLOTS * SLOT_FEATURES == PRIOR_START
assert PRIOR_START + N_ACTIONS == OBS_SIZE
N_OTHER: Final = N_ACTIONS - A_SELECT


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
