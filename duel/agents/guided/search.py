"""The guided search's tree: PUCT with the network's priors, the network's value at the leaves,
and chance nodes at card reveals with a cap on the outcomes sampled.

7 Wonders Duel hides nothing from one player that it shows the other: the face-down cards, the
decks of later Ages, the box's order and the draft's second round are hidden from both. So the
players share one information set, the public state, and the game is a perfect-information game
with chance events (the reveals). Each simulation deals the hidden cards afresh (the caller's
sample of the information set), descends by PUCT (AlphaZero: Silver et al. 2018) and, where a
move turns cards face up (or lays out an Age, draws the Great Library's tokens, reveals the
draft's second round), follows the chance node's child for what the sample revealed. Every
decision node therefore stands for one public state, its legal moves are fixed and the network
evaluates exactly what the player would see.

The cap (Stochastic MuZero, Antonoglou et al. 2022; ZeusAI, arXiv 2406.00741, at most 11
outcomes per reveal): a chance node holds at most `cap` outcomes; once full, a simulation whose
sample reveals something else is sent down one of them instead, drawn in proportion to how often
each was sampled, with the still-hidden cards of that outcome's stored state dealt afresh
(`duel.agents.guided.redeal`), so its deeper subtrees keep growing instead of thinning out over ever
new outcomes.

Values are expected scores in [0, 1] (win 1, draw 1/2, loss 0); a node's `value` is the sum
over its visits from the side of the player who made its move (`seat`).

Plain typed Python compiled with mypyc like the engine; the network is reached through the
`Evaluator` interface (duel.agents.guided.runtime, never compiled).
"""

from __future__ import annotations

import math
import random
from typing import Protocol

from duel.agents.guided.redeal import redeal
from duel.agents.mcts import Mast, rollout
from duel.engine.data import CARDS, PURPLE
from duel.engine.moves import Move
from duel.engine.state import GameState
from duel.engine.steps import CHOOSE_LIBRARY_TOKEN, GAME_END, WONDER_SELECTION


class Evaluator(Protocol):
    def evaluate(self, state: GameState, moves: list[Move]) -> tuple[float, list[float]]:
        """The mover's expected score and the prior of each of `moves`."""
        ...


class GNode:
    """A move's node: its statistics, and either the decision that follows (`children`, once
    expanded) or, when the move reveals cards, the outcomes that follow (`outcomes`)."""

    __slots__ = ("move", "seat", "prior", "visits", "value", "children", "to_move", "chance",
                 "outcomes", "snap", "hits")

    def __init__(self, move: Move | None, seat: int, prior: float) -> None:
        self.move = move
        self.seat = seat  # who made `move`; `value` is from their side
        self.prior = prior
        self.visits = 0
        self.value = 0.0
        self.children: list[GNode] | None = None
        self.to_move = -1
        self.chance = -1  # -1 not known yet, 0 the move reveals nothing, 1 it does
        self.outcomes: dict[tuple[int, ...], GNode] | None = None
        self.snap: GameState | None = None  # an outcome's state, for redirected simulations
        self.hits = 0  # simulations whose own sample revealed this outcome

    def q(self) -> float:
        return self.value / self.visits if self.visits else 0.0


class Params:
    """The tree's knobs (the agent's spec sets them)."""

    __slots__ = ("c", "fpu", "cap", "mix", "mast")

    def __init__(self, c: float, fpu: float, cap: int, mix: float, epsilon: float) -> None:
        self.c = c
        self.fpu = fpu
        self.cap = cap
        self.mix = mix
        self.mast: Mast | None = Mast(epsilon) if mix > 0 else None


def expand(node: GNode, state: GameState, moves: list[Move], evaluator: Evaluator) -> float:
    """Give `node` a child per move with the network's priors; the mover's value."""
    value, priors = evaluator.evaluate(state, moves)
    mover = state.current
    node.to_move = mover
    node.children = [GNode(moves[i], mover, priors[i]) for i in range(len(moves))]
    return value


def select(node: GNode, c: float, fpu: float) -> GNode:
    """PUCT: q + c * prior * sqrt(N) / (1 + n); an unvisited child counts as the node's own
    value for the mover less `fpu` (first-play urgency)."""
    children = node.children
    assert children is not None
    mover = node.to_move
    own = node.value / node.visits if node.visits else 0.5
    first = (own if node.seat == mover else 1.0 - own) - fpu
    scale = c * math.sqrt(node.visits)
    best = children[0]
    best_s = -1e9
    for ch in children:
        n = ch.visits
        q = ch.value / n if n else first
        s = q + scale * ch.prior / (1 + n)
        if s > best_s:
            best_s = s
            best = ch
    return best


