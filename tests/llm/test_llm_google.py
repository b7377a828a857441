"""`llm:google:MODEL` (issue 42's proof of the provider seam): Gemini through the real
`google-genai` SDK against a local server that answers as the Gemini API documents
(helpers/fake_gemini_server.py)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_gemini_server import MISSING, SIGNATURE, GeminiModel, field
from helpers.fake_llm_server import FakeLLMServer, Scripted
from helpers.llm_seat import play_card_position

from duel.agents.llm.models import family
from duel.agents.spec import make_agent
from duel.cli import main
from duel.errors import LLMConfigError, SpecError
from duel.transcripts import read, verified_result

FLASH = family("gemini-2.5-flash")
assert FLASH is not None and FLASH.prices is not None
PRICES = FLASH.prices  # the fake bills at Google's list price, which the table holds


@pytest.fixture()
def gemini(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with FakeLLMServer(GeminiModel(PRICES)) as srv:
        yield srv


def game(spec: str, path: Path) -> dict[str, Any]:
    assert main(["match", "--p1", spec, "--p2", "random", "--seed", "3",
                 "--transcript", str(path)]) == 0
    t = read(path)
    verified_result(t)
    moves = [m for m in t.moves if m["player"] == 1]
    calls = [c for m in moves for c in m["details"]["llm"]["calls"]]
    assert t.footer is not None
    return {"moves": moves, "calls": calls, "totals": t.footer["totals"]["1"]}


def test_a_whole_game_through_the_sdk_thinks_caches_and_costs_what_the_fake_bills(
        gemini: FakeLLMServer, tmp_path: Path) -> None:
    g = game(f"llm:google:gemini-2.5-flash,base_url={gemini.url}", tmp_path / "g.jsonl")
    calls, model = g["calls"], gemini.responder
    assert isinstance(model, GeminiModel)
    assert all(not m["details"]["llm"].get("fallback") for m in g["moves"])  # 0 fallbacks
    assert all(c["category"] == "OK" for c in calls)
    assert {r["path"] for r in gemini.requests} == {
        "/v1beta/models/gemini-2.5-flash:generateContent"}
    assert {r["headers"].get("x-goog-api-key") for r in gemini.requests} == {"test-key"}
    body = model.bodies[0]
    config = field(body, "generationConfig")
    assert field(config, "responseMimeType") == "application/json"
    assert field(config, "responseJsonSchema")["properties"]["move"]
    assert field(field(config, "thinkingConfig"), "includeThoughts") is True
    assert field(field(config, "thinkingConfig"), "thinkingBudget") is None
    assert "temperature" not in config  # Gemini's thinking models keep their own
    # thought summaries recorded as thinking text on every call (>= 90% asked)
    assert all(c["thinking"].startswith("**Weighing the pyramid**") for c in calls)
    assert all(c["reasoning_tokens"] == 200 and c["output_tokens"] == 230 for c in calls)
    # implicit caching: every call after the first reads the rules text from the cache
    assert calls[0]["cached_tokens"] == 0 and all(c["cached_tokens"] > 1000 for c in calls[1:])
    later = calls[1:]
    share = sum(c["cached_tokens"] for c in later) / sum(c["input_tokens"] for c in later)
    assert share > 0.5
    ours, billed = sum(c["cost_usd"] for c in calls), sum(model.billed)
    assert abs(ours - billed) <= 0.02 * billed
    assert calls[0]["served_model"] == "gemini-2.5-flash" and calls[0]["request_id"]


def test_thinking_levels_and_budgets_go_as_google_documents_them(
        gemini: FakeLLMServer) -> None:
    view, legal = _position()
    for spec, want in (
            ("gemini-3.1-pro-preview,reasoning_effort=low",
             {"thinkingLevel": "LOW", "includeThoughts": True}),
            ("gemini-2.5-flash,thinking=2048",
             {"thinkingBudget": 2048, "includeThoughts": True}),
            ("gemini-2.5-flash,thinking=0", {"thinkingBudget": 0})):
        agent = make_agent(f"llm:google:{spec},base_url={gemini.url}")
        agent.choose(view, legal, random.Random(0))
        thinking = field(field(gemini.requests[-1]["body"], "generationConfig"),
                         "thinkingConfig")
        assert {k: field(thinking, k) for k in want} == want, spec
        assert len(thinking) == len(want), spec


@pytest.mark.parametrize(("spec", "words"), [
    ("gemini-2.5-flash,reasoning_effort=high", "takes no reasoning_effort (Gemini 2.5"),
    ("gemini-3.1-pro-preview,thinking=1024", "takes no thinking budget (Gemini 3"),
    ("gemini-3.1-pro-preview,reasoning_effort=minimal", "takes reasoning_effort low, high"),
    ("gemini-2.5-flash,thinking_form=budget", "llm:google takes no thinking_form"),
    ("gemini-2.5-flash,provider=Vertex", "llm:google takes no provider="),
])
def test_options_google_does_not_take_are_clear_errors(
        monkeypatch: pytest.MonkeyPatch, spec: str, words: str) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with pytest.raises(SpecError, match=words.replace("(", r"\(")):
        make_agent(f"llm:google:{spec}")


def test_the_key_comes_from_gemini_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(SpecError, match="llm:google needs the GEMINI_API_KEY"):
        make_agent("llm:google:gemini-2.5-flash")


def test_tools_give_the_thought_signatures_back_within_the_loop(
        gemini: FakeLLMServer) -> None:
    view, legal = _position()
    agent = make_agent(f"llm:google:gemini-3-flash-preview,tools=on,base_url={gemini.url}")
    d = agent.choose(view, legal, random.Random(0))
    llm = d.details["llm"]
    assert not llm.get("fallback") and d.move in legal
    assert [c["category"] for c in llm["calls"]] == ["TOOLS", "OK"]
    second = gemini.requests[1]["body"]
    model_turn = second["contents"][1]
    assert model_turn["role"] == "model"
    call = next(p for p in model_turn["parts"] if field(p, "functionCall"))
    assert field(call, "thoughtSignature") == SIGNATURE  # given back as it came
    answer = field(second["contents"][2]["parts"][0], "functionResponse")
    assert answer["name"] == "get_state" and "tool_steps_left" in answer["response"]
    declarations = field(second["tools"][0], "functionDeclarations")
    assert "make_move" in [f["name"] for f in declarations]
    assert all(field(f, "parametersJsonSchema")["type"] == "object" for f in declarations)


def test_a_reply_without_its_signature_would_be_refused(
        gemini: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake holds the loop to Google's rule: a model turn given back without its
    signatures is refused, with the API's message recorded as the call's error."""
    from duel.agents.llm.providers import google_genai

    real = google_genai.reply

    def unsigned(resp: Any, mode: str) -> Any:
        r = real(resp, mode)
        if isinstance(r.message, dict):
            for part in r.message["parts"]:
                part.pop("thoughtSignature", None)
        return r

    monkeypatch.setattr(google_genai, "reply", unsigned)
    view, legal = _position()
    agent = make_agent(f"llm:google:gemini-3-flash-preview,tools=on,base_url={gemini.url}")
    with pytest.raises(LLMConfigError, match="refused tools.*" + MISSING[:40]):
        agent.choose(view, legal, random.Random(0))


