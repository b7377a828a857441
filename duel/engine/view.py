"""Seat views: the prompt's JSON state, hiding every face-down card and every unseen deck.

Both seats see the same facts in 7 Wonders Duel (no hand is private), so a view differs between
seats only by labelling: with ``swapped=True`` the seats are swapped. Callers choose labels
through :class:`duel.engine.perspective.Perspective` (a seat sees itself as ``player2``, as the
prompt tells LLM players: "You are always player2"), never by hand.
"""

from __future__ import annotations

import re
from typing import Any

from .data import CARDS, COLOR_GROUP, GROUP_ORDER, TOKEN_NAMES, WONDER_NAMES, back_name
from .state import GameState
from .steps import (
    GAME_END,
    LOOT2_P1,
    LOOT2_P2,
    LOOT5_P1,
    LOOT5_P2,
    PREV_AS_WRITTEN,
    STEP_NAMES,
    WONDER_SELECTION,
)

_PLAYER_WORD = re.compile(r"\b(player ?)([12])\b", re.IGNORECASE)


def swap_text(text: str) -> str:
    """The same message with "player 1" and "player 2" swapped."""
    return _PLAYER_WORD.sub(lambda m: m.group(1) + str(3 - int(m.group(2))), text)


def previous_move_text(state: GameState, flip: bool) -> str:
    actor, text, target, values = state.prev
    if actor == PREV_AS_WRITTEN:
        return swap_text(text) if flip else text
    if actor < 0:
        return ""

    def label(seat: int) -> int:
        return (1 - seat if flip else seat) + 1

    if values:
        text = text.format(*values)
    if target >= 0:
        text = text.replace("{target}", str(label(target)))
    return f"Player {label(actor)} {text}"


def _player(state: GameState, seat: int, label: int) -> dict[str, Any]:
    p = state.players[seat]
    groups: dict[str, list[str]] = {}
    for card in p.cards:
        groups.setdefault(COLOR_GROUP[CARDS[card].color], []).append(CARDS[card].name)
    over = state.step == GAME_END
    return {
        "id": label,
        "money": p.coins,
        "wonders": {WONDER_NAMES[w]: p.wonder_age[i] for i, w in enumerate(p.wonders)},
        "tokens": [TOKEN_NAMES[t] for t in p.token_list],
        "won": over and state.winner == seat,
        "score": state.score(seat) if over else {},
        "sortedHand": {g: groups[g] for g in GROUP_ORDER if g in groups},
    }


def seat_view(state: GameState, swapped: bool = False) -> dict[str, Any]:
    """The prompt's JSON state, in true labels or (`swapped`) with the seats' labels swapped.
    No hidden card, removed card or future deck appears in it."""
    flip = swapped
    first, second = (1, 0) if flip else (0, 1)
    loot = state.loot
    l2p1, l5p1 = bool(loot & LOOT2_P1), bool(loot & LOOT5_P1)
    l2p2, l5p2 = bool(loot & LOOT2_P2), bool(loot & LOOT5_P2)
    if flip:
        l2p1, l5p1, l2p2, l5p2 = l2p2, l5p2, l2p1, l5p1
    pyramid: dict[str, Any] = {}
    if state.step != WONDER_SELECTION:
        for slot, card in enumerate(state.pyramid):
            if card < 0:
                continue
            up = (state.face_up >> slot) & 1
            pyramid[str(slot)] = {"cardName": CARDS[card].name if up else back_name(card),
                                  "isActive": bool((state.accessible >> slot) & 1)}
    # Sorted, so that the order of the box (the Great Library's draws) never shows. The wonders
    # out of the game show only once the draft's second round is revealed: during round 1 they
    # would name round 2's four wonders by elimination (docs/state-format.md: hidden until then).
    show_out = state.open_box and (state.step != WONDER_SELECTION or state.draft_pick >= 4)
    unavailable_wonders = [WONDER_NAMES[w] for w in sorted(state.deal.wonders_out)] \
        if show_out else []
    unavailable_wonders += [WONDER_NAMES[w] for w in state.wonders_removed]
    current = state.current + 1
    if flip:
        current = 3 - current
    return {
        "code": state.code,
        "step": STEP_NAMES[state.step],
        "age": state.age,
        "currentPlayerNumber": current,
        "player1": _player(state, first, 1),
        "player2": _player(state, second, 2),
        "military": {
            "id": 1,
            "militaryPosition": -state.military if flip else state.military,
            "loot5Player1Available": l5p1,
            "loot2Player1Available": l2p1,
            "loot2Player2Available": l2p2,
            "loot5Player2Available": l5p2,
        },
        "discardedCards": [CARDS[c].name for c in state.discard],
        "tokensAvailable": [TOKEN_NAMES[t] for t in state.tokens_board],
        "tokensUnavailable": [TOKEN_NAMES[t] for t in sorted(state.tokens_box)]
        if state.open_box else [],
        "tokensFromUnavailable": [TOKEN_NAMES[t] for t in state.library],
        "wondersAvailable": [WONDER_NAMES[w] for w in state.wonders_available]
        if state.step == WONDER_SELECTION else [],
        "wondersUnavailable": unavailable_wonders,
        "visiblePyramid": pyramid,
        "previousMove": previous_move_text(state, flip),
    }
