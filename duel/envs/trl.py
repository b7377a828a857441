"""duel for TRL's ``GRPOTrainer(environment_factory=...)``: a game as a tool-calling episode.

    from functools import partial
    from trl import GRPOConfig, GRPOTrainer
    from duel.envs.trl import DuelToolEnv

    trainer = GRPOTrainer(model=..., args=GRPOConfig(max_steps=100, ...),
                          environment_factory=partial(DuelToolEnv, opponent="mcts:iterations=50"))

TRL's contract (GRPOTrainer's docs, TRL 1.16): the trainer builds instances with the factory,
calls ``reset(**row)`` at each rollout's start (a dataset row's columns as keywords; none without
a dataset) and appends the string it returns to the prompt's last user message; every public
method of the class is a tool, described to the model from its type hints and Google-style
docstring; a tool that raises has its error sent back as the tool's answer (a refused move is a
``ValueError``); ``get_reward()`` scores the rollout from the environment's own state. So this
class has no public method but ``reset``, ``get_reward`` and the tools.

Underneath is one :class:`~duel.envs.text.TextEnv`: ``make_move`` is its ``step`` with the move's
JSON (judged by the LLM seat's attempt policy: a refused move counts an attempt and raises; after
the last attempt the fallback plays, and the answer says so), the opponent's answers are played
in the same call, and every episode is a transcript when asked. The look-ups (get_state,
legal_moves, explain, simulate) are the one tool set's (duel.agents.tools), answered from the
seat's view only. The reward is the TextEnv's reward mix summed over the rollout's steps; a game
the model left unfinished (it stopped calling make_move) gets what it earned so far plus
``unfinished`` (default -1: as bad as a loss, so stopping is never a way out of losing).
"""

from __future__ import annotations

import json
from typing import Any

from duel.agents.tools import SeatTools
from duel.envs.table import SeatTable
from duel.envs.text import TextEnv
from duel.errors import DuelError

TOOLS_NOTE = ("You play through tools: get_state, legal_moves, explain and simulate look things "
              "up; make_move(move, moveData) plays your move, and answers once your opponent "
              "has answered, with your next turn. Keep calling make_move until the game is over.")
UNFINISHED = -1.0  # get_reward's addition for a game the rollout did not finish


class ToolCallError(DuelError, ValueError):
    """A tool call refused (an illegal move, an unknown card, no game yet): a ValueError, as
    TRL's tool loop expects, whose message it sends back to the model as the tool's answer."""


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


class DuelToolEnv:
    """One seat of a game per rollout, for ``GRPOTrainer(environment_factory=...)``. The
    keywords are TextEnv's (opponent, seat, prompt, harness, reward, max_attempts, fallback,
    quality_iterations, transcripts), checked at once: a bad spec fails when the trainer builds
    its first instance, with the CLI's message. ``reset(seed=...)`` takes a dataset's ``seed``
    column (a random deal without one)."""

    def __init__(self, unfinished: float = UNFINISHED, **settings: Any) -> None:
        settings.setdefault("reward", "outcome+legal")
        self._env = TextEnv(**settings)
        self._unfinished = unfinished
        self._tools: SeatTools | None = None
        self.rewards: list[float] = []  # each step's reward this rollout (read by get_reward)
        self.infos: list[dict[str, Any]] = []  # each step's info: legality, moves, results

    # ------------------------------------------------------------------ TRL's reserved methods
    def reset(self, **kwargs: Any) -> str:
        """A new game (the row's `seed`, if any; `deal` and `code` as TextEnv.reset takes them);
        the seat's first prompt, with the tools' note. Other columns are ignored."""
        seed = kwargs.get("seed")
        obs = self._env.reset(seed=None if seed is None else int(seed), deal=kwargs.get("deal"),
                              code=kwargs.get("code"))
        self._tools = SeatTools(SeatTable(self._env))
        self.rewards, self.infos = [], []
        return f"{obs.prompt.system}\n\n{obs.text}\n\n{TOOLS_NOTE}"

    def get_reward(self) -> float:
        """The rollout's reward: its steps' rewards summed, and `unfinished` if the game goes on."""
        total = sum(self.rewards)
        return round(total + (0.0 if self._env.done else self._unfinished), 6)

    @property
    def env(self) -> TextEnv:
        """The TextEnv underneath (a property: TRL makes tools of methods only)."""
        return self._env

    # ------------------------------------------------------------------ the tools
    def get_state(self) -> str:
        """The game state as you see it (no hidden card), whether it is your turn and, once the
        game is over, its result. You are always player2 in the state.

        Returns:
            The state as JSON.
        """
        return self._look_up("get_state", {})

    def legal_moves(self, why_not: bool = False) -> str:
        """Your legal moves now, each as the move and moveData to give make_move, with its price
        in coins and a line in words.

        Args:
            why_not: Also list the moves you cannot make, and why.

        Returns:
            The moves as JSON.
        """
        return self._look_up("legal_moves", {"why_not": why_not})

    def explain(self, name: str) -> str:
        """A card, wonder or progress token in words: its cost, effect and chains, where it is
        in this game and what it would cost you.

        Args:
            name: The name as the state spells it, e.g. LUMBER_YARD.

        Returns:
            The explanation as JSON.
        """
        return self._look_up("explain", {"name": name})

    def simulate(self, move: str, moveData: dict[str, Any]) -> str:  # noqa: N803
        """What a move would change, without playing it: coins, the military pawn, points,
        science, chains and what it uncovers.

        Args:
            move: The move's kind, as the rules name it, e.g. CONSTRUCT_BUILDING.
            moveData: The move's data, e.g. {"cardIndex": 3}.

        Returns:
            The changes as JSON.
        """
        return self._look_up("simulate", {"move": move, "moveData": moveData})

    def make_move(self, move: str, moveData: dict[str, Any]) -> str:  # noqa: N803
        """Play your move. Answers once your opponent has answered: the moves played since, in
        words, and your next turn (or the game's result).

        Args:
            move: The move's kind, as the rules name it, e.g. CONSTRUCT_BUILDING.
            moveData: The move's data, e.g. {"cardIndex": 3, "wonder": "THE_COLOSSUS"}.

        Returns:
            What happened, and your next turn.
        """
        env = self._env
        if env.done:
            raise ToolCallError("the game is over: make no more moves")
        result = env.step(_compact({"move": move, "moveData": moveData}))
        self.rewards.append(result.reward)
        self.infos.append(result.info)
        info = result.info
        if info.get("refused") and not info.get("fallback"):
            raise ToolCallError(f"move refused (attempt {info['attempts']} of "
                             f"{env.settings['max_attempts']}): {info['refused']}")
        # Your move in words; the opponent's answers are in the next turn's message.
        out: dict[str, Any] = {"played": info["move_text"]}
        if info.get("fallback"):
            out["note"] = (f"your attempts ran out ({info['refused']}); the fallback played "
                           f"{info['move_text']}")
        if result.done:
            out["over"] = True
            out["result"] = self._look_up_json("get_state", {}).get("result")
            return _compact(out)
        assert result.observation is not None
        return _compact(out) + "\n\n" + result.observation.text

    # ------------------------------------------------------------------ inside
    def _look_up_json(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if self._tools is None:
            raise ToolCallError("no game yet: the trainer calls reset() first")
        try:
            return self._tools.call(name, args)
        except DuelError as exc:  # a tool's refusal is the model's to read, as TRL expects
            raise ToolCallError(str(exc)) from None

    def _look_up(self, name: str, args: dict[str, Any]) -> str:
        return _compact(self._look_up_json(name, args))


__all__ = ["DuelToolEnv"]
