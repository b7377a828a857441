"""Why a move is not legal: a sentence in the game's words, for players and transcripts.

`GameState.legal_moves` alone judges legality; this only explains a refusal after the fact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .data import BROWN, CARDS, COLOR_NAMES, GREY, TOKEN_NAMES, WONDER_IDS, WONDERS
from .layout import COVERED_BY
from .moves import Move, MoveKind
from .steps import DESTROY_BROWN, GAME_END, STEP_NAMES

if TYPE_CHECKING:  # state.py asks this module why a move is illegal: no runtime import back
    from .state import GameState

# The moves each step accepts (the prompt's table plus CHOOSE_STARTING_PLAYER), by step id.
STEP_MOVES: Final = (
    (MoveKind.SELECT_WONDER,),
    (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD, MoveKind.CONSTRUCT_WONDER),
    (MoveKind.CHOOSE_PROGRESS_TOKEN,), (MoveKind.DESTROY_CARD,), (MoveKind.DESTROY_CARD,),
    (MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD,), (MoveKind.CONSTRUCT_FROM_DISCARD,),
    (MoveKind.CHOOSE_STARTING_PLAYER,), (),
)


def why_illegal(state: GameState, move: Move) -> str:
    """Why `move` is not legal in `state` (see GameState.why_illegal)."""
    step = STEP_NAMES[state.step]
    if state.step == GAME_END:
        return "the game is over; no move is legal"
    allowed = STEP_MOVES[state.step]
    if move.kind not in allowed:
        return (f"{move.kind} is not a move of step {step}; expected "
                f"{' or '.join(allowed)}")
    seat = state.current
    p = state.players[seat]
    if move.kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD, MoveKind.CONSTRUCT_WONDER):
        slot = move.card_index
        if not 0 <= slot < 20 or state.pyramid[slot] < 0:
            return (f"slot {slot} is empty in the Age {state.age} structure; active slots: "
                    f"{state.accessible_slots()}")
        if not (state.accessible >> slot) & 1:
            covering = [s for s in COVERED_BY[state.age - 1][slot] if state.pyramid[s] >= 0]
            return (f"card {slot} is covered by slot(s) {covering}; active slots: "
                    f"{state.accessible_slots()}")
        if move.kind == MoveKind.CONSTRUCT_BUILDING:
            card = state.pyramid[slot]
            price = state.card_price(seat, card)
            return (f"{CARDS[card].name} costs {price} coins and player {seat + 1} has "
                    f"{p.coins}")
        w = WONDER_IDS[move.wonder]
        if w not in p.wonders:
            mine = [WONDERS[x].name for x in p.wonders]
            return f"{move.wonder} is not one of player {seat + 1}'s wonders {mine}"
        if p.wonder_age[p.wonders.index(w)]:
            return f"{move.wonder} is already built"
        if state.wonders_built >= 7:
            return "7 wonders are built already; no more wonders can be built"
        price = state.wonder_price(seat, w)
        return f"{move.wonder} costs {price} coins and player {seat + 1} has {p.coins}"
    if move.kind == MoveKind.SELECT_WONDER:
        names = [WONDERS[w].name for w in state.wonders_available]
        return f"{move.wonder} is not in wondersAvailable {names}"
    if move.kind == MoveKind.CHOOSE_PROGRESS_TOKEN:
        return (f"{move.token} is not in tokensAvailable "
                f"{[TOKEN_NAMES[t] for t in state.tokens_board]}")
    if move.kind == MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD:
        return (f"{move.token} is not in tokensFromUnavailable "
                f"{[TOKEN_NAMES[t] for t in state.library]}")
    if move.kind == MoveKind.DESTROY_CARD:
        color = BROWN if state.step == DESTROY_BROWN else GREY
        valid = [CARDS[c].name for c in state.players[1 - seat].cards
                 if CARDS[c].color == color]
        return (f"{move.card_name} is not a {COLOR_NAMES[color].lower()} card of player "
                f"{2 - seat}; valid: {valid}")
    if move.kind == MoveKind.CONSTRUCT_FROM_DISCARD:
        return (f"{move.card_name} is not in discardedCards "
                f"{[CARDS[c].name for c in state.discard]}")
    return f"{move} is not legal in step {step}"


def _listed(slots: list[int]) -> str:
    return " and ".join(str(s) for s in slots) if len(slots) <= 2 else \
        ", ".join(str(s) for s in slots[:-1]) + f" and {slots[-1]}"


def unavailable(state: GameState) -> list[tuple[Move, str, int | None]]:
    """The pyramid's moves the player to move cannot make now, each with why (in words to that
    player: "covered by 11 and 12", "costs 9 coins, you have 4") and its price when it has one:
    a covered card once (as CONSTRUCT_BUILDING), an uncovered card's building and each of the
    player's wonders it cannot build. Only in step PLAY_CARD; the legal moves say what can be
    done, this says why the rest cannot."""
    if state.step != STEP_NAMES.index("PLAY_CARD"):
        return []
    seat = state.current
    p = state.players[seat]
    legal = set(state.legal_moves())
    out: list[tuple[Move, str, int | None]] = []
    for slot, card in enumerate(state.pyramid):
        if card < 0:
            continue
        if not (state.accessible >> slot) & 1:
            covering = [s for s in COVERED_BY[state.age - 1][slot] if state.pyramid[s] >= 0]
            out.append((Move(MoveKind.CONSTRUCT_BUILDING, card_index=slot),
                        f"covered by {_listed(covering)}", None))
            continue
        build = Move(MoveKind.CONSTRUCT_BUILDING, card_index=slot)
        if build not in legal:
            price = state.card_price(seat, card)
            out.append((build, f"costs {price} coins, you have {p.coins}", price))
        for i, w in enumerate(p.wonders):
            move = Move(MoveKind.CONSTRUCT_WONDER, card_index=slot, wonder=WONDERS[w].name)
            if move in legal:
                continue
            if p.wonder_age[i]:
                out.append((move, "already built", None))
            elif state.wonders_built >= 7:
                out.append((move, "seven wonders are built already", None))
            else:
                price = state.wonder_price(seat, w)
                out.append((move, f"costs {price} coins, you have {p.coins}", price))
    return out
