"""The text environment: whole games to the end against random and an MCTS opponent with a
scripted policy, every episode a transcript that replays; a refused reply is the LLM seat's
re-ask, then the fallback; the prompt is byte for byte what `llm:` sends; the observation never
holds a hidden card (twin deals); bad settings are refused at once, a step after the end says so."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, openai_reply
from helpers.seat_tables import twin_deal

from duel.agents import make_agent
from duel.engine import Perspective, new_game
from duel.envs import EpisodeOverError, TextEnv
from duel.errors import SpecError
from duel.transcripts import read, verified_result


def legal_policy(obs: Any, rng: random.Random) -> str:
    """A scripted model: one of the legal moves, as the prompt's JSON."""
    return json.dumps(rng.choice(obs.legal))


def play(env: TextEnv, seed: int, reply: Any = legal_policy) -> tuple[list[Any], Any]:
    rng = random.Random(seed)
    obs = env.reset(seed=seed)
    results = []
    while True:
        r = env.step(reply(obs, rng))
        results.append(r)
        if r.done:
            return results, r
        obs = r.observation


@pytest.mark.parametrize("opponent", ["random", "mcts:iterations=20"])
def test_whole_games_to_the_end_are_transcripts_that_replay(opponent: str,
                                                            tmp_path: Path) -> None:
    env = TextEnv(opponent=opponent, seat="alternate", transcripts=tmp_path,
                  reward="outcome+margin+legal")
    for seed in (4, 5):
        steps, last = play(env, seed)
        assert all(r.info["legal"] for r in steps) and len(steps) > 15
        assert last.reward == pytest.approx(last.info["reward_parts"]["outcome"]
                                             + last.info["reward_parts"]["margin"])
        assert last.info["account"]["own"] == last.info["account"]["moves"] == len(steps)
        t = read(Path(last.info["transcript"]))
        result = verified_result(t)
        assert result.to_json() == last.info["result"]
        assert t.header["players"][str(env.seat.player)]["spec"] == "llm:env:policy"
        assert t.header["players"][str(env.seat.other.player)]["spec"] == env.opponent_spec
    assert env.episodes == 2
    with pytest.raises(EpisodeOverError, match="the episode is over: call reset"):
        env.step("{}")


def test_a_refused_reply_is_re_asked_then_the_fallback_plays() -> None:
    env = TextEnv(opponent="random", reward="legal", max_attempts=2)
    obs = env.reset(seed=1)
    first = obs.text
    r = env.step("I would rather think about it")
    assert not r.done and r.info["legal"] is False and r.reward == pytest.approx(-0.1)
    assert "your answer contained no JSON object" in r.info["refused"]
    again = r.observation
    assert again is not None and again.text.startswith("Your move was not accepted")
    assert [m["role"] for m in again.prompt.messages] == ["user", "assistant", "user"]
    assert again.prompt.messages[0]["content"] == first
    r = env.step(json.dumps({"move": "DISCARD", "moveData": {"cardIndex": 0}}))  # not now
    assert r.info["fallback"] == "random" and r.info["legal"] is False
    assert r.reward == pytest.approx(-0.6) and "not legal" in r.info["refused"]
    assert env.account().fallbacks == 1


def test_the_prompt_is_what_the_llm_seat_sends(server: FakeLLMServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """One writer of prompts: the environment's observation is the request an `llm:` seat with
    the same prompt and harness sends (system text and messages), renaming included."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    for harness in ({}, {"names": "renamed"}, {"think": "text"}):
        env = TextEnv(harness=harness, prompt="compact", seat=1)
        obs = env.reset(seed=9)
        state = new_game(9)
        seen = Perspective.to_move(state)
        server.enqueue(openai_reply(json.dumps(obs.legal[0])))
        opts = "".join(f",{k}={v}" for k, v in harness.items())
        seat = make_agent(f"llm:openai:gpt-4o,base_url={server.url}/v1,api=chat,mode=text,"
                          f"prompt=compact{opts}")
        seat.choose(seen.view(state), seen.moves_out(state.legal_moves()), random.Random(0))
        sent = server.requests[-1]["body"]["messages"]
        assert sent == obs.chat, harness


def test_the_observation_never_holds_a_hidden_card() -> None:
    """Twin deals that differ only in cards unseen before Age II, under one game code (as the
    server's twin test plays them): the policy's observations are identical through Age I."""
    deal = new_game(12).deal
    seen = []
    for d in (deal, twin_deal(deal)):
        env = TextEnv(opponent="random", seat=2)
        obs = env.reset(seed=12, deal=d, code="TWINS")
        texts = []
        rng = random.Random(0)
        while obs.view["age"] == 1:
            texts.append(json.dumps(obs.chat) + json.dumps(env.public_state()["view"]))
            r = env.step(legal_policy(obs, rng))
            if r.done:
                break
            obs = r.observation
        seen.append(texts)
    assert len(seen[0]) > 5 and seen[0] == seen[1]


@pytest.mark.parametrize("kwargs, message", [
    ({"opponent": "mcts:iterations=x"}, "iterations"),
    ({"reward": "outcome+speed"}, "'speed' is not a reward"),
    ({"seat": 3}, "seat must be 1, 2 or alternate"),
    ({"prompt": "nope"}, "nope"),
    ({"harness": {"history": "sometimes"}}, "history"),
    ({"harness": {"tools": "on"}}, "tool set's methods"),
])
def test_bad_settings_are_refused_at_once(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        TextEnv(**kwargs)


def test_quality_is_the_analyser_s_loss_from_the_seat_s_view() -> None:
    env = TextEnv(opponent="random", reward="quality", quality_iterations=16)
    obs = env.reset(seed=2)
    r = env.step(json.dumps(obs.legal[-1]))
    a = r.info["analysis"]
    assert r.reward == pytest.approx(-a["loss"]) and 0 <= a["loss"] <= 1
    assert a["iterations"] > 0 and a["cpu_s"] >= 0
    assert a["played_value"] <= a["best_value"]


def test_quality_at_the_end_in_processes_is_the_same_as_at_each_step() -> None:
    """quality_jobs=2: every decision judged at the end in worker processes, the same losses
    (the analyser is seeded by the game's seed and ply) as judged step by step."""
    dense = TextEnv(opponent="random", reward="quality", quality_iterations=8)
    steps, _ = play(dense, 6)
    losses = [r.info["analysis"]["loss"] for r in steps]
    later = TextEnv(opponent="random", reward="quality", quality_iterations=8, quality_jobs=2)
    try:
        steps2, last = play(later, 6)
    finally:
        later.close()
    assert all(r.reward == 0 for r in steps2[:-1])
    assert [q["loss"] for q in last.info["quality"]] == losses
    assert last.reward == pytest.approx(-sum(losses), abs=1e-3)


def test_episodes_are_analysed_and_go_on_the_leaderboard_like_any_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from duel.cli import main
    from duel.leaderboard import build

    env = TextEnv(opponent="rule", seat="alternate", transcripts=tmp_path / "eps")
    for seed in (1, 2):
        play(env, seed)
    files = sorted((tmp_path / "eps").glob("*.jsonl"))
    assert len(files) == 2
    assert main(["analyse", str(files[0]), "--iterations", "8", "--jobs", "1",
                 "--seat", "both"]) == 0
    board = build([str(tmp_path / "eps")], resamples=20)
    assert {r["player"] for r in board.players} == {"llm:env:policy", "rule"}
    capsys.readouterr()
