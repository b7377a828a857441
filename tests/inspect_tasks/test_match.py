"""`duel/match` under Inspect: whole games to the end against a spec and against a second LLM
through the opponent model role; the logs read back with Inspect's reader and every game's
transcript replays to the result the scorer gave; a token limit stops a game cleanly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from helpers.fake_llm_server import FakeLLMServer, openai_reply  # noqa: E402
from helpers.inspect_runs import MODEL, inspect_eval, legal_reply  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log  # noqa: E402

from duel.engine import Seat  # noqa: E402
from duel.leaderboard.games import load  # noqa: E402
from duel.transcripts import read, verified_result  # noqa: E402


def run(tmp_path: Path, task: str = "duel/match", *extra: str, **task_args: Any
        ) -> EvalLog:
    """`inspect eval TASK` as a user types it (a fresh process: the entry point finds the
    task), against the fake; its one log read back with Inspect's reader."""
    return read_eval_log(inspect_eval(tmp_path, task, *extra, **task_args))


def scores(log: EvalLog) -> list[dict[str, Any]]:
    assert log.samples is not None
    out = []
    for s in log.samples:
        assert s.scores is not None
        out.append({"sample": s, "score": s.scores["game"]})
    return out


def test_two_seat_swapped_games_to_the_end_replay_to_the_scored_result(
        llm: FakeLLMServer, tmp_path: Path) -> None:
    log = run(tmp_path, opponent="random", games=2, seed=5, quality=0,
              transcripts=tmp_path / "games")
    assert log.status == "success", log.error
    found = scores(log)
    assert [f["sample"].metadata["seat"] for f in found] == [1, 2]
    assert {f["sample"].metadata["seed"] for f in found} == {5}  # one deal, both seatings
    for f in found:
        score, meta = f["score"], f["score"].metadata
        t = read(meta["transcript"])
        result = verified_result(t)  # the engine's replay of every move
        seat = Seat.of_index(f["sample"].metadata["seat"] - 1)
        assert score.value["points"] == result.points(seat)
        assert score.value["finished"] == 1.0 and score.value["first_try_legal"] == 1.0
        assert meta["decisions"] > 15 and meta["account"]["fallbacks"] == 0
        assert t.spec(seat.player) == f"llm:env:{MODEL}" and t.spec(3 - seat.player) == "random"
    assert log.results is not None
    names = {f"{s.name}:{m}" for s in log.results.scores for m in s.metrics}
    assert {"points:mean", "points:stderr", "first_try_legal:mean", "loss:mean"} <= names, names
    # `duel leaderboard` reads the log directory: its games are the transcripts it names.
    loaded = load([str(tmp_path / "logs")])
    assert sorted(str(g.transcript) for g in loaded.games) == \
        sorted(f["score"].metadata["transcript"] for f in found)


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_the_opponent_role_is_a_second_llm_seat_and_a_never_legal_model_ends_in_fallbacks(
        llm: FakeLLMServer, tmp_path: Path) -> None:
    # The evaluated model (m) never answers a move; the opponent role's (m2) always does.
    llm.responder = lambda body: legal_reply(body) if body["model"] == "m2" else \
        openai_reply("I pass.")
    log = run(tmp_path, "duel/match", "--model-role", "opponent=openai-api/fake2/m2",
              opponent="role", games=1, quality=10, max_attempts=2,
              transcripts=tmp_path / "games")
    assert log.status == "success", log.error
    [f] = scores(log)
    meta, value = f["score"].metadata, f["score"].value
    t = read(meta["transcript"])
    verified_result(t)  # played to its end all the same
    assert t.spec(1) == f"llm:env:{MODEL}" and t.spec(2) == "llm:env:openai-api/fake2/m2"
    asked = [r["body"]["model"] for r in llm.requests]
    assert set(asked) == {"m", "m2"}  # both seats asked the server, each as its own model
    assert asked.count("m") == 2 * meta["decisions"]  # each decision: 2 attempts, then...
    assert value["fallbacks"] == meta["decisions"] == meta["account"]["fallbacks"]  # ...fallback
    assert value["first_try_legal"] == 0.0 and value["finished"] == 1.0
    assert 0.0 <= value["loss"] <= 1.0 and "loss_ci95" in meta  # the analyser judged each move


UNREACHABLE = "http:http://127.0.0.1:9,transport_retries=0,stop_after=1"


@pytest.mark.parametrize(("opponent", "reason"), [
    ("role", "Model role 'opponent' is required"),  # no --model-role: before any call
    (UNREACHABLE, "stopped rather than play on its behalf"),  # the opponent's server is down
    # as typed, the seat's defaults: its transport retries, then its stop_after fallbacks
    pytest.param("http:http://127.0.0.1:1", "stopped rather than play on its behalf",
                 marks=pytest.mark.slow),  # about 50 s of the seat's own retries
])
def test_a_sample_that_cannot_be_played_stops_with_the_reason(
        llm: FakeLLMServer, tmp_path: Path, opponent: str, reason: str) -> None:
    log = run(tmp_path, opponent=opponent, games=1, quality=0, transcripts=tmp_path / "g")
    assert log.status == "error" and reason in str(log.error), log.error
    # a few of the model's moves at most (the opponent's fallbacks in a row before its seat
    # stops), never a stuck game
    assert len(llm.requests) <= 3
    if opponent.startswith("http"):  # the game so far is kept, closed, and says why
        assert log.samples is not None
        [sample] = log.samples
        stopped = sample.metadata["duel"]["stopped"]
        assert "SeatFailedError" in stopped and reason in stopped
        t = read(sample.metadata["duel"]["transcript"])
        assert t.footer is None and t.moves


def test_a_token_limit_stops_the_game_cleanly_and_says_so(
        llm: FakeLLMServer, tmp_path: Path) -> None:
    log = run(tmp_path, "duel/match", "--token-limit", "5000", opponent="random", games=1,
              quality=0, transcripts=tmp_path / "games")
    assert log.status == "success", log.error
    [f] = scores(log)
    assert f["sample"].limit is not None and f["sample"].limit.type == "token"
    meta = f["score"].metadata
    assert "token limit" in meta["stopped"] and f["score"].value["finished"] == 0.0
    assert read(meta["transcript"]).footer is None  # no finish is claimed


PRICED = "openai/gpt-4o-mini"  # in Inspect's model database (without a price: given below)


def test_a_cost_limit_stops_the_game_cleanly_and_says_so(
        llm: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake serves the priced model: $10 a million tokens, about $0.009 a reply of its 915.
    monkeypatch.setenv("OPENAI_BASE_URL", f"{llm.url}/v1")
    prices = tmp_path / "prices.yaml"
    prices.write_text(f"{PRICED}:\n  input: 10\n  output: 10\n  input_cache_write: 10\n"
                      "  input_cache_read: 1\n")
    log = run(tmp_path, "duel/match", "--model", PRICED, "-M", "responses_api=false",
              "--model-cost-config", str(prices), "--cost-limit", "0.05", opponent="random",
              games=1, quality=0, transcripts=tmp_path / "games")
    assert log.status == "success", log.error
    [f] = scores(log)
    assert f["sample"].limit is not None and f["sample"].limit.type == "cost"
    meta = f["score"].metadata
    assert "cost limit" in meta["stopped"] and f["score"].value["finished"] == 0.0
    assert f["sample"].metadata["duel"]["stopped"] == meta["stopped"]  # the sample says why
    assert 4 <= len(llm.requests) <= 7  # stopped at the limit: ~$0.05 of replies
    t = read(meta["transcript"])
    assert t.footer is None and 0 < len(t.moves)  # closed where it stopped, no finish claimed
