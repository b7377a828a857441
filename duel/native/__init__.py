"""The native core (C++, docs/native.md): the rules, random playouts and the ISMCTS search,
transcribed from the Python engine and held to it ply by ply by tests/engine/test_native.py.

This module is the bridge: it loads the extension ``duel._native`` when :mod:`duel.build` says
the built one matches its sources (a stale build never runs), hands it duel.engine.data's tables
(so the rules' data are written once, in Python), and converts states and moves both ways.
:func:`available` says whether it can be used; everything else assumes it can.
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any, Final

from duel.engine.data import (
    AGE1_CARDS,
    AGE2_CARDS,
    AGE3_CARDS,
    CARD_NAMES,
    CARDS,
    CHAIN_FROM,
    GUILD_CARDS,
    TOKEN_NAMES,
    WONDER_NAMES,
    WONDERS,
)
from duel.engine.layout import COVERED_BY, COVERS, FACE_UP_MASK
from duel.engine.moves import (
    BUILD_MOVES,
    DESTROY_MOVES,
    DISCARD_MOVES,
    FROM_DISCARD_MOVES,
    LIBRARY_MOVES,
    SELECT_MOVES,
    START_MOVES,
    TOKEN_MOVES,
    WONDER_MOVES,
    Move,
)
from duel.engine.result import VICTORY_CIVILIAN, VICTORY_MILITARY, VICTORY_SCIENCE
from duel.engine.state import GameState

_module: ModuleType | None = None


def available() -> bool:
    """True when the native core is built, not stale, and not turned off (DUEL_PURE=1)."""
    return core() is not None


def core() -> Any:
    """The loaded extension (data handed over), or None (see duel.build.native_state)."""
    global _module
    if _module is None:
        from duel import build

        if build.native() != "native":
            return None
        # By name: the extension has no stubs, and is absent from a pure install.
        native = importlib.import_module(f"duel.{build.NATIVE_MODULE}")
        _load_data(native)
        _module = native
    return _module


def _load_data(native: Any) -> None:
    cards = [{"color": c.color, "coins": c.coins, "chain_from": CHAIN_FROM[c.id],
              "symbol": c.symbol, "vp": c.vp, "shields": c.shields,
              "discount_mask": c.discount_mask, "wild": c.wild,
              "gain": c.gain, "gain_amount": c.gain_amount, "instant_coins": c.instant_coins,
              "guild_kind": c.guild_kind, "has_resource_cost": c.has_resource_cost,
              "age": c.age, "produces": c.produces, "needs": list(c.needs),
              "guild_colors": list(c.guild_colors)} for c in CARDS]
    wonders = [{"vp": w.vp, "shields": w.shields, "play_again": w.play_again, "coins": w.coins,
                "opp_loses": w.opp_loses, "destroy": w.destroy, "wild": w.wild,
                "library": w.library, "mausoleum": w.mausoleum, "needs": list(w.needs)}
               for w in WONDERS]
    covers = [[(list(COVERS[a][s]), len(COVERED_BY[a][s])) for s in range(20)]
              for a in range(3)]
    native.load_data(cards, wonders, covers, list(FACE_UP_MASK),
                     [list(AGE1_CARDS), list(AGE2_CARDS), list(AGE3_CARDS)], list(GUILD_CARDS))


# ---------------------------------------------------------------- moves
# A native move is kind << 12 | a << 4 | b (engine.h): the kinds in MOVE_KINDS order.
def _code(kind: int, a: int, b: int = 0) -> int:
    return kind << 12 | a << 4 | b


def _move_table() -> dict[int, Move]:
    table: dict[int, Move] = {}
    for w, m in enumerate(SELECT_MOVES):
        table[_code(0, w)] = m
    for slot in range(20):
        table[_code(1, slot)] = BUILD_MOVES[slot]
        table[_code(2, slot)] = DISCARD_MOVES[slot]
        for w, m in enumerate(WONDER_MOVES[slot]):
            table[_code(3, slot, w)] = m
    for t in range(len(TOKEN_NAMES)):
        table[_code(4, t)] = TOKEN_MOVES[t]
        table[_code(5, t)] = LIBRARY_MOVES[t]
    for c in range(len(CARDS)):
        table[_code(6, c)] = DESTROY_MOVES[c]
        table[_code(7, c)] = FROM_DISCARD_MOVES[c]
    for n, m in enumerate(START_MOVES, 1):
        table[_code(8, n)] = m
    return table


MOVE_OF: Final[dict[int, Move]] = _move_table()
CODE_OF: Final[dict[Move, int]] = {m: code for code, m in MOVE_OF.items()}
_VICTORY: Final = ("", VICTORY_CIVILIAN, VICTORY_MILITARY, VICTORY_SCIENCE)
_AGE_NAMES: Final = ("I", "II", "III")


# ---------------------------------------------------------------- states
def _player_fields(p: Any) -> dict[str, Any]:
    return {"coins": p.coins, "built": (p.built & (2**64 - 1), p.built >> 64),
            "cards": list(p.cards), "color_count": list(p.color_count), "prod": tuple(p.prod),
            "discount": p.discount, "wild_raw": p.wild_raw, "wild_man": p.wild_man,
            "sym1": p.sym1, "sym2": p.sym2, "tokens": p.tokens,
            "token_list": tuple(p.token_list), "wonders": tuple(p.wonders),
            "wonder_age": tuple(p.wonder_age)}


def to_native(state: GameState) -> Any:
    """The native copy of `state` (its deal's parts the rules still read included)."""
    d = state.deal
    fields = {
        "step": state.step, "age": state.age, "current": state.current,
        "players": [_player_fields(p) for p in state.players], "military": state.military,
        "loot": state.loot, "pyramid": state.pyramid, "face_up": state.face_up,
        "cover": state.cover, "accessible": state.accessible, "remaining": state.remaining,
        "discard": state.discard, "tokens_board": state.tokens_board,
        "tokens_box": state.tokens_box, "library": state.library,
        "wonders_available": state.wonders_available, "draft_pick": state.draft_pick,
        "wonders_built": state.wonders_built, "wonders_removed": state.wonders_removed,
        "play_again": state.play_again, "last_player": state.last_player,
        "winner": state.winner, "victory": _VICTORY.index(state.victory), "ply": state.ply,
        "first": state.first, "wonder_draft": d.wonder_draft,
        "ages": (d.age1, d.age2, d.age3)}
    return core().State.load(fields)


def python_fields(state: GameState) -> dict[str, Any]:
    """Every field of `state` that the rules write, in the form :func:`native_fields` gives
    (the caches aside: the price book and tables, the game code; the deal is the input)."""
    out = {name: getattr(state, name) for name in (
        "step", "age", "current", "military", "loot", "pyramid", "face_up", "cover",
        "accessible", "remaining", "discard", "tokens_board", "tokens_box", "library",
        "wonders_available", "draft_pick", "wonders_built", "wonders_removed", "play_again",
        "last_player", "winner", "victory", "ply", "first", "prev")}
    out["players"] = [_player_fields(p) for p in state.players]
    return out


def native_fields(native: Any, loaded_prev: tuple[Any, ...] = (-1, "", -1, ())
                  ) -> dict[str, Any]:
    """The native state's fields as :func:`python_fields` gives a GameState's. `loaded_prev`:
    the prev of the state it was loaded from, while no move has been played on it."""
    out: dict[str, Any] = native.fields()
    out["players"] = list(out["players"])
    out["victory"] = _VICTORY[out["victory"]]
    out["prev"] = _prev(out["prev"], out["age"], loaded_prev)
    return out


def _prev(raw: tuple[int, int, int, int, int], age: int, loaded: tuple[Any, ...]
          ) -> tuple[Any, ...]:
    """GameState.prev from the native record: the same text and values its handlers write."""
    actor, code, card, value, target = raw
    if code < 0:
        return loaded
    kind, a, b = code >> 12, (code >> 4) & 0xFF, code & 15
    if kind == 0:
        return (actor, f"selected wonder {WONDER_NAMES[a]}", -1, ())
    if kind == 1:
        return (actor, "constructed {} for {} coins", -1, (CARD_NAMES[card], value))
    if kind == 2:
        return (actor, "discarded {} for {} coins", -1, (CARD_NAMES[card], value))
    if kind == 3:
        return (actor, "constructed wonder {} with {} for {} coins", -1,
                (WONDER_NAMES[b], CARD_NAMES[card], value))
    if kind == 4:
        return (actor, f"chose progress token {TOKEN_NAMES[a]}", -1, ())
    if kind == 5:
        return (actor, f"chose progress token {TOKEN_NAMES[a]} with THE_GREAT_LIBRARY", -1, ())
    if kind == 6:
        return (actor, f"destroyed {CARD_NAMES[a]} of player {{target}}", target, ())
    if kind == 7:
        return (actor, f"constructed {CARD_NAMES[a]} from the discard pile with THE_MAUSOLEUM",
                -1, ())
    return (actor, f"chose player {{target}} to start Age {_AGE_NAMES[age - 1]}", target, ())


def legal_moves(native: Any) -> list[Move]:
    return [MOVE_OF[code] for code in native.legal()]


def random_game(native: Any, rng: random.Random) -> list[Move]:
    """duel.engine.playout.random_game on the native state: the same moves from the same
    generator, which is left where the Python playout would leave it."""
    version, words, gauss = rng.getstate()
    moves, after = native.random_game(list(words))
    rng.setstate((version, tuple(after), gauss))
    return [MOVE_OF[code] for code in moves]


def random_games(first_seed: int, count: int, rng: random.Random) -> int:
    """`duel bench engine`'s loop in native code: game i dealt from seed first_seed + i, the
    moves drawn from `rng`. Returns the moves played."""
    version, words, gauss = rng.getstate()
    moves, after = core().random_games(first_seed, count, list(words))
    rng.setstate((version, tuple(after), gauss))
    return int(moves)


# ---------------------------------------------------------------- the search
_POLICY: Final = {"uniform": 0, "heuristic": 1, "mast": 2}


def search(info: Any, rng: random.Random, iterations: int, seconds: float, c: float,
           rollout: str, build_bias: float, margin: float, epsilon: float, kept: Any = None,
           age_tree: bool = False) -> tuple[list[tuple[Move, int, float]], int, Any]:
    """MCTSAgent.search in native code (duel/native/search.cpp): the root children's (move,
    visits, total reward) in the order they were expanded, the iterations done, and the tree
    (a ``Tree``, for :func:`keep`). `kept`: a tree from :func:`keep` to grow, else a fresh
    root; `age_tree`: the tree stops at the next Age (tree="age"). `info` is an InfoSet;
    `rng` is left where the Python search leaves it."""
    version, words, gauss = rng.getstate()
    children, done, after, tree = core().search(
        kept, to_native(info.template), list(info.hidden_slots),
        [list(pool) for pool in info.age_pools], list(info.guild_pool), list(info.box_pool),
        list(info.wonder_pool), list(words), iterations, seconds, c, _POLICY[rollout],
        build_bias, margin, epsilon, age_tree)
    rng.setstate((version, tuple(after), gauss))
    return [(MOVE_OF[m], visits, reward) for m, visits, reward in children], int(done), tree


def keep(tree: Any, move: Move, after: GameState, base: GameState, legal: list[Move]) -> Any:
    """MCTSAgent._kept for a native tree: the subtree below `tree`'s child for `move` (the
    move chosen; `after`, a sample of the position after it) whose position is `base`'s in
    public, detached and pruned to `legal`; None when there is none."""
    return core().keep(tree, CODE_OF[move], to_native(after), to_native(base),
                       [CODE_OF[m] for m in legal])


class Sweeper:
    """The analyser's search below its root in native code (duel/native/search.cpp: Sweeper):
    one subtree per move of `moves`, grown as duel.analysis.search._sweep grows it, from the
    generator state of `rng` (which stays untouched until :meth:`finish` hands the state
    back, where the Python sweeps would have left it). `reserve`: the iterations expected,
    to size the tree once."""

    def __init__(self, info: Any, moves: list[Move], rng: random.Random, c: float,
                 rollout: str, build_bias: float, epsilon: float, reserve: int) -> None:
        version, words, gauss = rng.getstate()
        self._version, self._gauss = version, gauss
        self._index = {move: i for i, move in enumerate(moves)}
        self._native = core().Sweeper(
            to_native(info.template), list(info.hidden_slots),
            [list(pool) for pool in info.age_pools], list(info.guild_pool),
            list(info.box_pool), list(info.wonder_pool), list(words),
            [CODE_OF[m] for m in moves], c, _POLICY[rollout], build_bias, epsilon, reserve)

    def sweep(self, alive: list[Move], count: int, seconds: float) -> int:
        """`count` sweeps over `alive` (one iteration each), or with `seconds` > 0 sweeps until
        that many seconds have passed (one at least). Returns the iterations run."""
        return int(self._native.sweep([self._index[m] for m in alive], count, seconds))

    def stats(self) -> list[tuple[int, float, float]]:
        """Each move's (visits, sum of results, sum of squared results), in `moves`' order."""
        return [(int(v), float(t), float(q)) for v, t, q in self._native.stats()]

    def finish(self, rng: random.Random) -> None:
        """Leave `rng` where the Python sweeps would have left it."""
        rng.setstate((self._version, tuple(self._native.words()), self._gauss))


# ---------------------------------------------------------------- the guided search
class GuidedSearch:
    """The guided search's tree in native code (duel/native/guided.h), below a root the agent
    expanded in Python (`moves` with their `priors`, the network's `value`; one visit). The
    network stays in Python: `evaluate(idx, val, slots)` gives the mover's value and the
    moves' priors (features and policy slots as duel.agents.guided.features gives them), so the
    arithmetic is the Python search's. `layout`: duel.agents.guided.features' constants by name
    (the guide's layer hands them down; duel.agents.guided.agent.feature_layout). The generator
    is read at :meth:`start` and handed back at :meth:`finish`, where the Python simulations
    would have left it."""

    def __init__(self, info: Any, moves: list[Move], priors: list[float], value: float,
                 c: float, fpu: float, cap: int, mix: float, epsilon: float,
                 evaluate: Any, layout: dict[str, int]) -> None:
        self._native = core().GuidedSearch(
            to_native(info.template), list(info.hidden_slots),
            [list(pool) for pool in info.age_pools], list(info.guild_pool),
            list(info.box_pool), list(info.wonder_pool), bool(info.template.open_box),
            [CODE_OF[m] for m in moves], list(priors), value, c, fpu, cap, mix, epsilon,
            layout, evaluate)
        self._version: Any = None
        self._gauss: Any = None
        self._nets: list[Net] = []

    def start(self, rng: random.Random) -> None:
        """Draw from `rng`'s state from now on (until :meth:`finish`)."""
        version, words, gauss = rng.getstate()
        self._version, self._gauss = version, gauss
        self._native.start(list(words))

    def run(self, limit: int, seconds: float) -> int:
        """GuidedAgent._puct's loop: simulations until `limit` (if > 0) or `seconds`."""
        return int(self._native.run(limit, seconds))

    def sweep(self, alive: list[int], count: int, seconds: float, timed: bool) -> int:
        """`count` rounds of one simulation per root child in `alive` (indices), or with
        `timed` rounds until `seconds` have passed (one at least)."""
        return int(self._native.sweep(alive, count, seconds, timed))

    def stats(self) -> tuple[int, float, list[tuple[int, float]]]:
        """The root's visits and value, and each root child's, in the moves' order."""
        visits, value, children = self._native.stats()
        return int(visits), float(value), [(int(n), float(v)) for n, v in children]

    def results(self) -> list[tuple[int, float, float]]:
        """Each root move's (simulations swept below it, sum of their results, sum of their
        squares), the results from the root mover's side, in `moves`' order: the analyser's
        figures (duel.analysis.guided)."""
        return [(int(v), float(t), float(q)) for v, t, q in self._native.results()]

    def use_net(self, net: Net) -> None:
        """Evaluate with `net` in C++ from now on instead of the callback (native=2)."""
        self._native.use_net(net.native)
        self._nets.append(net)

    def features(self, state: GameState) -> tuple[list[int], list[float], list[int]]:
        """What the tree hands the network for `state` (for the tests)."""
        idx, val, slots = self._native.features(to_native(state))
        return list(idx), list(val), list(slots)

    def finish(self, rng: random.Random) -> None:
        """Leave `rng` where the Python simulations would have left it (and count the
        evaluations a native network made)."""
        rng.setstate((self._version, tuple(self._native.words()), self._gauss))
        for net in self._nets:
            net.take_evaluations()


class Net:
    """The guide's network in C++ (guided.h: Net) from a NumpyGuide's weights: the same
    function in float32, summed in another order (values and priors agree to about 1e-6, not
    to the bit). `evaluate(idx, val, slots)` as the callback; `evaluations` counts them and
    :meth:`take_evaluations` hands the new ones to the guide's own count."""

    def __init__(self, guide: Any) -> None:
        self.guide = guide
        self.native = core().Net(guide.w_in, guide.b_in, [(w, b) for w, b in guide.body],
                                 guide.w_pol, guide.b_pol, guide.w_v1, guide.b_v1,
                                 guide.w_v2, float(guide.b_v2))
        self._counted = 0

    def evaluate(self, idx: list[int], val: list[float], slots: list[int]
                 ) -> tuple[float, list[float]]:
        value, priors = self.native.evaluate(idx, val, slots)
        self._counted += 1  # a direct call, not a search's: not the guide's to count
        return float(value), list(priors)

    def take_evaluations(self) -> None:
        """Add the evaluations made in C++ since the last call to the guide's count."""
        done = int(self.native.evaluations)
        self.guide.evaluations += done - self._counted
        self._counted = done
