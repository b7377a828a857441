"""Harness settings of the LLM seat (duel.prompts.harness): the settings model and its errors,
and whole games per setting through the real openai and anthropic SDKs against the fake server,
each setting recorded in the transcript header, every call record and `duel match -v`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_harness_model import HarnessModel
from helpers.fake_harness_model import turns as user_turns
from helpers.fake_llm_server import FakeLLMServer

from duel.agents import make_agent
from duel.agents.llm.framing.turn import last_move_object, reply_schema
from duel.agents.llm.legal_schema import legal_move_schema
from duel.agents.llm.schema import structured_schema
from duel.cli import main
from duel.errors import SpecError
from duel.prompts.harness import HISTORY_ALL, NOTE_CHARS, OPTIONS, THINK_CHARS, Harness
from duel.transcripts import read, verified_result


# ---------------------------------------------------------------------------- the settings
def test_settings_read_write_and_label() -> None:
    h = Harness.from_options({"history": "all", "think": "text", "notes": "on"})
    assert h == Harness(history=HISTORY_ALL, notes=True, think="text")
    assert h.label == "history=all,notes=on,think=text"
    assert Harness.from_label(h.label) == h
    assert Harness().label == "default" and Harness.from_label("default") == Harness()
    assert Harness.from_options({"history": "5"}).history == 5
    assert Harness.from_options({"history": "off", "notes": "off"}).is_default


@pytest.mark.parametrize("given, words", [
    ({"history": "some"}, "history must be off, all or a number of moves N"),
    ({"history": "0"}, "history must be off, all or a number"),
    ({"history": "-3"}, "history must be"),
    ({"think": "yes"}, "think must be off or text, got 'yes'"),
    ({"notes": "true"}, "notes must be on or off"),
    ({"memory": "on"}, "unknown harness setting 'memory'; valid settings: history, notes, think"),
])
def test_a_bad_setting_or_value_names_the_valid_ones(given: dict[str, str], words: str) -> None:
    with pytest.raises(SpecError, match=words.replace("(", r"\(")):
        Harness.from_options(given)


def test_the_spec_takes_the_settings_and_refuses_unknown_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    agent: Any = make_agent("llm:openai:gpt-4o-mini,history=10,think=text")
    assert agent.harness == Harness(history=10, think="text")
    assert agent.max_tokens == 2048  # room to reason: the plain answer's 1024 would cut it
    assert make_agent("llm:openai:gpt-4o-mini,think=text,max_tokens=300").max_tokens == 300
    with pytest.raises(SpecError, match="valid parameters: .*history, notes, think"):
        make_agent("llm:openai:gpt-4o-mini,histroy=all")
    with pytest.raises(SpecError, match="think must be off or text"):
        make_agent("llm:openai:gpt-4o-mini,think=json")


def test_every_option_row_has_a_field() -> None:
    from dataclasses import fields

    assert [f.name for f in fields(Harness)] == list(OPTIONS)


def test_reply_schema_adds_reasoning_first_and_note_last() -> None:
    h = Harness(think="text", notes=True)
    full = reply_schema(h, structured_schema())
    assert list(full["properties"]) == ["reasoning", "move", "moveData", "note"]
    assert full["required"] == ["reasoning", "move", "moveData", "note"]
    assert full["additionalProperties"] is False
    from duel.engine import Move
    legal = legal_move_schema([Move("DISCARD", card_index=1), Move("SELECT_WONDER",
                                                                    wonder="PIRAEUS")])
    for branch in reply_schema(h, legal)["anyOf"]:
        assert list(branch["properties"]) == ["reasoning", "move", "moveData", "note"]
    assert reply_schema(Harness(), structured_schema()) == structured_schema()


def test_the_last_well_formed_move_object_is_taken() -> None:
    text = ('I could play {"move": "DISCARD", "moveData": {"cardIndex": 3}} but no.\n'
            'Better: {"move": "DISCARD", "moveData": {"cardIndex": 5}}\n{"aside": 1}')
    obj, start = last_move_object(text) or (None, 0)
    assert obj == {"move": "DISCARD", "moveData": {"cardIndex": 5}}
    assert text[start:].startswith('{"move": "DISCARD", "moveData": {"cardIndex": 5}')
    assert last_move_object("I think I should discard slot 5.") is None


# ---------------------------------------------------------------------------- whole games
def play(spec: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """`duel match -v`, the LLM as player 1 against rule; the transcript's facts."""
    code = main(["match", "--p1", spec, "--p2", "rule", "--seed", "4", "-v",
                 "--transcript", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    t = read(path)
    verified_result(t)
    moves = [m["details"]["llm"] for m in t.moves if m["player"] == 1]
    return {"header": t.header, "moves": moves, "out": out,
            "calls": [c for m in moves for c in m["calls"]]}


SPECS = {
    "openai": "llm:openai:gpt-4o-mini,base_url={url}/v1,api=chat,backoff=0.01",
    "openai-tool": "llm:openai:gpt-4o-mini,base_url={url}/v1,api=chat,backoff=0.01,mode=tool",
    "openai-responses": "llm:openai:gpt-4.1-mini,base_url={url}/v1,backoff=0.01",
    "openai-responses-tool": "llm:openai:gpt-4.1-mini,base_url={url}/v1,backoff=0.01,mode=tool",
    "compat-text": "llm:compat:m@{url}/v1,mode=text,backoff=0.01",
    "compat-legal": "llm:compat:m@{url}/v1,mode=json_object,constrain=legal,server=llamacpp,"
                    "backoff=0.01",
    "anthropic": "llm:anthropic:claude-sonnet-4-6,base_url={url},backoff=0.01",
}
SETTINGS = ["history=all", "history=3", "think=text", "notes=on", "history=all,notes=on,think=text"]


@pytest.mark.parametrize("provider", list(SPECS))
@pytest.mark.parametrize("settings", SETTINGS)
def test_a_whole_game_per_setting_and_provider(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        provider: str, settings: str) -> None:
    server.responder = HarnessModel()
    h = Harness.from_label(settings)
    game = play(SPECS[provider].format(url=server.url) + "," + settings, tmp_path / "g.jsonl",
                capsys)
    assert game["header"]["players"]["1"]["prompt"]["harness"] == h.label
    assert all(m["fallback"] is None and m["legal_at_attempt"] == 1 for m in game["moves"])
    assert all(m["harness"] == h.label for m in game["moves"])
    assert game["calls"] and all(c["harness"] == h.label for c in game["calls"])
    assert f"(harness {h.label})" in game["out"]
    if provider.startswith("openai-responses"):
        assert {r["path"] for r in server.requests} == {"/v1/responses"}
    requests = [r["body"] for r in server.requests]
    turns = [next(m["content"] for m in user_turns(b) if m["role"] == "user") for b in requests]
    turns = [t if isinstance(t, str) else t[0]["text"] for t in turns]
    if h.history:
        assert turns[0].startswith("The game so far: no move has been played yet.")
        later = turns[-1]
        assert "The game so far (" in later and "Player 2 (you) takes" in later \
            or "Player 2 (you)" in later
        lines = [ln for ln in later.split("\n\n")[0].splitlines()[1:]]
        if h.history == 3:
            assert len(lines) == 3 and "the last 3 moves" in later
        else:
            assert len(lines) > 40  # every move of the game so far
    else:
        assert all("The game so far" not in t for t in turns)
    if h.think == "text":
        assert all(c["thinking"].startswith("Call ") for c in game["calls"])
        assert "thinking: Call" in game["out"]
    else:
        assert all(not c.get("thinking") for c in game["calls"])
    if h.notes:
        assert game["moves"][0]["note"] == "plan 1"
        assert "You have kept no note yet." in turns[0]
        assert "Your note from your last move: plan 1" in turns[1]
        assert "note kept: plan 1" in game["out"]
    else:
        assert all("note" not in m for m in game["moves"])


def test_the_default_harness_sends_and_records_what_it_always_did(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = HarnessModel()
    game = play(SPECS["openai"].format(url=server.url), tmp_path / "g.jsonl", capsys)
    assert "harness" not in game["header"]["players"]["1"]["prompt"]
    assert all("harness" not in c for c in game["calls"])
    assert all("harness" not in m and "note" not in m for m in game["moves"])
    body = server.requests[0]["body"]
    assert list(body["response_format"]["json_schema"]["schema"]["properties"]) == \
        ["move", "moveData"]
    assert body["messages"][1]["content"].endswith(
        'Answer with only the JSON object of your move, in the form '
        '{"move": ..., "moveData": {...}}.')


@pytest.mark.parametrize("provider", ["compat-text", "anthropic"])
def test_reasoning_without_a_move_is_unparsable_and_asked_again(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        provider: str) -> None:
    server.responder = HarnessModel(reasoning_only=(1, 5))
    game = play(SPECS[provider].format(url=server.url) + ",think=text", tmp_path / "g.jsonl",
                capsys)
    first = game["moves"][0]
    assert [c["category"] for c in first["calls"]] == ["UNPARSABLE", "OK"]
    assert first["legal_at_attempt"] == 2 and first["fallback"] is None
    bad = first["calls"][0]
    assert bad["raw"].startswith("Call 1: I weigh") and "error" in bad
    reask = server.requests[1]["body"]["messages"][-1]["content"]
    reask = reask if isinstance(reask, str) else reask[0]["text"]
    assert "Your move was not accepted" in reask
    assert sum(c["category"] == "UNPARSABLE" for c in game["calls"]) == 2
    assert all(m["fallback"] is None for m in game["moves"])


def test_notes_are_cut_at_their_bound(server: FakeLLMServer, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = HarnessModel(note="x" * 1000 + "{n}")
    game = play(SPECS["openai"].format(url=server.url) + ",notes=on", tmp_path / "g.jsonl",
                capsys)
    assert all(len(m["note"]) == 400 for m in game["moves"])
    assert "Your note from your last move: " + game["moves"][0]["note"] + "\n" in \
        server.requests[1]["body"]["messages"][1]["content"]


def test_a_cut_off_reasoning_is_asked_again_more_briefly(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from helpers.fake_llm_server import openai_reply

    server.responder = HarnessModel()
    server.enqueue(openai_reply(content="Let me weigh every card in turn, first", finish="length"))
    game = play(SPECS["compat-text"].format(url=server.url) + ",think=text",
                tmp_path / "g.jsonl", capsys)
    first = game["moves"][0]["calls"]
    assert [c["category"] for c in first] == ["TRUNCATED", "OK"]
    # an unknown model's budget (8192) is already above think=text's floor of 2048
    assert first[0]["error"] == ("your answer was cut off at 8192 tokens; reason more briefly, "
                                 "then give the JSON object")


@pytest.mark.parametrize("provider", ["openai", "anthropic", "compat-text"])
def test_image_on_sends_the_seat_s_board_as_a_picture(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        provider: str) -> None:
    import base64

    server.responder = HarnessModel()
    game = play(SPECS[provider].format(url=server.url) + ",image=on", tmp_path / "g.jsonl",
                capsys)
    assert all(m["fallback"] is None for m in game["moves"])
    for r in server.requests:
        first = next(m["content"] for m in r["body"]["messages"] if m["role"] == "user")
        assert first[0]["type"] == "text" and "you are player2" in first[0]["text"]
        if provider == "anthropic":
            data = first[1]["source"]["data"]
            assert first[1]["source"]["media_type"] == "image/png"
        else:
            url = first[1]["image_url"]["url"]
            assert url.startswith("data:image/png;base64,")
            data = url.partition(",")[2]
        assert base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    image = game["moves"][0]["image"]
    assert image["width"] == 960 and image["bytes"] > 1000 and image["tokens_openai"] == 765
    assert "board image: 960x720 PNG" in game["out"]


def test_image_on_is_refused_where_it_cannot_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(SpecError, match="llm:local takes no images"):
        make_agent("llm:local,image=on")
    # The model table says which models read images: o3-mini does not, a snapshot of it
    # neither; a model the table does not know is let through (its first call says so).
    for model in ("o3-mini", "o3-mini-2025-01-31"):
        with pytest.raises(SpecError, match=f"{model} takes no images .* o3-mini as text only"):
            make_agent(f"llm:openai:{model},image=on")
    for model in ("gpt-4o-mini", "gpt-5-mini", "o4-mini"):
        make_agent(f"llm:openai:{model},image=on")
    make_agent("llm:compat:some-model@http://127.0.0.1:9/v1,image=on")
    with pytest.raises(SpecError, match="cannot go with names=renamed"):
        make_agent("llm:openai:gpt-4o-mini,image=on,names=renamed")


def test_the_board_image_is_the_same_for_the_same_view_and_hides_nothing_it_lacks() -> None:
    import random

    from duel.agents.llm.framing.board_image import render
    from duel.engine import Perspective, new_game

    state = new_game(5)
    rng = random.Random(1)
    for _ in range(30):
        state = state.apply(rng.choice(state.legal_moves()))
    view = Perspective.of_player(1).view(state)
    assert render(view).png == render(dict(view, code="OTHER123")).png  # the code is not drawn
    other = Perspective.of_player(2).view(state)
    assert render(other).png != render(view).png  # each seat sees its own side at the bottom


def test_llm_check_sends_the_picture_so_a_model_without_images_is_found_before_a_run(
        server: FakeLLMServer) -> None:
    """`duel llm check SPEC,image=on` plays its one decision as a game would, picture
    included; a server that takes no images refuses that call, and the check says so."""
    from helpers.fake_llm_server import Scripted

    from duel.cli.llm import check
    from duel.errors import DuelError

    server.responder = HarnessModel()
    spec = SPECS["compat-text"].format(url=server.url) + ",image=on,transport_retries=0"
    found = check(spec)
    assert found["legal_at_attempt"] == 1
    first = server.requests[0]["body"]["messages"][1]["content"]
    assert first[1]["image_url"]["url"].startswith("data:image/png;base64,")
    # a model that reads no images: OpenAI's documented 400 for a picture it cannot take
    server.responder = None
    refusal = {"error": {"message": "Invalid content type. image_url is only supported by "
                                    "certain models.", "type": "invalid_request_error",
                         "param": "messages.[1].content.[1].type", "code": None}}
    server.enqueue(*[Scripted(refusal, 400)] * 9)
    with pytest.raises(DuelError, match="image_url is only supported by certain models"):
        check(spec)


@pytest.mark.parametrize("provider", ["compat-legal", "openai", "anthropic"])
def test_a_grammar_server_holds_reasoning_and_note_to_their_lengths(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        provider: str) -> None:
    # llama.cpp's and vLLM's grammars enforce maxLength: a small model must close its reasoning
    # and move. OpenAI's and Anthropic's strict subsets take no length constraint: none is sent.
    server.responder = HarnessModel()
    game = play(SPECS[provider].format(url=server.url) + ",think=text,notes=on",
                tmp_path / "g.jsonl", capsys)
    assert all(m["fallback"] is None for m in game["moves"])
    bounded = provider == "compat-legal"
    for request in server.requests:
        body = json.dumps(request["body"])
        assert (f'"maxLength": {THINK_CHARS}' in body) is bounded
        assert (f'"maxLength": {NOTE_CHARS}' in body) is bounded
        assert ("(at most 1000 characters)" in body) is bounded
    schema = reply_schema(Harness(think="text", notes=True), structured_schema(), bounded=True)
    assert schema["properties"]["reasoning"] == {"type": "string", "maxLength": THINK_CHARS}
    assert schema["properties"]["note"] == {"type": "string", "maxLength": NOTE_CHARS}


def test_llm_check_shows_the_harness_the_reasoning_in_words_and_the_note(
        server: FakeLLMServer) -> None:
    from duel.cli.llm import check, report_text

    server.responder = HarnessModel()
    found = check(SPECS["compat-legal"].format(url=server.url) + ",think=text,notes=on")
    assert found["harness"] == "notes=on,think=text" and found["note"] == "plan 1"
    assert found["thinking"] == "Call 1: I weigh my options and take this one."
    text = report_text(found)
    assert "  harness:     notes=on,think=text" in text and "  note kept:   plan 1" in text
    assert "  thinking:    Call 1: I weigh" in text
    plain = check(SPECS["compat-legal"].format(url=server.url))
    assert plain["harness"] == "default" and plain["note"] is None and plain["thinking"] is None
    assert "harness:" not in report_text(plain) and "note kept:" not in report_text(plain)
