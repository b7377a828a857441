"""Transcripts written by main before the attempt policy and the typed records (5e7254c; the
games of helpers/llm_fixture_games.py, against loopback servers): they still replay, every LLM
call record and every seat's totals read into the typed records and write back byte for byte,
the totals rebuilt from the calls are the bytes the file holds, and the same games played today
write the same records (timings and loopback ports aside; an OpenAI seat's spec says api=chat,
the API it meant when the file was written, before the Responses API became the default)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.llm_fixture_games import GAMES, PINNED

from duel.accounting.calls import LLMCall
from duel.accounting.totals import LATER_KEYS, LLMTotals, as_written
from duel.records import MoveRecord
from duel.transcripts import move_line, read, render_line, verified_result

DATA = Path(__file__).parent / "data"
NAMES = sorted(GAMES)


def lines(name: str) -> list[str]:
    text = (DATA / name).read_text()
    assert text.endswith("\n")
    return text.splitlines(keepends=True)


def test_the_files_hold_every_kind_of_record() -> None:
    """What the files cover: each category of each seat, both fallbacks' records, adaptations,
    thinking text, a priced and an unpriced model."""
    seen: set[tuple[str, str]] = set()
    fallbacks: set[tuple[str, str]] = set()
    adapted = thought = unpriced = False
    for name in NAMES:
        for line in lines(name):
            obj = json.loads(line)
            for key in ("llm", "http"):
                record = obj.get("details", {}).get(key)
                if record:
                    seen |= {(key, c["category"]) for c in record["calls"]}
                    if record["fallback"]:
                        fallbacks.add((key, record["fallback"]))
                    adapted |= bool(record.get("adaptations"))
                    thought |= any(c.get("thinking") for c in record["calls"])
                    unpriced |= any(c.get("cost_usd", 0) is None for c in record["calls"])
    assert seen == {("llm", c) for c in ("OK", "TRANSPORT", "TRUNCATED", "EMPTY", "UNPARSABLE",
                                         "SCHEMA", "ILLEGAL")} | \
        {("http", c) for c in ("OK", "TRANSPORT", "REFUSED", "UNPARSABLE", "SCHEMA", "ILLEGAL")}
    assert fallbacks == {("llm", "random"), ("http", "random")}
    assert adapted and thought and unpriced


@pytest.mark.parametrize("name", NAMES)
def test_an_older_transcript_replays(name: str) -> None:
    assert verified_result(read(DATA / name)) is not None


@pytest.mark.parametrize("name", NAMES)
def test_its_records_round_trip_byte_for_byte(name: str) -> None:
    """Each move line read as a MoveRecord with its LLM calls as LLMCall records, and written
    back, is the line the file holds; so is each seat's LLMTotals in the result line."""
    calls = 0
    for line in lines(name):
        obj = json.loads(line)
        if obj["type"] == "move":
            record = MoveRecord.from_json({k: v for k, v in obj.items() if k != "type"})
            llm = record.details.get("llm")
            if llm:
                typed = [LLMCall.from_json(c) for c in llm["calls"]]
                calls += len(typed)
                llm["calls"] = [c.to_json() for c in typed]
            assert render_line(move_line(record)) == line
        elif obj["type"] == "result":
            for t in obj["totals"].values():
                if t is not None:
                    assert LLMTotals.from_json(t).to_json() == t
                    assert json.dumps(LLMTotals.from_json(t).to_json()) == json.dumps(t)
    assert calls >= 39  # every LLM seat of the file


@pytest.mark.parametrize("name", NAMES)
def test_the_totals_rebuilt_from_the_calls_are_the_file_s_bytes(name: str) -> None:
    moves = [json.loads(line) for line in lines(name)]
    footer = moves.pop()
    for player, written in footer["totals"].items():
        rebuilt = LLMTotals.of_decisions(m["details"] for m in moves[1:]
                                         if m["player"] == int(player))
        assert json.dumps(None if rebuilt is None else as_written(rebuilt.to_json(), written)) \
            == json.dumps(written)


_PORT = re.compile(r"127\.0\.0\.1:\d+")
_TIMES = ("latency_s", "seconds", "started_at", "duel_version")
# Keys written since these files were: the totals' later keys, and the settings' record of the
# provider's documented reasoning default.
_ADDED = (*LATER_KEYS[2:], "default_reasoning", "thinking_request", "served_model", "request_id",
          "retry", "server")
# Options a game's spec pins since its default changed: compatible servers' mode=tool (their
# default when the files were written; json_schema since).
_PINNED = ("/v1,mode=tool,",)
_DEFAULT = " (provider default)"  # how a result names the default it played with, since then


def normalised(line: str) -> str:
    """A line with its timings, loopback ports and duel version blanked, keys added since
    dropped, keys in order."""
    def blank(obj: Any) -> Any:
        if isinstance(obj, dict):
            return {k: "*" if k in _TIMES else blank(v) for k, v in obj.items()
                    if k not in _ADDED}
        if isinstance(obj, str) and obj.endswith(_DEFAULT):
            return "default"  # the label's word before duel named the provider's default
        if isinstance(obj, list):
            return [blank(v) for v in obj]
        return obj

    text = _PORT.sub("127.0.0.1:*", json.dumps(blank(json.loads(line))))
    for pinned in _PINNED:
        text = text.replace(pinned, "/v1,")
    return text


@pytest.mark.parametrize("name", NAMES)
def test_the_same_game_played_today_writes_the_same_records(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorded details (``details.llm``, ``details.http``) of the attempt policy and the
    typed records are the bytes the seats wrote before, key order included."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    GAMES[name](tmp_path / name)
    today = (tmp_path / name).read_text().splitlines(keepends=True)
    before = lines(name)
    pinned = PINNED.get(name)
    if pinned:  # the one difference: the OpenAI seat's spec names the API it then meant
        header = json.loads(before[0])
        seat = header["players"]["1"]
        assert seat["spec"].startswith("llm:openai:") and pinned not in seat["spec"]
        seat["spec"] += pinned
        before[0] = json.dumps(header) + "\n"
    assert len(today) == len(before)
    for new, old in zip(today, before, strict=True):
        assert normalised(new) == normalised(old)
