"""Learning environments over the engine: a Gymnasium env (one learning seat against an agent) and
a PettingZoo AEC env (both seats).

Observations and actions are always in the acting seat's own labels (the seat is ``player2``, as
for an LLM and as in :mod:`duel.learning.rl.encoding`), so one network can play either seat. Every
observation is encoded from the seat's view, never from the true state, so hidden cards cannot
leak into it; the true state is still exposed as ``env.state`` for tests and training tooling.
"""

from __future__ import annotations

import json
import random
from typing import Any, Final, Literal, SupportsInt

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # pettingzoo ships no py.typed

from duel.agents.base import Agent
from duel.agents.spec import make_agent
from duel.engine import GameState, Move, Result, Seat, data, new_game
from duel.engine.data import (
    BROWN,
    CARDS,
    GREY,
    PURPLE,
    RED,
    TOKEN_NAMES,
    WONDERS,
    YELLOW,
    Card,
)
from duel.engine.perspective import Perspective
from duel.errors import ConflictError, IllegalMoveError, SpecError
from duel.learning.rl.encoding import (
    COIN_SCALE,
    COLOR_SCALE,
    DISCARD_SCALE,
    GLOBAL_FEATURES,
    N_ACTIONS,
    N_CARDS,
    N_TOKENS,
    N_WONDERS,
    OBS_SIZE,
    PLAYER_FEATURES,
    PRICE_SCALE,
    PRIOR_START,
    PROD_SCALE,
    SCORE_SCALE,
    SLOT_FEATURES,
    SLOTS,
    action_mask,
    action_of,
    encode_view,
    move_of,
)
from duel.match import decide

Obs = dict[str, npt.NDArray[Any]]
IllegalPolicy = Literal["raise", "lose"]

# Seeds handed to new_game and to the opponent's generator are drawn below these bounds.
_GAME_SEED_BOUND: Final = 2**31
_RNG_SEED_BOUND: Final = 2**63


class EpisodeOverError(ConflictError, RuntimeError):
    """A step after the episode's end (Gymnasium's convention: RuntimeError, call reset())."""



# ---------------------------------------------------------------------------- observation bounds
# The encoder's scales; a test checks that observations of random games stay inside the
# bounds, which catches any drift between the two files.
_COIN_SCALE: Final = COIN_SCALE
_PROD_SCALE: Final = PROD_SCALE
_COLOR_SCALE: Final = COLOR_SCALE
_SCORE_SCALE: Final = SCORE_SCALE
_DISCARD_SCALE: Final = DISCARD_SCALE
_CARDS_PER_GAME: Final = 3 * SLOTS


