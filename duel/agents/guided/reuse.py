"""Tree reuse for the guided search: the node of the last search's tree that stands for the
position of the next decision becomes the next search's root.

The agent sees views, not the moves between them. After its own move it keeps that move's node
and a sample of the position after it; at the next decision it walks the tree from there along
the moves of the other seat that were searched, through the chance nodes' outcomes (each with
its stored state), until a decision node's public state is the new view's: the same features,
the same revealed cards, the same player to move. Every decision node of the guided tree stands
for one public state (duel.agents.guided.search), so that node's statistics and priors are
exactly the new root's. When nothing matches (an outcome the search never sampled, a view from
elsewhere) the search starts afresh. The walk reads public facts only; the samples' hidden
cards never decide anything.
"""

from __future__ import annotations

from duel.agents.guided.features import encode
from duel.agents.guided.search import GNode, reveal_key
from duel.engine import GameState, Move
from duel.engine.steps import GAME_END

DEPTH = 6  # decisions of the other seat (and chance events) walked at most

PublicKey = tuple[object, ...]


def public_key(state: GameState) -> PublicKey:
    """What the guided tree's decision nodes are told apart by."""
    idx: list[int] = []
    val: list[float] = []
    encode(state, idx, val)
    return (state.current, tuple(idx), tuple(val), reveal_key(state))


def follow(child: GNode, after: GameState, key: PublicKey, me: int,
           depth: int = DEPTH) -> GNode | None:
    """The node below root child `child` (`after`: a sample of the position after its move)
    whose public state is `key`, reached through moves of the seat other than `me`."""
    if child.chance == 1:
        for outcome in (child.outcomes or {}).values():
            if outcome.snap is not None:
                found = _find(outcome, outcome.snap, key, me, depth)
                if found is not None:
                    return found
        return None
    if child.chance == 0:
        return _find(child, after, key, me, depth)
    return None  # never simulated


def _find(node: GNode, state: GameState, key: PublicKey, me: int, depth: int) -> GNode | None:
    if state.step == GAME_END or node.children is None:
        return None
    if public_key(state) == key:
        return node
    if depth == 0 or state.current == me:
        return None  # a decision of `me`'s own: it would have been asked about it
    for child in node.children:
        if child.visits == 0 or child.move is None:
            continue
        after = state.clone()
        after.play(child.move)
        found = follow(child, after, key, me, depth - 1)
        if found is not None:
            return found
    return None


def usable(node: GNode, moves: list[Move]) -> bool:
    """Whether `node` can be the root for `moves` (expanded, with exactly these moves)."""
    children = node.children
    return children is not None and [ch.move for ch in children] == moves
