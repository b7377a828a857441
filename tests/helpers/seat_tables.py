"""Tables for the tool set's tests: a true engine state seen by one seat (what a host gives the
tool set), positions from random games, and twins that only the hidden cards tell apart."""

from __future__ import annotations

import random
from typing import Any

from duel.agents.tools import SeatStatus, SeatTools
from duel.engine import Deal, GameState, InfoSet, Move, Perspective, Seat, new_game
from duel.engine.data import AGE3_CARDS, GUILD_CARDS


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


def twin_deal(deal: Deal) -> Deal:
    """`deal` with every card nobody sees before Age II dealt anew: the Age II deck and its
    removed cards, the Age III deck, its removed cards and the guilds (each kept to its own
    slots), and the box's drawing order. Age I, the wonders and the board's tokens stay."""
    rng = random.Random(1)
    two = list(deal.age2) + list(deal.removed2)
    rng.shuffle(two)
    guild_slots = [i for i, c in enumerate(deal.age3) if c in GUILD_CARDS]
    plain = [c for c in deal.age3 if c in AGE3_CARDS] + list(deal.removed3)
    guilds = [c for c in deal.age3 if c in GUILD_CARDS] + list(deal.removed_guilds)
    rng.shuffle(plain)
    rng.shuffle(guilds)
    it_plain, it_guild = iter(plain), iter(guilds)
    age3 = [next(it_guild) if i in guild_slots else next(it_plain) for i in range(20)]
    other = Deal(deal.wonder_draft, deal.wonders_out, deal.tokens_board,
                 tuple(reversed(deal.tokens_box)), deal.age1, tuple(two[:20]), tuple(age3),
                 deal.removed1, tuple(two[20:]), tuple(it_plain), tuple(it_guild))
    assert other != deal and other.age2 != deal.age2 and other.age3 != deal.age3
    return Deal.from_json(other.to_json())
