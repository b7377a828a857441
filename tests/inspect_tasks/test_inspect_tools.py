"""`inspect eval duel/match -T tools=on`: the evaluated model plays through duel's one tool set
as Inspect tools, against the fake's scripted tool-calling model (helpers.fake_tool_models, the
one the LLM seat's tools=on tests use): a whole game to the end, whose transcript replays; a
refused make_move is re-asked as that tool's answer; a model that only ever looks things up
ends each decision in the fallback, never a stuck sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from helpers.fake_llm_server import FakeLLMServer  # noqa: E402
from helpers.inspect_runs import MODEL, InspectToolModel, inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

from duel.agents.llm.toolloop import DEFAULT_TOOL_STEPS, tools_note  # noqa: E402
from duel.agents.tools import TOOLS  # noqa: E402
from duel.engine import Move, Seat  # noqa: E402
from duel.transcripts import read, verified_result  # noqa: E402


def played(llm: FakeLLMServer, tmp_path: Path, behaviour: str, extra: tuple[str, ...] = (),
           **task_args: Any) -> tuple[Any, Any, InspectToolModel]:
    model = InspectToolModel(behaviour)
    llm.responder = model
    log = read_eval_log(inspect_eval(tmp_path, "duel/match", *extra, tools="on",
                                     opponent="random",
                                     games=1, quality=0, transcripts=tmp_path / "games",
                                     **task_args))
    assert log.status == "success", log.error
    assert log.samples is not None
    [sample] = log.samples
    assert sample.scores is not None
    return sample, sample.scores["game"], model


def test_a_whole_game_through_the_tool_set_replays(llm: FakeLLMServer, tmp_path: Path) -> None:
    sample, score, model = played(llm, tmp_path, "careful", seed=3)
    meta, value = score.metadata, score.value
    t = read(meta["transcript"])
    result = verified_result(t)  # every move replayed by the engine
    assert value["points"] == result.points(Seat.P1) and value["finished"] == 1.0
    assert value["first_try_legal"] == 1.0 and value["fallbacks"] == 0.0
    assert t.spec(1) == f"llm:env:{MODEL}" and sample.metadata["tools"] is True
    # The tools offered are the tool set's own, and the model's calls were answered as tools.
    offered = {tuple(f["function"]["name"] for f in b["tools"]) for b in model.bodies}
    assert offered == {tuple(t.name for t in TOOLS)}
    sent = model.bodies[0]["tools"][4]["function"]["parameters"]
    assert sent["required"] == list(TOOLS[4].required) and \
        sent["properties"]["move"]["enum"] == TOOLS[4].params["move"]["enum"]
    answers = [m for b in model.bodies for m in b["messages"] if m["role"] == "tool"]
    assert any('"moves":' in m["content"] for m in answers)  # legal_moves' answer
    assert all(json.loads(m["content"]).get("tool_steps_left") is not None
               for m in answers)
    # The turn message is the env's prompt with the LLM seat's tools note.
    first = next(m for m in model.bodies[0]["messages"] if m["role"] == "user")
    assert first["content"].endswith(tools_note(DEFAULT_TOOL_STEPS))
    # Four look-ups a decision: state and moves, simulate and explain.
    assert meta["look_ups"] == 4 * meta["decisions"] == sample.metadata["duel"]["look_ups"]
    # Three replies a decision: state and moves, simulate and explain, make_move.
    assert len(model.bodies) == 3 * meta["decisions"]


def test_a_refused_make_move_is_re_asked_as_its_answer(llm: FakeLLMServer,
                                                       tmp_path: Path) -> None:
    _, score, model = played(llm, tmp_path, "illegal")
    meta, value = score.metadata, score.value
    verified_result(read(meta["transcript"]))
    assert value["finished"] == 1.0 and value["fallbacks"] == 0.0
    assert value["first_try_legal"] < 1.0  # the covered cards it tried first
    refusals = [json.loads(m["content"]) for b in model.bodies for m in b["messages"]
                if m["role"] == "tool" and "not accepted" in m["content"]]
    assert refusals and all("legal moves" in r["reask"].lower() for r in refusals)


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_a_model_that_only_looks_up_ends_each_decision_in_the_fallback(
        llm: FakeLLMServer, tmp_path: Path) -> None:
    _, score, model = played(llm, tmp_path, "looping", max_attempts=2)
    meta, value = score.metadata, score.value
    verified_result(read(meta["transcript"]))  # played to its end all the same
    assert value["finished"] == 1.0 and value["fallbacks"] == meta["decisions"] > 10
    assert meta["account"]["fallbacks"] == meta["decisions"]
    # Each decision: its look-ups, then one reply per attempt past them, then the fallback.
    assert len(model.bodies) == (DEFAULT_TOOL_STEPS + 2) * meta["decisions"]


def test_a_token_limit_stops_a_tools_game_cleanly(llm: FakeLLMServer, tmp_path: Path) -> None:
    sample, score, model = played(llm, tmp_path, "careful", extra=("--token-limit", "20000"))
    assert sample.limit is not None and sample.limit.type == "token"
    meta = score.metadata
    assert "token limit" in meta["stopped"] and score.value["finished"] == 0.0
    assert read(meta["transcript"]).footer is None  # closed, no finish claimed
    assert 3 <= len(model.bodies) < 30


class Stub:
    """An Inspect model stand-in: the given outputs in turn, and the conversations asked."""

    def __init__(self, outputs: list[Any]) -> None:
        self.outputs = outputs
        self.asked: list[list[Any]] = []

    async def generate(self, conv: list[Any], tools: Any = ()) -> Any:
        self.asked.append(list(conv))
        return self.outputs.pop(0)


def test_a_cut_off_reply_s_calls_are_answered_before_the_re_ask() -> None:
    import anyio
    from inspect_ai.model import ChatMessageTool, ChatMessageUser, ModelOutput

    from duel.envs import TextEnv
    from duel.inspect.tools import GameSeat

    env = TextEnv(opponent="random", seat=1)
    obs = env.reset(seed=2)
    cut = ModelOutput.for_tool_call("stub", "get_state", {}, tool_call_id="c1")
    cut.choices[0].stop_reason = "max_tokens"
    legal = obs.legal[0]
    stub = Stub([cut, ModelOutput.for_tool_call("stub", "make_move", legal, tool_call_id="c2")])
    result = anyio.run(GameSeat(env, stub).turn, obs)  # type: ignore[arg-type]
    assert result.info["move"] == legal and result.info["attempts"] == 2
    second = stub.asked[1]
    assert isinstance(second[-2], ChatMessageTool) and second[-2].tool_call_id == "c1"
    assert "cut off" in second[-2].text and isinstance(second[-1], ChatMessageUser)


def test_positions_answered_through_the_tool_set(llm: FakeLLMServer, tmp_path: Path) -> None:
    from duel.grading.positions.suite import load
    from duel.inspect.params import default_suite

    model = InspectToolModel("careful")
    llm.responder = model
    log = read_eval_log(inspect_eval(tmp_path, "duel/positions", tools="on"))
    assert log.status == "success", log.error
    assert log.samples is not None
    suite = load(default_suite()).by_id()
    assert len(log.samples) == len(suite)
    for s in log.samples:
        assert s.scores is not None
        score = s.scores["loss"]
        assert score.value["first_try_legal"] == 1.0 and score.value["fallback"] == 0.0
        assert s.metadata["duel"]["look_ups"] == 4 and s.metadata["duel"]["attempts"] == 1
        assert score.metadata is not None
        pos = suite[str(s.id)]
        assert score.value["loss"] == pos.loss(Move.from_json(score.metadata["move"]), False)
    assert len(model.bodies) == 3 * len(suite)  # state and moves, simulate and explain, move
