"""No peeking: agents decide the same in twin games that differ only in hidden cards, and never
receive a hidden card's name."""

from __future__ import annotations

import functools
import json
import random

import pytest

from duel.agents import make_agent
from duel.engine import CARDS, Deal, GameState, Move, new_game
from duel.engine.data import PURPLE
from duel.engine.perspective import Perspective
from duel.engine.steps import STEP_NAMES, WONDER_SELECTION
from duel.match import decide, play_match


def twin_deal(state: GameState, history: list[Move], rng: random.Random) -> Deal:
    """A deal that agrees with `state`'s on everything the players have seen by now, and is
    drawn afresh everywhere else: face-down cards of the current Age (with the cards set aside),
    later Ages, round 2 of the wonder draft while round 1 is on (and so the wonders out of the
    game), the order of the token box until the Great Library draws from it, and the order of
    the cards set aside in past Ages."""
    d = state.deal
    drafting = state.step == WONDER_SELECTION
    age = 0 if drafting else state.age
    layouts = [list(d.age1), list(d.age2), list(d.age3)]
    removed = [list(d.removed1), list(d.removed2), list(d.removed3)]
    guilds_out = list(d.removed_guilds)
    for a in (1, 2, 3):
        lay, rem = layouts[a - 1], removed[a - 1]
        if a < age:
            rng.shuffle(rem)
            if a == 3:
                rng.shuffle(guilds_out)
        elif a == age:
            hidden = [s for s in range(20)
                      if state.pyramid[s] >= 0 and not (state.face_up >> s) & 1]
            for guild in (False, True):  # a guild's back tells it from other Age III cards
                slots = [s for s in hidden if (CARDS[lay[s]].color == PURPLE) == guild]
                pool = [lay[s] for s in slots] + (guilds_out if guild else rem)
                rng.shuffle(pool)
                for s in slots:
                    lay[s] = pool.pop()
                if guild:
                    guilds_out = pool
                else:
                    removed[a - 1] = pool
        elif a < 3:
            pool = lay + rem
            rng.shuffle(pool)
            layouts[a - 1], removed[a - 1] = pool[:20], pool[20:]
        else:
            plain = [c for c in lay if CARDS[c].color != PURPLE] + rem
            guilds = [c for c in lay if CARDS[c].color == PURPLE] + guilds_out
            rng.shuffle(plain)
            rng.shuffle(guilds)
            layout = plain[:17] + guilds[:3]
            rng.shuffle(layout)
            layouts[2], removed[2], guilds_out = layout, plain[17:], guilds[3:]
    round1, round2, out = list(d.wonder_draft[:4]), list(d.wonder_draft[4:]), list(d.wonders_out)
    if drafting and state.draft_pick < 4:
        rest = round2 + out
        rng.shuffle(rest)
        round2, out = rest[:4], rest[4:]
    rng.shuffle(out)
    box = list(d.tokens_box)
    if not any(m.kind == "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD" or m.wonder == "THE_GREAT_LIBRARY"
               for m in history):
        rng.shuffle(box)
    return Deal(tuple(round1 + round2), tuple(out), d.tokens_board, tuple(box),
                tuple(layouts[0]), tuple(layouts[1]), tuple(layouts[2]),
                tuple(removed[0]), tuple(removed[1]), tuple(removed[2]), tuple(guilds_out))


def twin_game(state: GameState, history: list[Move], rng: random.Random) -> GameState:
    """The same moves replayed, checked, on a twin deal: another game with the same history."""
    twin = new_game(deal=twin_deal(state, history, rng), open_box=state.open_box)
    for move in history:
        twin = twin.apply(move)
    return twin


def public(view: dict) -> dict:
    # The game code is a hash of the whole deal (engine: deal_code), so twins differ in it.
    return {k: v for k, v in view.items() if k != "code"}


@functools.cache
def histories() -> list[tuple[int, bool, tuple[Move, ...]]]:
    """Rule-vs-rule games, open and hidden box, until every step has occurred."""
    wanted = set(STEP_NAMES) - {"GAME_END"}
    seen: set[str] = set()
    out = []
    for seed in range(200):
        open_box = seed % 2 == 0
        result = play_match("rule", "rule", seed=seed, open_box=open_box)
        steps = {r.step for r in result.records}
        if steps - seen:
            out.append((seed, open_box, tuple(r.move for r in result.records)))
            seen |= steps
        if seen == wanted:
            return out
    raise AssertionError(f"no game reached {wanted - seen}")


