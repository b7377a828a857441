"""The price table as published (issue 28, item 6): where and when each price was read, the cache
prices the issue found wrong, OpenRouter names, `duel prices`, and `--budget-usd` with a model
that has no price."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duel.accounting.prices import DEFAULT_PRICES, cost, known_prices
from duel.agents import make_agent
from duel.agents.llm import models
from duel.cli import main
from duel.errors import UsageError
from duel.runs.budget import Budget, unpriced_model


def test_every_priced_entry_says_where_and_when_it_was_read() -> None:
    for fam in models.FAMILIES:
        if fam.prices is None:
            assert not fam.price_checked
            continue
        # each provider's page is read on its own day (Gemini's later than the others')
        assert fam.price_source.startswith("https://") and fam.price_checked in (
            models.PRICES_READ, models.GEMINI_PRICES_READ)


def test_published_cache_read_prices_replace_the_input_over_ten_guess() -> None:
    assert DEFAULT_PRICES["claude-opus-5-5"]["cached_input"] == 0.20  # not 0.40
    assert DEFAULT_PRICES["claude-fable-5-1"]["cached_input"] == 0.25  # not 1.00
    # the guesses that remain are labelled as such
    notes = {r["model"]: r["note"] for r in known_prices()}
    assert notes["claude-sonnet-5-5"] == models.DERIVED_CACHE
    assert "derived" not in (notes["gpt-5"] or "")
    # OpenAI bills no cache writes: they cost the input price
    assert DEFAULT_PRICES["gpt-5"]["cache_write_input"] == DEFAULT_PRICES["gpt-5"]["input"]


@pytest.mark.parametrize("model, priced_as", [
    ("anthropic/claude-sonnet-4.6", "claude-sonnet-4-6"),
    ("openai/gpt-5-mini", "gpt-5-mini"),
    ("anthropic/claude-opus-4.7", None),  # no published price read: unknown
    ("claude-haiku-5-5", None),
])
def test_openrouter_names_take_their_makers_price(model: str, priced_as: str | None) -> None:
    got = cost(model, 2000, 100, 1000, cache_write_tokens=500)
    assert got == (None if priced_as is None
                   else cost(priced_as, 2000, 100, 1000, cache_write_tokens=500))


def test_duel_prices_lists_the_table_and_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    extra = tmp_path / "p.json"
    extra.write_text(json.dumps({"my-model": {"input": 1, "output": 2},
                                 "gpt-5": {"input": 9, "output": 9}}))
    monkeypatch.setenv("DUEL_PRICES", str(extra))
    assert main(["prices", "--json"]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["my-model"]["source"] == "DUEL_PRICES" and rows["my-model"]["cached_input"] == 1
    assert rows["gpt-5"]["note"] == "overrides the table" and rows["gpt-5"]["input"] == 9
    assert rows["claude-opus-4-7"]["input"] is None and "unknown" in rows["claude-opus-4-7"][
        "note"]
    assert rows["gpt-5-mini"]["checked"] == models.PRICES_READ
    assert main(["prices"]) == 0
    out = capsys.readouterr().out
    assert "| claude-opus-5-5 | $4 | $0.2 | $5 | $20 |" in out and "DUEL_PRICES=" in out


def test_a_budget_with_an_unpriced_model_says_in_one_line_how_to_price_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    opus = make_agent("llm:anthropic:claude-opus-4-7")
    assert unpriced_model(opus) == "claude-opus-4-7"
    # OpenRouter bills each call itself: a budget can be kept without a table price
    assert unpriced_model(make_agent("llm:openrouter:vendor/mystery-model")) is None
    with pytest.raises(UsageError) as found:
        Budget(1.0).check_agents([opus])
    message = str(found.value)
    assert "\n" not in message
    assert 'DUEL_PRICES=prices.json holding {"claude-opus-4-7": {"input": USD, "output": USD}}' \
        in message
