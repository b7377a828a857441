"""The game's steps, the draft order, the loot bits and the other small integer codes a
`GameState` is made of (ints inside the engine, the prompt's names outside)."""

from __future__ import annotations

from typing import Final

# Steps (ints inside, the prompt's names outside).
WONDER_SELECTION: Final = 0
PLAY_CARD: Final = 1
CHOOSE_TOKEN: Final = 2
DESTROY_GREY: Final = 3
DESTROY_BROWN: Final = 4
CHOOSE_LIBRARY_TOKEN: Final = 5
BUILD_FROM_DISCARD: Final = 6
CHOOSE_START: Final = 7
GAME_END: Final = 8
STEP_NAMES: Final = ("WONDER_SELECTION", "PLAY_CARD", "CHOOSE_PROGRESS_TOKEN", "DESTROY_GREY",
                     "DESTROY_BROWN", "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD",
                     "CONSTRUCT_FROM_DISCARD", "CHOOSE_STARTING_PLAYER", "GAME_END")
STEP_IDS: Final = {n: i for i, n in enumerate(STEP_NAMES)}
# Who picks at each of the 8 draft picks: P1, P2, P2, P1, then P2, P1, P1, P2.
DRAFT_ORDER: Final = (0, 1, 1, 0, 1, 0, 0, 1)

# Loot tokens, as bits of GameState.loot: (seat that loses, coins).
LOOT2_P1: Final = 1  # pawn at -3..-5: player 1 loses 2
LOOT5_P1: Final = 2  # pawn at -6..-8: player 1 loses 5
LOOT2_P2: Final = 4
LOOT5_P2: Final = 8
ALL_LOOT: Final = 15

# GameState.winner is an int for the search's hot path: a seat index (0 or 1), DRAW, or
# NO_WINNER while the game goes on. Everything outside the engine reads `result()` instead.
NO_WINNER: Final = -1

# `GameState.prev` actor for a previous move known only as text (a state read from a view).
PREV_AS_WRITTEN: Final = -2
