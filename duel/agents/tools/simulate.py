"""What a move would change for the seat, from its view alone.

The engine plays the move on one completion of the view (`InfoSet.sample`: the hidden cards
dealt at random among those unseen), and the answer reports only what no hidden card decides:
coins, the pawn and its military tokens, points, science symbols, chains, whose turn and which
step come next, which cards the move uncovers (a face-down one as unknown) and, when the move
ends the game, how. The completion is drawn from the view with a fixed seed, so the answer is a
function of the view; and since nothing reported reads a dealt hidden card, any completion gives
the same answer (tests/tools checks both).
"""

from __future__ import annotations

import random
from typing import Any

from duel.engine import CARDS, GameState, InfoSet, Move, steps
from duel.engine.data import CARD_IDS, CHAIN_FROM, COLOR_NAMES, TOKEN_NAMES, WONDER_IDS, WONDERS
from duel.engine.moves import MoveKind
from duel.prompts.reference import card_effect, wonder_effect

from .words import ME, THEM, move_text

_AGES = {1: "I", 2: "II", 3: "III"}
# Loot bits of the view's labels: the opponent is player 1, the seat player 2.
_LOOT = ((steps.LOOT2_P1, "your opponent", 2), (steps.LOOT5_P1, "your opponent", 5),
         (steps.LOOT2_P2, "you", 2), (steps.LOOT5_P2, "you", 5))


def simulate(info: InfoSet, move: Move, rng: random.Random | None = None) -> dict[str, Any]:
    """What `move` (legal for the seat, which is to move in `info`'s view) would change.
    `rng` draws the completion the move is played on (a fixed seed by default); the answer is
    the same for every completion."""
    before = info.sample(rng if rng is not None else random.Random(0))
    after = before.clone()
    after.play(move)
    price = info.template.price(move)
    out: dict[str, Any] = {
        "move": move.to_json(), "text": move_text(info.template, move, price), "price": price,
        "you": _side(before, after, ME), "opponent": _side(before, after, THEM),
        "military": _military(before, after)}
    built = _built(before, move)
    if built:
        out["built"] = built
    out["uncovers"] = _uncovered(info, before, after, move)
    notes = _notes(before, after)
    if notes:
        out["notes"] = notes
    if after.step == steps.GAME_END:
        winner = after.winner
        out["game_over"] = {"winner": "you" if winner == ME else "your opponent"
                            if winner == THEM else None, "victory": after.victory,
                            "points": {"you": after.score(ME)["TOTAL"],
                                       "opponent": after.score(THEM)["TOTAL"]}}
        out["next"] = None
    else:
        out["next"] = _next(info, before, after)
    return out


def _side(before: GameState, after: GameState, seat: int) -> dict[str, Any]:
    a, b = before.players[seat], after.players[seat]
    s0, s1 = before.score(seat), after.score(seat)
    side: dict[str, Any] = {
        "coins": {"before": a.coins, "after": b.coins},
        "points": {"before": s0["TOTAL"], "after": s1["TOTAL"],
                   "changes": {k: s1[k] - s0[k] for k in s0 if k != "TOTAL" and s1[k] != s0[k]}},
        "science_symbols": {"before": a.science_count(), "after": b.science_count()}}
    gained = [TOKEN_NAMES[t] for t in b.token_list if t not in a.token_list]
    if gained:
        side["tokens_gained"] = gained
    lost = [CARDS[c].name for c in a.cards if c not in b.cards]
    if lost:
        side["cards_lost"] = lost
    return side


def _military(before: GameState, after: GameState) -> dict[str, Any]:
    """The pawn as the state's militaryPosition (the seat wins at -9, its opponent at 9) and
    the military tokens the move takes."""
    out: dict[str, Any] = {"before": before.military, "after": after.military}
    loot = [f"{who} lose{'s' if who != 'you' else ''} {n} coins"
            for bit, who, n in _LOOT if before.loot & bit and not after.loot & bit]
    if loot:
        out["military_tokens"] = loot
    return out