def test_the_board_goes_as_inline_data_with_image_on(gemini: FakeLLMServer) -> None:
    view, legal = _position()
    agent = make_agent(f"llm:google:gemini-2.5-flash,image=on,base_url={gemini.url}")
    agent.choose(view, legal, random.Random(0))
    parts = gemini.requests[-1]["body"]["contents"][0]["parts"]
    image = field(parts[1], "inlineData")
    assert parts[0]["text"] and field(image, "mimeType") == "image/png"
    assert len(image["data"]) > 1000


def test_a_rate_limit_is_retried_and_a_refused_request_named(gemini: FakeLLMServer) -> None:
    view, legal = _position()
    gemini.enqueue(Scripted({"error": {"code": 429, "message": "Resource has been exhausted",
                                       "status": "RESOURCE_EXHAUSTED"}}, 429))
    agent = make_agent(f"llm:google:gemini-2.5-flash,backoff=0,base_url={gemini.url}")
    d = agent.choose(view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert "HTTP 429" in calls[0]["error"] and calls[1]["retry"] == "after HTTP 429"
    gemini.enqueue(Scripted({"error": {"code": 400, "message": "Invalid JSON payload "
                                       "received. Unknown name \"bogus\"",
                                       "status": "INVALID_ARGUMENT"}}, 400))
    d = agent.choose(view, legal, random.Random(0))
    first = d.details["llm"]["calls"][0]
    assert first["category"] == "TRANSPORT" and "HTTP 400: Invalid JSON payload" in first["error"]
    assert first["cost_usd"] == 0.0  # nothing came back: nothing billed, and recorded so


def _position() -> tuple[dict[str, Any], list[Any]]:
    return play_card_position()


# Explicit context caching (cache=explicit): the rules text in a cachedContents resource.

def test_explicit_caching_makes_one_cache_names_it_and_costs_what_the_fake_bills(
        gemini: FakeLLMServer, tmp_path: Path) -> None:
    g = game(f"llm:google:gemini-2.5-flash,cache=explicit,base_url={gemini.url}",
             tmp_path / "g.jsonl")
    calls, model = g["calls"], gemini.responder
    assert isinstance(model, GeminiModel)
    assert all(not m["details"]["llm"].get("fallback") for m in g["moves"])
    assert [r["path"] for r in gemini.requests].count("/v1beta/cachedContents") == 1
    made = next(r["body"] for r in gemini.requests if r["path"].endswith("/cachedContents"))
    assert made["ttl"] == "3600s" and made["model"].endswith("gemini-2.5-flash")
    # every call names the cache and sends no rules text of its own (Google refuses both)
    assert all(field(b, "cachedContent") == "cachedContents/c1" for b in model.bodies)
    assert all(not field(b, "systemInstruction") for b in model.bodies)
    size = model.caches["cachedContents/c1"]["tokens"]
    assert calls[0]["cache_write_tokens"] == size and calls[0]["cached_tokens"] == 0
    assert all(c["cached_tokens"] == size and not c.get("cache_write_tokens")
               for c in calls[1:])
    ours, billed = sum(c["cost_usd"] for c in calls), sum(model.billed)
    assert abs(ours - billed) <= 0.02 * billed  # creation and the hour's storage included


def test_explicit_caching_with_tools_caches_the_tools_too(gemini: FakeLLMServer) -> None:
    view, legal = _position()
    agent = make_agent(f"llm:google:gemini-3-flash-preview,tools=on,cache=explicit,"
                       f"base_url={gemini.url}")
    d = agent.choose(view, legal, random.Random(0))
    assert not d.details["llm"].get("fallback") and d.move in legal
    model = gemini.responder
    assert isinstance(model, GeminiModel)
    cache = model.caches["cachedContents/c1"]
    assert "make_move" in [f["name"] for f in field(cache["tools"][0], "functionDeclarations")]
    assert all("tools" not in b and field(b, "cachedContent") for b in model.bodies)


def test_a_cache_is_made_anew_before_its_hour_ends_and_each_making_is_billed(
        gemini: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from duel.agents.llm.providers import google_genai

    now = [1000.0]
    monkeypatch.setattr(google_genai, "_clock", lambda: now[0])
    view, legal = _position()
    agent = make_agent(f"llm:google:gemini-2.5-flash,cache=explicit,base_url={gemini.url}")
    first = agent.choose(view, legal, random.Random(0)).details["llm"]["calls"][0]
    now[0] += google_genai.CACHE_TTL_S - 30  # within the last minute of its TTL
    second = agent.choose(view, legal, random.Random(0)).details["llm"]["calls"][0]
    assert [r["path"] for r in gemini.requests].count("/v1beta/cachedContents") == 2
    assert first["cache_write_tokens"] == second["cache_write_tokens"] > 1000
    assert field(gemini.requests[-1]["body"], "cachedContent") == "cachedContents/c2"


def test_a_cache_made_before_a_failed_call_is_recorded_by_the_next_reply(
        gemini: FakeLLMServer) -> None:
    view, legal = _position()
    agent = make_agent(f"llm:google:gemini-2.5-flash,cache=explicit,backoff=0,"
                       f"base_url={gemini.url}")
    real = gemini.responder
    failed: list[bool] = []

    class FailOnce:
        routes = GeminiModel.routes
        route = real.route  # type: ignore[union-attr]

        def __call__(self, body: dict[str, Any]) -> Scripted:
            if not failed:
                failed.append(True)
                return Scripted({"error": {"code": 503, "message": "overloaded",
                                           "status": "UNAVAILABLE"}}, 503)
            return real(body)  # type: ignore[misc]

    gemini.responder = FailOnce()
    calls = agent.choose(view, legal, random.Random(0)).details["llm"]["calls"]
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert calls[1]["cache_write_tokens"] > 1000  # the making is billed once, not lost


def test_a_text_too_small_to_cache_goes_uncached_and_says_so(
        gemini: FakeLLMServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import helpers.fake_gemini_server as fake

    monkeypatch.setattr(fake, "MIN_CACHE", 10**9)
    view, legal = _position()
    agent = make_agent(f"llm:google:gemini-2.5-flash,cache=explicit,base_url={gemini.url}")
    for _ in range(2):
        d = agent.choose(view, legal, random.Random(0))
        assert not d.details["llm"].get("fallback")
    assert capsys.readouterr().err.count("Google will not cache this text") == 1
    model = gemini.responder
    assert isinstance(model, GeminiModel)
    assert all(field(b, "systemInstruction") and not field(b, "cachedContent")
               for b in model.bodies)
    assert [r["path"] for r in gemini.requests].count("/v1beta/cachedContents") == 1


@pytest.mark.parametrize(("spec", "words"), [
    ("llm:google:gemini-2.5-flash,cache=always", "cache must be implicit .* or explicit"),
    ("llm:openai:gpt-5-mini,cache=explicit", "llm:openai takes no cache=; it applies to "
                                             "llm:google"),
])
def test_cache_options_are_checked_before_any_call(
        monkeypatch: pytest.MonkeyPatch, spec: str, words: str) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with pytest.raises(SpecError, match=words):
        make_agent(spec)
