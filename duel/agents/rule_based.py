"""Rule-based agent: documented priorities in the spirit of the prompt's "general order of
importance" and the rule-based AI of the MCTS thesis (seed 001).

For a PLAY_CARD step, in order:

1. **Win now**: a build or wonder that wins at once (military or science).
2. **Stop the opponent winning next turn**: if an active card would give them military or
   science supremacy, take it (build it if it helps us, else bury it under a wonder or discard it);
   and never uncover a face-up card that would (a move that hands the opponent such a card is
   played only when every move does).
3. **Otherwise, the best one-ply move** by :func:`duel.agents.heuristics.evaluate`, which values
   early economy (resources we lack, trading discounts, coins, cheap wonders), chains, science
   pairs while good tokens are on the board, military when behind or close to a win, and points
   late; plus **denial**: a card taken away from the opponent counts for part of its value to
   them, and a face-up card a move uncovers for them counts against it.

Other steps: wonder draft by a fixed ranking (play-again and big-VP wonders first, adjusted for
what Theology on the board offers); progress tokens, destroy targets and Mausoleum builds by the
same evaluation after the move; the start-player choice always takes the first turn.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from duel.agents.base import Decision
from duel.agents.heuristics import WIN, evaluate
from duel.engine import InfoSet, Move, Seat
from duel.engine.data import CARDS, LAW, SCALE, STRATEGY, THEOLOGY
from duel.engine.layout import COVERS
from duel.engine.moves import MoveKind
from duel.engine.state import GameState
from duel.engine.steps import CHOOSE_TOKEN, PLAY_CARD

# Draft ranking, best first.
_WONDER_RANK = ("THE_SPHINX", "THE_TEMPLE_OF_ARTEMIS", "THE_APPIAN_WAY", "THE_PYRAMIDS",
                "PIRAEUS", "THE_HANGING_GARDENS", "THE_GREAT_LIBRARY", "THE_COLOSSUS",
                "THE_STATUE_OF_ZEUS", "THE_GREAT_LIGHTHOUSE", "CIRCUS_MAXIMUS", "THE_MAUSOLEUM")
_DENY = 0.45
_UNCOVER = 0.3


def opponent_winning_cards(state: GameState, opp: int) -> list[int]:
    """Active slots whose card would give `opp` supremacy if they built it next turn."""
    p = state.players[opp]
    out = []
    for slot in state.accessible_slots():
        if not (state.face_up >> slot) & 1:
            continue
        card = CARDS[state.pyramid[slot]]
        if state.card_price(opp, card.id) > p.coins:
            continue
        if card.shields:
            shields = card.shields + (1 if p.has_token(STRATEGY) else 0)
            pos = state.military if opp == 0 else -state.military
            if pos + shields >= 9:
                out.append(slot)
                continue
        if card.symbol >= 0:
            distinct = bin(p.sym1).count("1")
            if not (p.sym1 >> card.symbol) & 1:
                if distinct + 1 >= 6:
                    out.append(slot)
            elif LAW in state.tokens_board and not (p.sym1 >> SCALE) & 1 and distinct >= 5:
                out.append(slot)  # the pair lets them take LAW as the sixth symbol
    return out


def _after(state: GameState, move: Move) -> GameState:
    s = state.clone()
    s.play(move)
    return s


def _value_after(state: GameState, index: int, move: Move) -> float:
    s = _after(state, move)
    if s.step == CHOOSE_TOKEN and s.current == index:
        # The token choice is ours: count the best token.
        return max(evaluate(_after(s, m), index) for m in s.legal_moves())
    return evaluate(s, index)


def _hands_a_win(state: GameState, index: int, move: Move) -> bool:
    """After `move`, the opponent moves next and a card face up before the move would give
    them supremacy."""
    after = _after(state, move)
    if after.step != PLAY_CARD or after.current == index:
        return False
    return any((state.face_up >> slot) & 1
               for slot in opponent_winning_cards(after, 1 - index))


# Priorities as score tiers: any move of a higher priority scores above every move of a lower.
TIER: Final = 1e6
# Rules whose pick is a single move: no random tie-break.
_NO_TIES: Final = ("wonder ranking", "start the Age", "win now")
# The rule named when the best-valued move decides, by the kind of that move.
_BEST: Final[dict[str, str]] = {MoveKind.CONSTRUCT_BUILDING: "best build",
                                MoveKind.DISCARD: "best discard",
                                MoveKind.CONSTRUCT_WONDER: "best wonder"}


def preferences(state: GameState, moves: Sequence[Move]
                ) -> tuple[dict[Move, float], list[Move], str]:
    """The rule agent's judgement of the legal moves of the player to move: a score for every
    move (higher is better; see the module's priorities), the moves it picks among (ties broken
    at random) and the rule that decided. Learning agents read the scores as features."""
    moves = list(moves)
    index = state.current
    kind = moves[0].kind
    if kind == MoveKind.SELECT_WONDER:
        rank = list(_WONDER_RANK)
        if THEOLOGY in state.tokens_board:
            # Theology gives play-again to any wonder: raise the big-VP ones.
            rank.remove("THE_PYRAMIDS")
            rank.insert(0, "THE_PYRAMIDS")
        scores = {m: -float(rank.index(m.wonder)) for m in moves}
        return scores, [max(moves, key=scores.__getitem__)], "wonder ranking"
    if kind == MoveKind.CHOOSE_STARTING_PLAYER:
        scores = {m: 0.0 if m.player_number == Seat.of_index(index).player else -TIER
                  for m in moves}
        return scores, [m for m in moves if scores[m] == 0.0], "start the Age"
    if state.step != PLAY_CARD:
        return {m: _value_after(state, index, m) for m in moves}, moves, "best after the move"
    return _play_card(state, index, moves)


def _play_card(state: GameState, index: int, moves: list[Move]
               ) -> tuple[dict[Move, float], list[Move], str]:
    opp = 1 - index
    values = {m: _value_after(state, index, m) for m in moves}
    wins = [m for m in moves if values[m] >= WIN]
    # Moves after which the opponent, next to play, could win at once with a card that is face
    # up now (a card a move turns over is unknown, and is not held against it).
    safe = [m for m in moves if not _hands_a_win(state, index, m)] if not wins else moves
    if not safe:
        safe = moves
    # What each active card is worth to the opponent, if they could take it next.
    gain_for_opp: dict[int, float] = {}
    base_opp = evaluate(state, opp)
    probe = state.out_of_turn(opp)
    for slot in state.accessible_slots():
        card = state.pyramid[slot]
        if state.card_price(opp, card) <= state.players[opp].coins:
            after = _after(probe, Move(MoveKind.CONSTRUCT_BUILDING, card_index=slot))
            gain_for_opp[slot] = max(0.0, evaluate(after, opp) - base_opp)
        else:
            gain_for_opp[slot] = 0.0
    covers = COVERS[state.age - 1]

    def score(m: Move) -> float:
        slot = m.card_index
        value = values[m] + _DENY * min(gain_for_opp.get(slot, 0.0), 20.0)
        # Cards this move uncovers face up for the opponent.
        for below in covers[slot]:
            if state.cover[below] == 1 and (state.face_up >> below) & 1:
                s = state.out_of_turn(opp, without_slot=slot)
                if state.card_price(opp, state.pyramid[below]) <= state.players[opp].coins:
                    after = _after(s, Move(MoveKind.CONSTRUCT_BUILDING, card_index=below))
                    value -= _UNCOVER * min(max(0.0, evaluate(after, opp) - base_opp), 20.0)
        if m.kind == MoveKind.DISCARD:
            value -= 0.5  # prefer using a card when it is about as good
        return value

    safe_set = set(safe)
    scores = {m: score(m) - (0.0 if m in safe_set else TIER) for m in moves}
    if wins:
        for m in wins:
            scores[m] = 3 * TIER
        return scores, wins[:1], "win now"
    threats = opponent_winning_cards(state, opp)
    blocking = [m for m in safe if m.card_index in threats] if threats else []
    if blocking:
        for m in blocking:
            scores[m] = 2 * TIER + values[m]
        return scores, blocking, "stop the opponent winning"
    return scores, safe, "best"


class RuleAgent:
    def __init__(self) -> None:
        self.spec = "rule"

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        # The sample only fills face-down cards; every rule looks at public facts only.
        state = InfoSet.from_view(view).sample(rng)
        moves = list(legal)
        if len(moves) == 1:
            return Decision(moves[0], {"rule": "only move"})
        scores, pool, rule = preferences(state, moves)
        if rule in _NO_TIES:
            best = pool[0]
        else:
            best = max(pool, key=lambda m: (scores[m], rng.random()))
        if rule == "best":
            rule = _BEST[best.kind]
        return Decision(best, {"rule": rule})
