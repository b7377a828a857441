"""A move in words, without its player ("builds Lumber Yard for 2 coins"), and what it set off
(military loot, a second turn); the players it names are "{1}"/"{2}" placeholders
(`duel.words.names.fill`)."""

from __future__ import annotations

from typing import Any

from duel.engine import CARDS, GameState, Move
from duel.engine.data import CHAIN_FROM, YELLOW
from duel.engine.moves import MoveKind
from duel.engine.steps import CHOOSE_START, LOOT2_P1, LOOT2_P2, LOOT5_P1, LOOT5_P2, PLAY_CARD
from duel.errors import InvalidMoveError
from duel.words.names import AGES, coins, name


def move_text(before: GameState, move: Move, after: GameState | None = None) -> str:
    """`move`, played in `before`, in words without its player ("builds Lumber Yard for 2
    coins"), the players it names as "{1}"/"{2}" (fill()). With `after`, what followed is
    added: "; plays again", "; player 2 loses 5 coins (military)"."""
    seat = before.current
    kind = move.kind
    if kind == MoveKind.SELECT_WONDER:
        text = f"takes {name(move.wonder)}"
    elif kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD, MoveKind.CONSTRUCT_WONDER):
        card = before.pyramid[move.card_index]
        card_name = name(CARDS[card].name) if card >= 0 else f"the card in slot {move.card_index}"
        if kind == MoveKind.DISCARD:
            gain = 2 + before.players[seat].color_count[YELLOW]
            text = f"discards {card_name} for {coins(gain)}"
        elif kind == MoveKind.CONSTRUCT_WONDER:
            price = before.price(move)
            text = (f"builds {name(move.wonder)} with {card_name}"
                    + (f" for {coins(price)}" if price else " for free"))
        else:
            chain = CHAIN_FROM[card] if card >= 0 else -1
            if chain >= 0 and before.players[seat].has_card(chain):
                text = f"builds {card_name} for free by its chain from {name(CARDS[chain].name)}"
            else:
                price = before.price(move)
                text = f"builds {card_name}" + (f" for {coins(price)}" if price else " for free")
    elif kind == MoveKind.CHOOSE_PROGRESS_TOKEN:
        text = f"takes the progress token {name(move.token)}"
    elif kind == MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD:
        text = f"takes the progress token {name(move.token)} with the Great Library"
    elif kind == MoveKind.DESTROY_CARD:
        text = f"destroys {{{2 - seat}}}'s {name(move.card_name)}"
    elif kind == MoveKind.CONSTRUCT_FROM_DISCARD:
        text = f"builds {name(move.card_name)} from the discard pile with the Mausoleum"
    elif kind == MoveKind.CHOOSE_STARTING_PLAYER:
        age = AGES.get(before.age, f"Age {before.age}")
        text = (f"starts {age}" if move.player_number == seat + 1
                else f"lets {{{move.player_number}}} start {age}")
    else:  # pragma: no cover - every kind is named above
        raise InvalidMoveError(f"no words for a move of kind {kind}")
    if after is not None:
        notes = move_notes(before, move, after)
        if notes:
            text += "; " + "; ".join(notes)
    return text


_LOOT = ((LOOT2_P1, 1, 2), (LOOT5_P1, 1, 5), (LOOT2_P2, 2, 2), (LOOT5_P2, 2, 5))


def move_notes(before: GameState, move: Move, after: GameState) -> list[str]:
    """What a move set off: military loot, a second turn."""
    notes = []
    seat = before.current
    for bit, victim, n in _LOOT:
        if before.loot & bit and not after.loot & bit:
            notes.append(f"{{{victim}}} loses {coins(n)} (military)")
    # The turn is over and the same player goes on (a play-again wonder, Theology).
    if (after.step == PLAY_CARD and after.current == seat and before.step != CHOOSE_START
            and after.age == before.age and move.kind != MoveKind.CHOOSE_STARTING_PLAYER):
        notes.append("plays again")
    return notes


def move_json_text(before: GameState, move_json: Any) -> str | None:
    """A move given as the prompt's JSON, in words (None if it is not a legal move there)."""
    try:
        move = Move.from_json(move_json)
        return move_text(before, move) if move in before.legal_moves() else None
    except Exception:  # noqa: BLE001 - a bad record is shown without words, never a crash
        return None