def _built(before: GameState, move: Move) -> dict[str, Any] | None:
    if move.kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.CONSTRUCT_FROM_DISCARD):
        card = before.pyramid[move.card_index] if move.kind == MoveKind.CONSTRUCT_BUILDING \
            else CARD_IDS[move.card_name]
        c = CARDS[card]
        out: dict[str, Any] = {"card": c.name, "color": COLOR_NAMES[c.color],
                               "effect": card_effect(c),
                               "chains_to": [d.name for d in CARDS if d.chain_from == c.name]}
        chain = CHAIN_FROM[card]
        if (move.kind == MoveKind.CONSTRUCT_BUILDING and chain >= 0
                and before.players[ME].has_card(chain)):
            out["chained_from"] = CARDS[chain].name
        return out
    if move.kind == MoveKind.CONSTRUCT_WONDER:
        w = WONDERS[WONDER_IDS[move.wonder]]
        return {"wonder": w.name, "effect": wonder_effect(w),
                "card_used": CARDS[before.pyramid[move.card_index]].name}
    return None


def _uncovered(info: InfoSet, before: GameState, after: GameState,
               move: Move) -> list[dict[str, Any]]:
    """The slots the move frees: a face-up card by name, a face-down one as unknown (it turns
    face up at the end of the turn)."""
    if after.age != before.age or before.step != steps.PLAY_CARD:
        return []
    hidden = {slot for slot, _ in info.hidden_slots}
    freed = after.accessible & ~before.accessible
    out: list[dict[str, Any]] = []
    for slot in range(20):
        if (freed >> slot) & 1:
            if slot in hidden:
                out.append({"slot": slot, "card": None,
                            "note": "face down now: turns face up, unknown until then"})
            else:
                out.append({"slot": slot, "card": CARDS[before.pyramid[slot]].name})
    return out


def _notes(before: GameState, after: GameState) -> list[str]:
    notes = []
    if before.wonders_built < 7 <= after.wonders_built:
        notes.append("seven wonders are built: every unbuilt wonder leaves the game")
    if before.step == steps.PLAY_CARD and after.age == before.age and after.remaining == 0:
        notes.append(f"the last card of Age {_AGES[before.age]}")
    return notes


def _next(info: InfoSet, before: GameState, after: GameState) -> dict[str, Any]:
    mover = "you" if after.current == ME else "your opponent"
    step = after.step
    if step == steps.WONDER_SELECTION:
        text = f"{mover} pick{'s' if mover != 'you' else ''} the next wonder"
        if before.draft_pick < 4 <= after.draft_pick:
            text += "; the draft's second round of four wonders is revealed (unknown now)"
    elif step == steps.PLAY_CARD:
        if before.step == steps.CHOOSE_START:
            text = f"{mover} start{'s' if mover != 'you' else ''} Age {_AGES[after.age]}"
        elif after.current == before.current == ME and before.step != steps.WONDER_SELECTION:
            text = "you play again"
        elif before.step == steps.WONDER_SELECTION:
            text = f"the draft is over; {mover} take{'s' if mover != 'you' else ''} the " \
                   "first card of Age I"
        else:
            text = "your turn" if mover == "you" else "your opponent's turn"
    elif step == steps.CHOOSE_TOKEN:
        names = [TOKEN_NAMES[t] for t in after.tokens_board]
        text = f"a pair of science symbols: you choose a progress token of {names}"
    elif step in (steps.DESTROY_BROWN, steps.DESTROY_GREY):
        colour = "brown" if step == steps.DESTROY_BROWN else "grey"
        names = [CARDS[c].name for c in after.players[THEM].cards
                 if COLOR_NAMES[CARDS[c].color].lower() == colour]
        text = f"you destroy one of your opponent's {colour} cards: {names}"
    elif step == steps.CHOOSE_LIBRARY_TOKEN:
        box = sorted(TOKEN_NAMES[t] for t in info.box_pool)
        text = ("you choose one of three progress tokens drawn at random from the box"
                + (f" (it holds {box})" if info.template.open_box else ""))
    elif step == steps.BUILD_FROM_DISCARD:
        names = [CARDS[c].name for c in after.discard]
        text = f"you build a card of the discard pile for free: {names}"
    elif step == steps.CHOOSE_START:
        text = (f"Age {_AGES[before.age]} ends; {mover} choose{'s' if mover != 'you' else ''} "
                f"who starts Age {_AGES[after.age]}, whose structure is laid out (its face-up "
                "cards unknown until then)")
    else:
        text = steps.STEP_NAMES[step]
    return {"step": steps.STEP_NAMES[step], "to_move": mover, "text": text}

