"""Seating: the agent in each seat (from the server's catalogue), and the bearer tokens of the
external seats.

A token is shown once, in the answer that creates its game; the server and its database keep
only its hash."""

from __future__ import annotations

import hashlib
import logging
import random
import secrets
from collections.abc import Sequence
from typing import Any

from duel.agents.base import Agent, Decision
from duel.engine import SEATS, Move, Seat
from duel.errors import AuthError, ForbiddenError, SpecError
from server.work.catalogue import EXTERNAL, Catalogue

log = logging.getLogger("duel.server")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_tokens(seats: Sequence[str]) -> dict[Seat, str]:
    """A fresh token for each external seat."""
    return {seat: secrets.token_urlsafe(24) for seat, spec in zip(SEATS, seats, strict=True)
            if spec == EXTERNAL}


class SeatTokens:
    """Which seat of which game each token holds, by the token's hash."""

    def __init__(self) -> None:
        self._seats: dict[str, tuple[str, Seat]] = {}

    def add(self, code: str, hashes: dict[Seat, str]) -> None:
        for seat, digest in hashes.items():
            self._seats[digest] = (code, seat)

    def remove(self, hashes: dict[Seat, str]) -> None:
        """Forget a game's tokens (it left memory; reading it back adds them again)."""
        for digest in hashes.values():
            self._seats.pop(digest, None)

    def holds(self, token: str) -> bool:
        """Whether `token` holds a seat in some game."""
        return token_hash(token) in self._seats

    def seat_of(self, code: str, token: str | None) -> Seat:
        """The seat `token` holds in game `code`: AuthError if there is no token or it holds no
        seat, ForbiddenError if it holds a seat in another game."""
        if not token:
            raise AuthError("missing bearer token")
        found = self._seats.get(token_hash(token))
        if found is None:
            raise AuthError("unknown token")
        if found[0] != code:
            raise ForbiddenError("this token belongs to another game")
        return found[1]


class UnavailableAgent:
    """Stands in for a seat's agent that cannot be built any more (after a restart: an API key
    gone from the environment, a model file removed, a name the operator no longer configures,
    a spec no longer offered). Every turn fails with `reason` (said in public words), so the
    game's fallback plays or forfeits for it, and the game goes on."""

    def __init__(self, spec: str, reason: str) -> None:
        self.spec = spec
        self.reason = reason

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        raise SpecError(self.reason)


def seat_agents(catalogue: Catalogue, seats: Sequence[str], strict: bool = True
                ) -> dict[Seat, Agent]:
    """The agents of the seats that are not external, built by the catalogue. `strict` (a new
    game): an agent not offered, a bad spec or budget raises SpecError. Otherwise (a restored
    game) an agent that cannot be built is replaced by one that always fails, so the game's
    fallback takes over its turns."""
    agents: dict[Seat, Agent] = {}
    for seat, spec in zip(SEATS, seats, strict=True):
        if spec == EXTERNAL:
            continue
        try:
            agent: Agent = catalogue.build(spec)
        except SpecError as exc:
            if strict:
                raise
            log.warning("%s: agent %r unavailable (%s); its fallback plays", seat, spec, exc)
            agent = UnavailableAgent(spec, str(exc))
        agents[seat] = agent
    return agents