def _observation_high() -> npt.NDArray[np.float32]:
    """Per-feature upper bounds of encode_view, derived from the card and wonder data so that
    they hold in every game, not just in the games someone happened to sample. Every feature is
    an indicator (bound 1) or a non-negative count over a scale; the lower bound is 0."""
    n_colors = 7
    color_max = [sum(1 for c in CARDS if c.color == col) for col in range(n_colors)]
    prod_max = [sum(c.produces[r] for c in CARDS) for r in range(5)]
    wild_max = [sum(1 for c in CARDS if c.wild == k) + sum(1 for w in WONDERS if w.wild == k)
                for k in (1, 2)]

    # A unit bought from the bank costs at most 2 + everything the opponent could produce.
    def trade_max(cost: tuple[int, int, int, int, int]) -> int:
        return sum(cost[r] * (2 + prod_max[r]) for r in range(5))

    card_price_max = max(c.coins + trade_max(c.cost) for c in CARDS)

    # Coins: a player never holds more than every coin that can enter the game. Coins enter at
    # the start, on discards, on builds (card effects, Urbanism's chain bonus), with wonders and
    # with Agriculture/Urbanism; Economy and the loot only move or remove them. Each of the 60
    # pyramid cards is discarded or built once, plus one rebuild from the discard pile.
    gain_count = {data.GAIN_PER_GREY: color_max[GREY], data.GAIN_PER_BROWN: color_max[BROWN],
                  data.GAIN_PER_RED: color_max[RED], data.GAIN_PER_YELLOW: color_max[YELLOW],
                  data.GAIN_PER_WONDER: 4}

    def build_gain(c: Card) -> int:
        count = gain_count.get(c.gain, 0)
        if c.gain == data.GAIN_GUILD_MOST:
            count = sum(color_max[col] for col in c.guild_colors)
        return 4 + c.instant_coins + c.gain_amount * count

    discard_gain = 2 + color_max[YELLOW]
    coins_max = (2 * 7 + _CARDS_PER_GAME * discard_gain
                 + (_CARDS_PER_GAME + 1) * max(build_gain(c) for c in CARDS)
                 + sum(w.coins for w in WONDERS) + 2 * 6)

    def guild_vp(c: Card) -> int:
        if c.guild_kind == data.GUILD_WONDERS:
            return 2 * 4
        if c.guild_kind == data.GUILD_COINS:
            return coins_max // 3
        return sum(color_max[col] for col in c.guild_colors)

    score_max = (sum(c.vp for c in CARDS if c.color != PURPLE)
                 + sum(guild_vp(c) for c in CARDS if c.color == PURPLE)
                 + 10 + sum(sorted((w.vp for w in WONDERS), reverse=True)[:4])
                 + coins_max // 3 + 4 + 7 + 3 * len(TOKEN_NAMES))

    # Filled from float64 quotients, rounded to float32 as encode_view's are, so that a value
    # at its bound is not pushed over it by a different rounding.
    high = np.ones(OBS_SIZE, dtype=np.float32)
    high[GLOBAL_FEATURES - 1] = N_CARDS / _DISCARD_SCALE
    i = GLOBAL_FEATURES
    for _ in range(2):
        p = i
        high[p] = coins_max / _COIN_SCALE
        p += 1
        high[p:p + 5] = np.array(prod_max) / _PROD_SCALE
        p += 5
        high[p:p + 2] = wild_max
        p += 2 + 5  # the discounts are indicators
        high[p:p + n_colors] = np.array(color_max) / _COLOR_SCALE
        p += n_colors + 14 + N_TOKENS + N_CARDS + 2 * N_WONDERS
        high[p:p + N_WONDERS] = np.array([trade_max(w.cost) for w in WONDERS]) / PRICE_SCALE
        p += N_WONDERS
        high[p] = score_max / _SCORE_SCALE
        i += PLAYER_FEATURES
        assert p + 1 == i, "duel.learning.rl.encoding changed its player layout"
    for _ in range(SLOTS):
        high[i + SLOT_FEATURES - 2:i + SLOT_FEATURES] = card_price_max / PRICE_SCALE
        i += SLOT_FEATURES
    # the priors lie in [0, 1]
    assert i == PRIOR_START, "duel.learning.rl.encoding changed its layout"
    return high


OBS_HIGH: Final = _observation_high()


def observation_space() -> spaces.Dict:
    """The observation space both environments use: the encoded view and the legal-action mask."""
    return spaces.Dict({
        "observation": spaces.Box(low=np.zeros(OBS_SIZE, dtype=np.float32), high=OBS_HIGH.copy(),
                                  dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
    })


# ---------------------------------------------------------------------------- shared helpers
def seat_moves(state: GameState, player: int) -> list[Move]:
    """The legal moves of `player` (1 or 2) in its own labels; empty unless it is to move."""
    if state.is_terminal() or state.current_player != player:
        return []
    legal = state.legal_moves()
    return Perspective.of_player(player).moves_out(legal)


def seat_observation(state: GameState, player: int) -> Obs:
    """What `player` observes: its encoded view, and the mask of its legal actions (all zeros when
    it is not to move or the game is over)."""
    return {"observation": encode_view(Perspective.of_player(player).view(state)),
            "action_mask": action_mask(seat_moves(state, player))}


def true_move(state: GameState, player: int, action: SupportsInt) -> Move:
    """The move (in the true labels) that `player` means by `action`. Raises ValueError naming the
    action and the legal actions when it is not a legal move of that player here."""
    a = int(action)
    shown = seat_moves(state, player)
    move = move_of(a) if 0 <= a < N_ACTIONS else None
    if move is None or move not in shown:
        legal = sorted(action_of(m) for m in shown)
        what = f"action {a} ({move})" if move is not None else f"action {a} (out of range)"
        if state.is_terminal():
            why = "the game is over"
        elif state.current_player != player:
            why = f"player {player} is not to move"
        else:
            why = f"it is not legal at step {state.step_name}"
        raise IllegalMoveError(f"{what} for player {player}: {why}; legal actions: {legal}")
    return Perspective.of_player(player).move_in(move)


def outcome(result: Result, player: int) -> int:
    """+1 if `player` won, -1 if it lost, 0 for a draw."""
    return round(2 * result.points(Seat.of_player(player))) - 1


def forfeit_result(state: GameState, loser: int) -> Result:
    """The result of a game `loser` gave up."""
    return Result.forfeited(Seat.of_player(loser), state.scores())


# ---------------------------------------------------------------------------- Gymnasium
class DuelEnv(gym.Env[dict[str, Any], np.int64]):
    """One learning seat against an agent.

    The learner's seat is `seat` (1 or 2) or, with None, drawn per episode from the reset seed.
    After each learner move the opponent plays until the learner is to move again (a seat may
    move several times in a row) or the game ends. The reward is 0 until the end, then +1 / 0 / -1
    for a win / draw / loss, plus ``shaping * (my score - opponent's score) / 100``.

    An action outside the mask raises ValueError and changes nothing (``on_illegal="raise"``, the
    default) or, with ``on_illegal="lose"``, ends the episode as a forfeit with reward -1; the
    latter suits trainers without masking and Gymnasium's env checker, which steps with unmasked
    random actions.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(self, opponent: str | Agent = "rule", seat: int | None = None,
                 shaping: float = 0.0, render_mode: str | None = None,
                 on_illegal: IllegalPolicy = "raise") -> None:
        if seat not in (None, 1, 2):
            raise SpecError(f"seat must be 1, 2 or None, got {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise SpecError(f"render_mode must be None or one of "
                             f"{self.metadata['render_modes']}, got {render_mode!r}")
        if on_illegal not in ("raise", "lose"):
            raise SpecError(f"on_illegal must be 'raise' or 'lose', got {on_illegal!r}")
        self.opponent: Agent = make_agent(opponent) if isinstance(opponent, str) else opponent
        self.seat = seat
        self.shaping = float(shaping)
        self.render_mode = render_mode
        self.on_illegal: IllegalPolicy = on_illegal
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.state: GameState = new_game(0)
        self.learner: int = seat or 2
        self._opponent_rng = random.Random(0)
        # Set when the episode ended without the game ending (a forfeit).
        self._forfeit: Result | None = None
        self._done = True

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game and let the opponent play up to the learner's first move.

        `options` may set ``"seat"`` (1 or 2) for this episode and ``"game_seed"`` for the deal
        (else both come from the env's generator)."""
        super().reset(seed=seed)
        options = options or {}
        rng = self.np_random
        # Drawn unconditionally so the generator's stream does not depend on the options.
        game_seed = int(rng.integers(_GAME_SEED_BOUND))
        drawn_seat = int(rng.integers(1, 3))
        self._opponent_rng = random.Random(int(rng.integers(_RNG_SEED_BOUND)))
        seat = options.get("seat", self.seat)
        if seat not in (None, 1, 2):
            raise SpecError(f"options['seat'] must be 1 or 2, got {seat!r}")
        self.learner = seat or drawn_seat
        self.state = new_game(int(options.get("game_seed", game_seed)))
        self._forfeit = None
        self._done = False
        self._opponent_moves()
        # The draft alternates A, B, B, A: the learner always moves before the game can end.
        assert not self._done
        return self._observation(), self._info()

    def step(self, action: SupportsInt) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise EpisodeOverError("the episode is over; call reset()")
        try:
            move = true_move(self.state, self.learner, action)
        except ValueError:
            if self.on_illegal == "raise":
                raise
            self._forfeit = forfeit_result(self.state, self.learner)
            self._done = True
            info = self._info()
            info["illegal_action"] = int(action)
            return self._observation(), -1.0, True, False, info
        self.state.play(move)
        self._opponent_moves()
        return self._observation(), self._reward(), self._done, False, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return json.dumps(Perspective.of_player(self.learner).view(self.state), indent=1)

    # ------------------------------------------------------------------ helpers
    def legal_actions(self) -> list[int]:
        """The learner's legal actions (sorted; empty once the episode is over)."""
        if self._done:
            return []
        return sorted(action_of(m) for m in seat_moves(self.state, self.learner))

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The mask as booleans, under the name sb3-contrib's MaskablePPO looks for."""
        return self._mask().astype(bool)

    def result(self) -> Result | None:
        """The game's result once the episode is over (a forfeit included), else None."""
        if self._forfeit is not None:
            return self._forfeit
        return self.state.result()

    def _opponent_moves(self) -> None:
        while not self.state.is_terminal() and self.state.current_player != self.learner:
            move, _, resigned = decide(self.opponent, self.state, self._opponent_rng)
            if resigned:
                opponent = Seat.of_player(self.learner).other
                self._forfeit = forfeit_result(self.state, opponent.player)
                break
            self.state.play(move)
        self._done = self.state.is_terminal() or self._forfeit is not None

    def _mask(self) -> npt.NDArray[np.int8]:
        if self._done:
            return np.zeros(N_ACTIONS, dtype=np.int8)
        mask: npt.NDArray[np.int8] = action_mask(seat_moves(self.state, self.learner))
        return mask

    def _observation(self) -> Obs:
        return {"observation": encode_view(Perspective.of_player(self.learner).view(self.state)),
                "action_mask": self._mask()}

    def _reward(self) -> float:
        result = self.result()
        if result is None:
            return 0.0
        reward = float(outcome(result, self.learner))
        if self.shaping and result.forfeit is None:
            me = self.state.score(self.learner - 1)["TOTAL"]
            them = self.state.score(2 - self.learner)["TOTAL"]
            reward += self.shaping * (me - them) / 100.0
        return reward

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask(), "seat": self.learner,
                                "ply": self.state.ply}
        result = self.result()
        if result is not None:
            info["result"] = result
        return info


# ---------------------------------------------------------------------------- PettingZoo
AGENTS: Final = ("player_1", "player_2")


class DuelAECEnv(AECEnv):  # type: ignore[misc]  # AECEnv is untyped (Any) to mypy
    """Both seats, as the agents ``player_1`` and ``player_2``. The agent selected is always the
    one to move, so the same agent can be selected several times in a row (play again). Rewards
    are +1 / 0 / -1 at the end, from each seat's side."""

    metadata: dict[str, Any] = {"name": "duel_v0", "render_modes": [],
                                "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None:
            raise SpecError(f"duel_v0 has no render modes, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents: list[str] = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = {a: observation_space() for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self.state: GameState = new_game(0)
        self._rng: np.random.Generator | None = None
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = AGENTS[0]

    def observation_space(self, agent: str) -> spaces.Dict:
        space: spaces.Dict = self.observation_spaces[agent]
        return space

    def action_space(self, agent: str) -> spaces.Discrete:
        space: spaces.Discrete = self.action_spaces[agent]
        return space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game; `options` may set ``"game_seed"`` for the deal."""
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        game_seed = int(self._rng.integers(_GAME_SEED_BOUND))
        self.state = new_game(int((options or {}).get("game_seed", game_seed)))
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.state.current_player - 1]

    def observe(self, agent: str) -> Obs:
        return seat_observation(self.state, AGENTS.index(agent) + 1)

    def step(self, action: SupportsInt | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalMoveError(f"{agent} is to move; None is only for agents that are done")
        seat = AGENTS.index(agent) + 1
        # Validated before anything changes, so an illegal action leaves the env as it was.
        move = true_move(self.state, seat, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.state.play(move)
        result = self.state.result()
        if result is None:
            self.agent_selection = AGENTS[self.state.current]
        else:
            for a in self.agents:
                self.rewards[a] = float(outcome(result, AGENTS.index(a) + 1))
                self.terminations[a] = True
                self.infos[a] = {"result": self.state.result()}
            # The mover's opponent collects its final reward first, then the mover.
            self.agent_selection = AGENTS[Seat.of_player(seat).other.index]
        self._accumulate_rewards()

    def render(self) -> None:
        return None

    def close(self) -> None:
        return None


def env(render_mode: str | None = None) -> DuelAECEnv:
    """The PettingZoo entry point (``duel_v0``)."""
    return DuelAECEnv(render_mode=render_mode)