def reveal_key(state: GameState) -> tuple[int, ...]:
    """What a reveal showed: the structure as seen (card ids face up, -2 an Age's back, -3 a
    guild's, -1 empty), the Great Library's draw and the draft's offer."""
    out: list[int] = []
    if state.step != WONDER_SELECTION:
        pyramid = state.pyramid
        up = state.face_up
        for slot in range(20):
            card = pyramid[slot]
            if card < 0:
                out.append(-1)
            elif (up >> slot) & 1:
                out.append(card)
            else:
                out.append(-3 if CARDS[card].color == PURPLE else -2)
    out.append(-9)
    out.extend(sorted(state.library))
    out.append(-9)
    if state.step == WONDER_SELECTION:
        out.extend(sorted(state.wonders_available))
    return tuple(out)


def reveals(before_step: int, before_age: int, before_up: int, before_pick: int,
            before_library: int, state: GameState) -> bool:
    """Whether the move just played showed something hidden before it."""
    if state.step == GAME_END:
        return False
    if before_step == WONDER_SELECTION:
        # The draft's end lays Age I out; its fourth pick shows the second round's wonders.
        return state.step != WONDER_SELECTION or (before_pick < 4 <= state.draft_pick)
    if state.age != before_age:
        return True
    if state.step == CHOOSE_LIBRARY_TOKEN and before_library == 0:
        return True
    return state.face_up != before_up


def simulate(root: GNode, state: GameState, rng: random.Random, params: Params,
             evaluator: Evaluator, forced: GNode | None = None) -> float:
    """One simulation from `root` (expanded), `state` a fresh sample of its position (played on
    in place). `forced`: the root child to take (the Gumbel root's schedule). Returns seat 0's
    result backed up."""
    path: list[GNode] = [root]
    node = root
    value0 = 0.5
    while True:
        if state.step == GAME_END:
            value0 = state.points(0)
            break
        if node.children is None:
            value = expand(node, state, state.legal_moves(), evaluator)
            if params.mix > 0:
                value = (1.0 - params.mix) * value + params.mix * _rollout(state, rng, params)
            value0 = value if state.current == 0 else 1.0 - value
            break
        if forced is not None and node is root:
            child = forced
        else:
            child = select(node, params.c, params.fpu)
        step, age, up, pick = state.step, state.age, state.face_up, state.draft_pick
        library = len(state.library)
        move = child.move
        assert move is not None
        state.play(move)
        path.append(child)
        if child.chance < 0:
            child.chance = 1 if reveals(step, age, up, pick, library, state) else 0
        if child.chance == 1:
            state, node = _outcome(child, state, rng, params.cap)
            path.append(node)
        else:
            node = child
    for n in path:
        n.visits += 1
        n.value += value0 if n.seat == 0 else 1.0 - value0
    return value0


def _outcome(child: GNode, state: GameState, rng: random.Random, cap: int
             ) -> tuple[GameState, GNode]:
    """The outcome node below chance node `child` for what `state` revealed, or, the cap
    reached, one of those it has (and a state for it)."""
    outcomes = child.outcomes
    if outcomes is None:
        outcomes = {}
        child.outcomes = outcomes
    key = reveal_key(state)
    out = outcomes.get(key)
    if out is not None:
        out.hits += 1
        return state, out
    if cap <= 0 or len(outcomes) < cap:
        out = GNode(child.move, child.seat, 1.0)
        out.hits = 1
        if cap > 0:
            out.snap = state.clone()
        outcomes[key] = out
        return state, out
    total = 0
    for o in outcomes.values():
        total += o.hits
    x = rng.random() * total
    chosen: GNode | None = None
    for o in outcomes.values():
        chosen = o
        x -= o.hits
        if x < 0:
            break
    assert chosen is not None and chosen.snap is not None
    return redeal(chosen.snap, rng), chosen


def _rollout(state: GameState, rng: random.Random, params: Params) -> float:
    """A MAST rollout's result for the player to move in `state` (untouched)."""
    mover = state.current
    s = state.clone()
    mast = params.mast
    rollout(s, rng, "mast", 0.75, mast)
    r0 = s.points(0)
    if mast is not None:
        mast.learn((r0, 1.0 - r0))
    return r0 if mover == 0 else 1.0 - r0
