"""Property tests over random games: the invariants every position of every game must keep.

Each test plays seeded random games (move = ``random.Random(seed).choice(state.legal_moves())``,
and for a third of the games a random "builder" that mostly builds, to reach science victories,
token choices and the wonders' special steps more often) and checks one family of invariants at
every ply. Together they cover a few thousand games in well under a minute; hypothesis picks the
seeds and shrinks a failure to one seed.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import jsonschema
from helpers.games import play_out
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duel.engine import CARD_NAMES, Deal, InfoSet, Move, new_game, seat_view, swap_move
from duel.engine.data import CARDS, GREEN, TOKEN_NAMES, WONDER_NAMES
from duel.engine.moves import MoveKind
from duel.engine.perspective import Perspective
from duel.engine.state import GameState, PlayerState
from duel.engine.steps import WONDER_SELECTION
from duel.schemas import schema, schema_error

SEEDS = st.integers(0, 10**9)
BOXES = st.booleans()
POLICIES = st.sampled_from(["uniform", "uniform", "builder"])


def _settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# One compiled validator; schema_error (slower, names the field) only explains a failure.
_STATE_VALIDATOR = jsonschema.Draft202012Validator(schema("state"))

# Card, wonder and token names as whole words (QUARRY must not match SHELF_QUARRY).
_NAME_RE = re.compile(
    r"(?<![A-Z0-9_])("
    + "|".join(sorted(map(re.escape, CARD_NAMES + WONDER_NAMES + TOKEN_NAMES), key=len,
                      reverse=True))
    + r")(?![A-Z0-9_])")


def names_in(view: dict[str, Any]) -> set[str]:
    return set(_NAME_RE.findall(json.dumps(view)))


def builder_choice(rng: random.Random, state: GameState) -> Move:
    """A random player that mostly builds, greens and wonders first: it reaches the rare paths
    (science victories, token choices, the Great Library, the Mausoleum, the 7th wonder) far more
    often than uniform play does."""
    moves = state.legal_moves()
    builds = [m for m in moves if m.kind in ("CONSTRUCT_BUILDING", "CONSTRUCT_WONDER")]
    if builds and rng.random() < 0.85:
        keen = [m for m in builds if m.kind == "CONSTRUCT_WONDER"
                or CARDS[state.pyramid[m.card_index]].color == GREEN]
        return rng.choice(keen if keen and rng.random() < 0.7 else builds)
    return rng.choice(moves)


def random_game(seed: int, open_box: bool = True, policy: str = "uniform"
                ) -> Iterator[tuple[GameState, Move, GameState]]:
    """Yield (state, move, next_state) for a seeded random game; the last next_state is final.
    "uniform" is rng.choice(legal_moves()); "builder" is builder_choice."""
    state = new_game(seed, open_box=open_box)
    rng = random.Random(seed)
    while not state.is_terminal():
        if policy == "uniform":
            move = rng.choice(state.legal_moves())
        else:
            move = builder_choice(rng, state)
        nxt = state.apply(move)
        yield state, move, nxt
        state = nxt


@functools.lru_cache(maxsize=64)
def dealt_so_far(deal: Deal, age: int) -> list[int]:
    """Every card laid out in a structure up to `age`, sorted (Age I is laid out, face down
    where the layout says so, from the start of the draft)."""
    return sorted(c for a in range(1, age + 1) for c in deal.age(a))


def check_accounting(state: GameState, tucked: list[int]) -> None:
    """Cities + discard pile + cards tucked under wonders + the structure hold every card dealt
    so far exactly once, and every card of this Age's layout is still in its slot or gone from
    the structure (to exactly one of the other places, by the first check)."""
    cities = [c for p in state.players for c in p.cards]
    pyramid = [c for c in state.pyramid if c >= 0]
    dealt = dealt_so_far(state.deal, state.age)
    if sorted(cities + state.discard + tucked + pyramid) != dealt:
        where = Counter(cities) + Counter(state.discard) + Counter(tucked) + Counter(pyramid)
        raise AssertionError(
            f"cards misplaced at ply {state.ply}: extra "
            f"{[CARD_NAMES[c] for c in where - Counter(dealt)]}, missing "
            f"{[CARD_NAMES[c] for c in Counter(dealt) - where]}, twice "
            f"{[CARD_NAMES[c] for c, n in where.items() if n > 1]}")
    layout = state.deal.age(state.age)
    assert len(layout) == 20 and len(set(layout)) == 20
    for slot, card in enumerate(layout):
        if state.pyramid[slot] != card:
            assert state.pyramid[slot] == -1, f"slot {slot} holds a card not dealt there"


def hidden_names(state: GameState) -> set[str]:
    """Names no view of `state` may show: face-down cards, removed cards, future Ages, unseen
    wonders of the draft, and (hidden box) the boxed tokens and wonders."""
    deal = state.deal
    hidden: set[int] = set(deal.removed1) | set(deal.removed2) | set(deal.removed3) | \
        set(deal.removed_guilds)
    if state.step == WONDER_SELECTION:
        hidden |= set(deal.age1) | set(deal.age2) | set(deal.age3)
    else:
        for age in range(state.age + 1, 4):
            hidden |= set(deal.age(age))
        for slot, card in enumerate(state.pyramid):
            if card >= 0 and not (state.face_up >> slot) & 1:
                hidden.add(card)
    names = {CARD_NAMES[c] for c in hidden}
    if state.step == WONDER_SELECTION and state.draft_pick < 4:
        # Round 2 of the draft, and the wonders out (round 2 would follow by elimination).
        names |= {WONDER_NAMES[w] for w in deal.wonder_draft[4:] + deal.wonders_out}
    if not state.open_box:
        names |= {WONDER_NAMES[w] for w in deal.wonders_out}
        names |= {TOKEN_NAMES[t] for t in state.tokens_box}
    return names


def snapshot(state: GameState) -> tuple[Any, ...]:
    """Everything observable about a state: both views, every internal field (copied) and the
    priced legal moves."""
    def copy(v: Any) -> Any:
        return v[:] if isinstance(v, list) else v

    # dataclasses.fields, not __slots__: a compiled (mypyc) class has no __slots__.
    # The game code as read, not `given_code`: a state fills that in when its code is first read.
    fields = {f.name: copy(getattr(state, f.name)) for f in dataclasses.fields(GameState)
              if f.name not in ("players", "given_code")}
    fields["code"] = state.code
    players = [{f.name: copy(getattr(p, f.name)) for f in dataclasses.fields(PlayerState)
                if f.name != "table"}
               for p in state.players]
    # Legal moves and prices too: the price memo is shared between a state and its copies.
    return (seat_view(state), Perspective.of_player(1).view(state), fields, players,
            state.priced_moves())


# ---------------------------------------------------------------------------- the game itself
@_settings(2500)
@given(seed=SEEDS, open_box=BOXES, policy=POLICIES)
def test_game_invariants(seed: int, open_box: bool, policy: str) -> None:
    """Coins, card accounting, terminal <=> no legal move, and replay of deal + moves."""
    state0 = new_game(seed, open_box=open_box)
    tucked: list[int] = []
    moves: list[Move] = []
    state = state0
    check_accounting(state, tucked)
    for before, move, state in random_game(seed, open_box, policy):
        assert before.legal_moves(), "a non-terminal state has no legal move"
        assert before.result() is None
        if move.kind == MoveKind.CONSTRUCT_WONDER:
            tucked.append(before.pyramid[move.card_index])
        moves.append(move)
        for seat, p in enumerate(state.players):
            assert p.coins >= 0, f"player {seat + 1} has {p.coins} coins after {move}"
        check_accounting(state, tucked)
        assert state.is_terminal() == (state.legal_moves() == []), \
            f"terminal={state.is_terminal()} with legal moves {state.legal_moves()[:5]}"
    final = state
    assert final.is_terminal() and final.legal_moves() == []
    result = final.result()
    assert result is not None and result.winner_label in (1, 2, "draw")
    assert result.victory in ("military", "science", "civilian")
    # The deal and the move list are the whole game.
    again = play_out(state0.deal, moves, open_box=open_box)
    assert again.result() == result
    assert seat_view(again) == seat_view(final)  # the game code depends on the deal only


@_settings(1000)
@given(seed=SEEDS)
def test_deal_json_round_trip(seed: int) -> None:
    deal = new_game(seed).deal
    obj = deal.to_json()
    assert json.loads(json.dumps(obj)) == obj
    assert Deal.from_json(obj) == deal
    assert Deal.from_json(json.loads(json.dumps(obj))) == deal
    assert schema_error("deal", obj) is None


# ---------------------------------------------------------------------------- purity
@_settings(300)
@given(seed=SEEDS)
def test_apply_never_mutates(seed: int) -> None:
    """`apply` leaves its input untouched, and later moves never reach back into older states
    (no list shared between a state and its successor)."""
    history: list[tuple[GameState, tuple[Any, ...]]] = []
    for before, move, _after in random_game(seed):
        snap = snapshot(before)
        history.append((before, snap))
        assert snapshot(before) == snap, f"apply({move}) changed its input"
    for i, (state, snap) in enumerate(history):
        assert snapshot(state) == snap, f"the state at ply {i} changed later in the game"


# ---------------------------------------------------------------------------- views
@_settings(60)
@given(seed=SEEDS, open_box=BOXES, policy=POLICIES)
def test_views_valid_json_and_hide_everything_hidden(seed: int, open_box: bool,
                                                     policy: str) -> None:
    """Every view, in both labellings, validates against the state schema, survives a JSON round
    trip unchanged, and names no face-down, removed, future or boxed (hidden box) item."""
    final = None
    for state, _move, final in random_game(seed, open_box, policy):  # noqa: B007 - used after the loop
        check_views(state)
    assert final is not None
    check_views(final)


def check_views(state: GameState) -> None:
    hidden = hidden_names(state)
    for as_player2 in (1, 2):
        view = Perspective.of_player(as_player2).view(state)
        if not _STATE_VALIDATOR.is_valid(view):
            raise AssertionError(schema_error("state", view))
        assert json.loads(json.dumps(view)) == view
        leaked = names_in(view) & hidden
        assert not leaked, f"view (as_player2={as_player2}) at ply {state.ply} shows {leaked}"


# ---------------------------------------------------------------------------- information sets
_COMPARE_NEXT = ("step", "age", "currentPlayerNumber", "player1", "player2", "military",
                 "discardedCards", "tokensAvailable", "wondersUnavailable", "previousMove")


def _without_prev(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "previousMove"}


def _pyramid_facts(view: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """Slots, active flags, and names of the slots that were face up before the move."""
    return {k: (e["isActive"], e["cardName"] if k in known else None)
            for k, e in view["visiblePyramid"].items()}


def check_infoset(state: GameState, move: Move | None, seed: int, continue_game: bool) -> bool:
    """Checks one state; True if two samples of its view differed in their hidden cards."""
    differed = False
    true_moves = state.legal_moves()
    true_priced = state.priced_moves()
    for as_player2 in (2, 1):
        flip = as_player2 == 1
        view = Perspective.of_player(as_player2).view(state)
        info = InfoSet.from_view(view)
        s1 = info.sample(random.Random(seed))
        s2 = info.sample(random.Random(seed + 1))
        v1 = seat_view(s1)
        assert _without_prev(v1) == _without_prev(view), \
            f"sampled view differs at ply {state.ply} (as_player2={as_player2})"
        assert seat_view(s2) == v1, "two samples of one view give different views"
        assert Perspective.of_player(1).view(s2) == Perspective.of_player(1).view(s1)
        differed = differed or s1.pyramid != s2.pyramid or s1.deal != s2.deal
        if flip:
            key = lambda mp: (str(mp[0]), mp[1])  # noqa: E731
            assert sorted(((swap_move(m), p) for m, p in s1.priced_moves()), key=key) == \
                sorted(true_priced, key=key)
        else:
            assert s1.legal_moves() == true_moves
            assert s1.priced_moves() == true_priced
        if move is None:
            continue
        # The same move from the sample: the same public consequences (who moves next, coins,
        # cities, the pawn...) except for cards and tokens it reveals.
        mine = swap_move(move) if flip else move
        after_true = Perspective.of_player(as_player2).view(state.apply(move))
        after_sample = seat_view(s1.apply(mine))
        # The last pick of the draft's round 1 reveals round 2 (and, open box, the wonders out),
        # which the view did not know.
        reveals_round2 = state.step == WONDER_SELECTION and state.draft_pick == 3
        for key in _COMPARE_NEXT:
            if reveals_round2 and key == "wondersUnavailable":
                continue
            assert after_sample[key] == after_true[key], \
                (f"after {move} at ply {state.ply} (as_player2={as_player2}), {key}: sample "
                 f"{after_sample[key]!r} != true {after_true[key]!r}")
        if not reveals_round2:
            # Round 1's wonders, or round 2's once that round has started: known to the view.
            assert sorted(after_sample["wondersAvailable"]) == \
                sorted(after_true["wondersAvailable"])
        if after_true["age"] == view["age"]:
            known = {k for k, e in view["visiblePyramid"].items()
                     if not e["cardName"].endswith("_BACK")}
            assert _pyramid_facts(after_sample, known) == _pyramid_facts(after_true, known)
        if continue_game:
            # A sampled state is a complete game: it plays on to a result.
            rng = random.Random(seed)
            s = s1
            while not s.is_terminal():
                s = s.apply(rng.choice(s.legal_moves()))
                assert all(p.coins >= 0 for p in s.players)
            assert s.result() is not None
    return differed


@_settings(150)
@given(seed=SEEDS, open_box=BOXES, policy=POLICIES)
def test_infoset_round_trip(seed: int, open_box: bool, policy: str) -> None:
    """A state sampled from a view shows that same view, has the same legal moves and prices, and
    reacts to a move as the true state does; two samples are indistinguishable."""
    differed = False
    for state, move, final in random_game(seed, open_box, policy):  # noqa: B007 - used after the loop
        differed |= check_infoset(state, move, seed * 7 + state.ply,
                                  continue_game=state.ply % 20 == 0)
    check_infoset(final, None, seed, continue_game=False)
    assert differed, "the samples never differed: the identical-views check proved nothing"