def _keeps_no_tree(agent: object) -> bool:
    """A search asked for no tree reuse (the default of both `mcts` and the guided search)."""
    return not getattr(agent, "reuse", False)


def comparable(details: dict) -> dict:
    return {k: v for k, v in details.items() if k != "seconds"}  # wall time


@pytest.mark.parametrize("spec", ["random", "rule", "mcts:iterations=12,reuse=1",
                                  "mcts:iterations=12,rollout=uniform,c=1.2,reuse=1",
                                  # The Python search beside the native one (both keep
                                  # their trees when asked to).
                                  "mcts:iterations=12,native=0,reuse=1",
                                  "mcts:iterations=12,tree=age,reuse=1",
                                  "mcts:iterations=12,native=0,tree=age,reuse=1",
                                  "mcts:guide=default,iterations=24",
                                  "mcts:guide=default,iterations=16,root=puct,cap=2,mix=0.3",
                                  # The Python guided tree, keeping its subtree (what
                                  # it keeps must not depend on hidden cards either).
                                  "mcts:guide=default,iterations=16,cap=2,reuse=1"])
def test_no_peeking_twin_games_give_the_same_decisions(spec: str) -> None:
    """Two games that differ only in hidden cards: at every ply of games that go through every
    step, a twin game is built with the same moves on a deal that differs in everything still
    hidden. The seats' views are the same (but for the game code, a hash of the deal), and each
    agent, with the same seed, makes the same decision with the same details in both. Each seat
    of each game has an agent of its own, which sees that seat's views one after another: what
    a search keeps between moves (its tree) must not depend on the hidden cards either."""
    agents = [make_agent(spec), make_agent(spec)]
    twin_agents = [make_agent(spec), make_agent(spec)]
    reused = 0
    steps: set[str] = set()
    compared = twins_differ = 0
    for seed, open_box, moves in histories():
        state = new_game(seed, open_box=open_box)
        for ply, move in enumerate(moves):
            twin = twin_game(state, list(moves[:ply]), random.Random(ply))
            twins_differ += twin.deal != state.deal
            for seat in (None, 1, 2):
                assert public(Perspective.of_player(seat).view(twin)) == \
                    public(Perspective.of_player(seat).view(state)), f"seed {seed} ply {ply}"
            assert twin.legal_moves() == state.legal_moves()
            a = decide(agents[state.current], state, random.Random(ply))
            b = decide(twin_agents[twin.current], twin, random.Random(ply))
            reused += "reused" in a[1]
            assert a[0] == b[0], f"seed {seed} ply {ply} {state.step_name}: {a[0]} != {b[0]}"
            assert comparable(a[1]) == comparable(b[1])
            steps.add(state.step_name)
            compared += 1
            state = state.apply(move)
    assert steps == set(STEP_NAMES) - {"GAME_END"}
    assert twins_differ >= compared > 100
    assert reused > 10 or not spec.startswith("mcts") or _keeps_no_tree(agents[0])


def test_twin_games_really_hide_different_cards() -> None:
    """The twins above differ where it matters: face-down cards in the pyramid and later Ages."""
    seed, open_box, moves = histories()[0]
    state = new_game(seed, open_box=open_box)
    for move in moves[:12]:  # into Age I
        state = state.apply(move)
    twin = twin_game(state, list(moves[:12]), random.Random(0))
    down = [s for s in range(20) if state.pyramid[s] >= 0 and not (state.face_up >> s) & 1]
    assert [state.pyramid[s] for s in down] != [twin.pyramid[s] for s in down]
    assert state.deal.age2 != twin.deal.age2 and state.deal.age3 != twin.deal.age3
    assert [state.pyramid[s] for s in range(20) if (state.face_up >> s) & 1] == \
        [twin.pyramid[s] for s in range(20) if (twin.face_up >> s) & 1]


def test_agents_never_receive_hidden_card_names() -> None:
    seen_views: list[dict] = []

    class Spy:
        spec = "spy"

        def choose(self, view, legal, rng):  # type: ignore[no-untyped-def]
            seen_views.append(view)
            return make_agent("random").choose(view, legal, rng)

    result = play_match(Spy(), Spy(), seed=4)
    deal = result.deal
    removed = deal.removed1 + deal.removed2 + deal.removed3 + deal.removed_guilds
    from duel.engine import CARD_NAMES
    text = json.dumps(seen_views)
    for card in removed:
        assert f'"{CARD_NAMES[card]}"' not in text
    assert all(v["player2"]["id"] == 2 for v in seen_views)
