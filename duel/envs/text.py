"""The one text environment under every training framework: a game of 7 Wonders Duel in which a
policy plays one seat in text, against any duel agent in the other.

    env = TextEnv(opponent="mcts:iterations=200", reward="outcome+0.5*quality")
    obs = env.reset(seed=7)                  # the seat's prompt, as `llm:` would send it
    while True:
        result = env.step(policy(obs.chat))   # the policy's raw reply text
        if result.done:
            break
        obs = result.observation

`reset` deals a game (its seed, or a random one), seats the policy (player 1, 2, or by the seed's
parity with ``seat="alternate"``) and plays the opponent's moves until the policy is to move.
`step(text)` judges the reply by the LLM seat's one attempt policy (duel.envs.seat): a refused
reply returns the re-ask as the next observation (same decision, `info["legal"]` false, the
`legal` penalty), up to `max_attempts`, then the `fallback` plays; a legal one is played, then
the opponent's moves, and the next decision's prompt is the observation. Rewards by name
(duel.envs.rewards); `info` holds the move in words, the attempts, the refusal's reason, the
reward's parts and the analyser's figures when `quality` is asked. With `transcripts`, every
episode is written by the one transcript writer, so it replays, is analysed and goes on the
leaderboard like any game. The observation is the seat's view only: never a hidden card.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duel.agents.account import SeatAccount
from duel.agents.base import Agent
from duel.agents.observe import inform
from duel.agents.spec import make_agent
from duel.engine import Deal, GameState, Move, Perspective, Result, Seat, new_game
from duel.envs import rewards
from duel.envs.seat import Decider, Prompt, framework_seat
from duel.errors import DuelError, SpecError
from duel.match import agent_rng, decide, take, taken
from duel.records import MoveRecord

SEATS = ("1", "2", "alternate")
QUALITY_ITERATIONS = 200  # the analyser's iterations per decision for the quality reward


class EpisodeOverError(DuelError):
    """A step after the episode ended, or before any reset."""


@dataclass(frozen=True)
class Observation:
    """What the policy sees: the prompt (system text and the decision's conversation so far),
    the seat's JSON view, its legal moves in the prompt's format and the step's name."""

    prompt: Prompt
    view: dict[str, Any]
    legal: list[dict[str, Any]]
    step: str

    @property
    def text(self) -> str:
        """The newest user message: the turn message, or the re-ask."""
        return self.prompt.text

    @property
    def chat(self) -> list[dict[str, Any]]:
        return self.prompt.chat()


@dataclass(frozen=True)
class StepResult:
    observation: Observation | None  # None once the episode is over
    reward: float
    done: bool
    info: dict[str, Any] = field(default_factory=dict)


class TextEnv:
    """See the module's docstring. Settings the CLI would refuse are refused here, with the
    CLI's message (SpecError), before any game starts."""

    def __init__(self, opponent: str = "random", seat: str | int = 1, prompt: str = "baseline",
                 harness: dict[str, str] | None = None, reward: str = "outcome",
                 max_attempts: int = 3, fallback: str = "random",
                 quality_iterations: int = QUALITY_ITERATIONS,
                 transcripts: str | Path | None = None, model: str = "policy",
                 open_box: bool = True, quality_jobs: int = 0) -> None:
        self.mix = rewards.Mix.parse(reward)
        if str(seat) not in SEATS:
            raise SpecError(f"env: seat must be 1, 2 or alternate, got {seat!r}")
        if quality_iterations < 1:
            raise SpecError(f"env: quality_iterations must be at least 1, got "
                            f"{quality_iterations}")
        self.opponent_spec = make_agent(opponent).spec  # a bad spec fails here
        self.seat_choice = str(seat)
        self.settings: dict[str, Any] = {"model": model, "prompt": prompt,
                                         "harness": dict(harness or {}),
                                         "max_attempts": max_attempts, "fallback": fallback}
        framework_seat(**self.settings)  # a bad prompt or harness fails here too
        if quality_jobs < 0:
            raise SpecError(f"env: quality_jobs must be 0 (judge each step here) or more "
                            f"processes, got {quality_jobs}")
        self.quality_iterations = quality_iterations
        # 0: each decision judged at its step (a dense reward); N: every decision judged at
        # the episode's end, N at once in worker processes (the sum in the last reward)
        self.quality_jobs = quality_jobs
        self._pending: list[tuple[Any, ...]] = []
        self._pool: Any = None
        self.transcripts = Path(transcripts) if transcripts is not None else None
        self.open_box = open_box
        self.episodes = 0
        self._decider: Decider | None = None
        self.done = True
        self.transcript: Path | None = None

    # ------------------------------------------------------------------ episodes
    def reset(self, seed: int | None = None, deal: Deal | None = None,
              code: str | None = None) -> Observation:
        """A new game on `seed`'s deal (or `deal`: a deal of its own, e.g. a suite's; `code`:
        the game's code, else the deal's); the observation of the policy's first decision."""
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if type(seed) is not int or seed < 0:
            raise SpecError(f"env: seed must be a whole number >= 0, got {seed!r}")
        self.seed = seed
        self.seat = Seat.P1 if self.seat_choice == "1" else Seat.P2 \
            if self.seat_choice == "2" else Seat.of_index(seed % 2)
        self.policy = framework_seat(**self.settings)
        self.opponent = self._new_opponent()
        self.agents = [self.policy, self.opponent] if self.seat is Seat.P1 else \
            [self.opponent, self.policy]
        self.state: GameState = new_game(seed, deal=deal, open_box=self.open_box, code=code)
        self.rngs = [agent_rng(seed, Seat.P1), agent_rng(seed, Seat.P2)]
        self.records: list[MoveRecord] = []
        self._pending = []
        self.result: Result | None = None
        self.done = False
        self.episodes += 1
        self._writer = None
        self.transcript = None
        if self.transcripts is not None:
            from duel.transcripts import TranscriptWriter

            self.transcript = self.transcripts / f"episode{self.episodes:05d}-seed{seed}.jsonl"
            self._writer = TranscriptWriter.for_match(self.transcript, seed, self.state.deal,
                                                      self.agents, self.open_box)
        self._play_opponent()
        if self.done:  # pragma: no cover - a game always gives each seat a decision
            raise EpisodeOverError("the game ended before the policy's first decision")
        return self._observe()

    def step(self, reply: str, usage: dict[str, Any] | None = None) -> StepResult:
        """The policy's reply to the current observation (its raw text; `usage`: its tokens,
        {"input_tokens", "output_tokens"}, recorded with the call)."""
        if self.done or self._decider is None:
            raise EpisodeOverError("the episode is over: call reset() for a new one"
                                   if self.episodes else "call reset() first")
        decider = self._decider
        decision = decider.reply(reply if isinstance(reply, str) else str(reply), usage)
        parts: dict[str, float] = {}
        if decision is None:  # refused: the re-ask is the next observation
            parts["legal"] = -rewards.LEGAL_PENALTY
            return StepResult(self._observe(), self.mix.total(parts), False,
                              {"legal": False, "attempts": decider.attempts,
                               "refused": decider.last_refusal, "reward_parts": parts})
        state = self.state
        seen = Perspective.to_move(state)
        view, legal = seen.view(state), seen.moves_out(state.legal_moves())
        llm = decision.details.get("llm", {})
        fallback = llm.get("fallback")
        if fallback:
            parts["legal"] = -rewards.LEGAL_PENALTY - rewards.FALLBACK_PENALTY
        info: dict[str, Any] = {"legal": fallback is None, "attempts": decider.attempts,
                                "fallback": fallback, "move": decision.move.to_json()}
        if fallback:
            info["refused"] = decider.last_refusal
        if self.mix.needs_analyser and self.quality_jobs:
            self._pending.append((view, [m.to_json() for m in legal], decision.move.to_json(),
                                  self.quality_iterations, self.seed, state.ply + 1))
        elif self.mix.needs_analyser:
            info["analysis"] = self._quality(view, legal, decision.move)
            parts["quality"] = -info["analysis"]["loss"]
        start = time.perf_counter()
        move, details, resigned = taken(state, decision, self.policy.spec)
        info["move_text"] = self._words(state, move)
        self._record(move, details, resigned, time.perf_counter() - start)
        if not self.done:
            self._play_opponent()
        if self.done:
            assert self.result is not None
            for name in ("outcome", "margin"):
                parts[name] = getattr(rewards, name)(self.result, self.seat)
            if self._pending:  # quality_jobs: every decision's, judged now, in processes
                info["quality"] = self._deferred_quality()
                parts["quality"] = -round(sum(q["loss"] for q in info["quality"]), 4)
            info["result"] = self.result.to_json()
            info["account"] = self.account().to_json()
            info["transcript"] = str(self.transcript) if self.transcript else None
        info["reward_parts"] = parts
        return StepResult(None if self.done else self._observe(), self.mix.total(parts),
                          self.done, info)

    def stop(self) -> None:
        """End the episode where it is (a harness's limit fell): its transcript is closed
        without a result, so nothing claims the game finished."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self.done = True
        self._decider = None

    # ------------------------------------------------------------------ what is public
    def public_state(self) -> dict[str, Any]:
        """The episode as the policy's seat may know it: never a hidden card."""
        if not self.episodes:
            return {"episodes": 0, "done": True}
        seen = Perspective.of_player(self.seat.player)
        return {"episodes": self.episodes, "seed": self.seed, "seat": self.seat.player,
                "ply": self.state.ply, "done": self.done,
                "view": seen.view(self.state),
                "result": self.result.to_json() if self.result else None,
                "transcript": str(self.transcript) if self.transcript else None}

    def account(self) -> SeatAccount:
        """Whose moves the policy's seat's were (its fallbacks are not its own)."""
        return SeatAccount.of_decisions(r.details for r in self.records if r.seat is self.seat)

    # ------------------------------------------------------------------ inside
    def _new_opponent(self) -> Agent:
        """The opponent of a new episode. A harness whose opponent is not a spec (Inspect's
        opponent model role, duel.inspect) gives its own agent here."""
        return make_agent(self.opponent_spec)

    def _observe(self) -> Observation:
        assert self._decider is not None
        seen = Perspective.to_move(self.state)
        return Observation(self._decider.prompt, seen.view(self.state),
                           [m.to_json() for m in seen.moves_out(self.state.legal_moves())],
                           self.state.step_name)

    def _play_opponent(self) -> None:
        """The opponent's moves until the policy is to move (its decision starts) or the end."""
        while not self.done:
            mover = self.state.current
            if mover == self.seat.index:
                seen = Perspective.to_move(self.state)
                self._decider = Decider(self.policy, seen.view(self.state),
                                        seen.moves_out(self.state.legal_moves()),
                                        self.rngs[mover])
                if self._decider.decision is None:
                    return
                raise EpisodeOverError("the seat decided without a reply")  # pragma: no cover
            start = time.perf_counter()
            move, details, resigned = decide(self.agents[mover], self.state, self.rngs[mover])
            self._record(move, details, resigned, time.perf_counter() - start)

    def _record(self, move: Move, details: dict[str, Any], resigned: bool,
                seconds: float) -> None:
        state = self.state
        t = take(state, move, seconds, details, resigned)
        self.records.append(t.record)
        if self._writer is not None:
            self._writer.record(t.record)
        if not resigned:
            inform(self.agents, state, move, t.after)
            self.state = t.after
        if t.result is not None:
            self._end(t.result)

    def _end(self, result: Result) -> None:
        self.result = result
        self.done = True
        self._decider = None
        if self._writer is not None:
            self._writer.finish(result)

    def _quality(self, view: dict[str, Any], legal: list[Move], played: Move) -> dict[str, Any]:
        """The analyser's loss of the move played, from the seat's view (duel.analysis)."""
        return quality(view, [m.to_json() for m in legal], played.to_json(),
                       self.quality_iterations, self.seed, self.state.ply + 1)

    def _deferred_quality(self) -> list[dict[str, Any]]:
        """Every decision's quality at the episode's end, `quality_jobs` at once in a pool of
        processes (the pool is kept for the next episodes; close() ends it)."""
        from concurrent.futures import ProcessPoolExecutor

        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.quality_jobs)
        futures = [self._pool.submit(quality, *task) for task in self._pending]
        self._pending = []
        return [f.result() for f in futures]

    @staticmethod
    def _words(state: GameState, move: Move) -> str:
        from duel.words.moves import move_text

        return move_text(state, move)

    def close(self) -> None:
        """End the analyser's processes, if any."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def quality(view: dict[str, Any], legal: list[dict[str, Any]], played: dict[str, Any],
            iterations: int, seed: int, ply: int) -> dict[str, Any]:
    """The analyser's loss of `played` among `legal` (moves in the view's labels), searched
    from `view` alone at `iterations` (a module-level function: it runs in a worker process
    too). Its CPU seconds are reported."""
    from duel.analysis.search import Settings, decision_seed, evaluate

    start = time.process_time()
    moves = [Move.from_json(m) for m in legal]
    move = Move.from_json(played)
    values, done = evaluate(view, moves, move, Settings(iterations=iterations),
                            random.Random(decision_seed(seed, ply)))
    best = values[0]
    mine = next(v for v in values if v.move == move)
    return {"ply": ply, "loss": round(max(0.0, best.value - mine.value), 4),
            "best": best.move.to_json(), "best_value": best.value,
            "played_value": mine.value, "iterations": done,
            "cpu_s": round(time.process_time() - start, 4)}
