"""Tables for the tool set's tests: a true engine state seen by one seat (what a host gives the
tool set), positions from random games, and twins that only the hidden cards tell apart."""

from __future__ import annotations

import random
from typing import Any

from duel.agents.tools import SeatStatus, SeatTools
from duel.engine import GameState, InfoSet, Move, Perspective, Seat, new_game


def status_of(state: GameState, seat: Seat) -> SeatStatus:
    """What `seat` knows of `state`: its view, the ply, the end."""
    return SeatStatus(seat, Perspective(seat).view(state), state.ply, state.is_terminal(),
                      state.result())


class StateTable:
    """One seat of a true engine state; `play` applies the seat's move and nothing else."""

    def __init__(self, state: GameState, seat: Seat) -> None:
        self.state = state
        self.seat = seat
        self.details: list[dict[str, Any]] = []

    def status(self) -> SeatStatus:
        return status_of(self.state, self.seat)

    def play(self, move: Move, details: dict[str, Any]) -> tuple[SeatStatus, list[str]]:
        self.state = self.state.apply(Perspective(self.seat).move_in(move))
        self.details.append(details)
        return self.status(), [str(self.status().view["previousMove"])]


def tools_at(state: GameState) -> SeatTools:
    """The tool set of the seat to move in `state`."""
    return SeatTools(StateTable(state, Seat.of_index(state.current)))


def positions(seeds: range, every: int = 1) -> list[GameState]:
    """Every `every`-th state of the random games of `seeds`, over before the game ends."""
    out = []
    for seed in seeds:
        state = new_game(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.ply % every == 0:
                out.append(state)
            state = state.apply(rng.choice(state.legal_moves()))
    return out


def twins(state: GameState, seeds: tuple[int, int] = (1, 2)) -> tuple[GameState, GameState]:
    """Two complete states that the seat to move sees exactly as it sees `state`, their hidden
    cards (face-down slots, later Ages, the box's order, unrevealed wonders) dealt anew, with
    the labels of `state` (the InfoSet keeps the view's labels: it is read in true labels)."""
    info = InfoSet.from_view(Perspective(None).view(state))
    a, b = (info.sample(random.Random(s)) for s in seeds)
    return a, b
