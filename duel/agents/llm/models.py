"""What duel knows about model families: the parameters each takes, whether it reasons, its
limits and its list prices. One entry per family, matched by the longest name prefix (after an
OpenRouter ``vendor/`` part), so ``gpt-5-mini-2025-08-07`` is ``gpt-5-mini`` and an unlisted
``gpt-5.4`` still reasons like ``gpt-5``. A model no entry matches gets safe defaults (no
temperature, a generous output limit) and whatever the provider refuses is adapted at run time
(adapt.py).

Prices are US dollars per million tokens, the providers' public list prices as published on
their pricing pages, read on PRICES_READ. They belong to the entry's own name and its dated
snapshots only (``gpt-5`` prices ``gpt-5-2025-08-07``, never ``gpt-5.4``): a model without a
price of its own costs "unknown", never a neighbour's figure. DUEL_PRICES overrides them
(prices.py). Anthropic bills 5-minute cache writes at 1.25 times the input price.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PRICES_READ = "2026-11-25"
OPENAI_PRICING = "https://openai.com/api/pricing/"
ANTHROPIC_PRICING = "https://docs.claude.com/en/docs/about-claude/pricing"
GOOGLE_PRICING = "https://ai.google.dev/gemini-api/docs/pricing"
# Gemini's prices: the paid tier's, for prompts up to 200k tokens (a turn is ~12k), read on
# GEMINI_PRICES_READ from copies of Google's page (no direct read was possible here); Google
# bills implicit cache hits at a tenth of the input price and no cache writes; an explicit
# cache's storage at $1.00 (Flash, Flash-Lite) or $4.50 (Pro) a million tokens an hour.
GEMINI_PRICES_READ = "2026-12-02"
CACHE_HOURS = 1  # the TTL of an explicit Gemini cache duel makes (google_genai.CACHE_TTL_S)
GEMINI_NOTE = "<=200k-token prompts; read from copies of Google's page, not the page itself"
# Anthropic's documented cache multipliers for Claude 4: reads at 0.1x input, 5-minute writes at
# 1.25x. The 5th generation publishes its own cache-read prices, and they are not 0.1x
# everywhere (Opus 5.5 reads at $0.20, Fable 5.1 at $0.25): an entry whose cache prices were not
# read off the page says so in its note, and `duel prices` shows it.
DERIVED_CACHE = "cache prices derived (reads 0.1x, writes 1.25x input), not read off the page"

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
THINKING_MIN = 1024  # Anthropic's smallest thinking budget
# Anthropic's effort levels (`output_config.effort`); "high" is its documented default.
CLAUDE_EFFORTS = ("low", "medium", "high", "max")

# Output budgets (max_tokens) when the spec does not set one. An output limit is only a cap on
# spending (tokens are billed as generated), so a model that reasons starts at its documented
# limit: a reply cut off while reasoning is paid for and thrown away, a generous cap costs
# nothing. A model that does not reason keeps a short cap, against a runaway reply.
ANSWER_TOKENS = 1024      # a move's JSON and a few words, for models that do not reason
UNKNOWN_TOKENS = 8192     # a model the table does not know (no documented limit) may reason
# A reply cut off while the model was still reasoning is asked again with twice the budget,
# then four times, never more than TRUNCATION_GROWTH times the start nor the model's limit; the
# grown budget is where the model's later calls start (budgets.py).
TRUNCATION_GROWTH = 4
# For a model the table does not know, with no max_tokens in the spec, a reply cut off while
# reasoning grows its budget up to the largest output any current model of its provider takes
# (the table's largest: the provider registry's `max_output`), not a fixed multiple: a
# reasoning model newer than this table may need 40k tokens a move at a high effort. The
# provider's refusal of a larger request states the model's own limit, which is learned
# (adapt.py). Unknown servers (compat, local): 4x.


@dataclass(frozen=True)
class ModelFamily:
    prefix: str
    provider: str           # openai, anthropic, google or local: whose API the table describes
    reasons: bool           # always reasons before answering (reasoning tokens, no sampling)
    takes_temperature: bool
    token_param: str        # max_tokens or max_completion_tokens, on the provider's own API
    structured: str         # json_schema, tool or text: the best structured mode it has
    tools: bool
    context: int
    max_output: int
    thinking: bool = False  # Anthropic extended thinking on request (thinking=N)
    prices: dict[str, float] | None = None
    # Adaptive thinking only (Claude Opus 4.7 and later, the 5th generation): the model decides
    # how long to think and refuses a thinking budget (thinking=N is refused at the start;
    # reasoning_effort= sets the effort). The 5th generation also refuses a forced tool and any
    # non-default temperature (forced_tool False, reasons True).
    adaptive: bool = False
    forced_tool: bool = True
    # Anthropic: takes adaptive thinking ({"type": "adaptive"}; Claude 4.6 and later, the only
    # form from Opus 4.7 on), the `output_config.effort` values it takes (reasoning_effort=),
    # and whether it omits the thinking text unless asked for a summary (Opus 4.7 and later).
    adaptive_ok: bool = False
    efforts: tuple[str, ...] = ()
    omits_thinking: bool = False
    # The provider's documented reasoning when the spec sets none, as a result is labelled:
    # "reasoning_effort=medium", "thinking=off", "none" (it cannot reason); None: not known.
    default_reasoning: str | None = None
    # Where the prices come from: the page, the day they were read, and what was not read there
    price_source: str = ""
    price_checked: str = ""
    price_note: str = ""
    # Reads images (image=on): True or False as documented; None: not known (a compatible
    # server's model), so the first call says so if it cannot.
    vision: bool | None = None
    # The entry is its own name and its dated snapshots only (Claude's: the version follows
    # the name, `claude-opus-4-7` is not `claude-opus-4`), not every name it prefixes.
    exact_name: bool = False


def _openai(prefix: str, reasons: bool, context: int, max_output: int, inp: float, out: float,
            cached: float, default: str | None = None, vision: bool = True) -> ModelFamily:
    return ModelFamily(prefix, "openai", reasons, not reasons, "max_completion_tokens",
                       "json_schema", True, context, max_output,
                       prices={"input": inp, "output": out, "cached_input": cached,
                               "cache_write_input": inp},  # OpenAI bills no cache writes
                       default_reasoning=default if reasons else "none",
                       price_source=OPENAI_PRICING, price_checked=PRICES_READ, vision=vision)


def _claude(prefix: str, max_output: int, inp: float, out: float, context: int = 200_000,
            efforts: tuple[str, ...] = (), adaptive_ok: bool = False) -> ModelFamily:
    """Claude 4: thinking off unless asked for; a budget (thinking=N) on every one of them,
    adaptive thinking and effort on the later ones."""
    return ModelFamily(prefix, "anthropic", False, True, "max_tokens", "tool", True, context,
                       max_output, thinking=True, adaptive_ok=adaptive_ok, efforts=efforts,
                       default_reasoning="thinking=off",
                       prices={"input": inp, "output": out, "cached_input": round(inp / 10, 4),
                               "cache_write_input": round(inp * 1.25, 4)},
                       price_source=ANTHROPIC_PRICING, price_checked=PRICES_READ, vision=True,
                       exact_name=True)


def _claude_adaptive(prefix: str, max_output: int, context: int) -> ModelFamily:
    """Claude Opus 4.7 and later 4.x: adaptive thinking only (a budget is a 400), off unless
    asked for, its text omitted unless a summary is asked for."""
    return ModelFamily(prefix, "anthropic", False, True, "max_tokens", "tool", True, context,
                       max_output, thinking=True, adaptive=True, adaptive_ok=True,
                       efforts=CLAUDE_EFFORTS, omits_thinking=True,
                       default_reasoning="thinking=off", vision=True, exact_name=True)


def _claude5(prefix: str, inp: float | None, out: float | None,
             cache_read: float | None = None) -> ModelFamily:
    """Claude's 5th generation: 1M context, 128K output, adaptive thinking only and on by
    default at effort high, its text omitted unless a summary is asked for. `cache_read`: the
    published cache-read price, where it was read (else derived, and noted as such)."""
    prices = None if inp is None or out is None else {
        "input": inp, "output": out,
        "cached_input": cache_read if cache_read is not None else round(inp / 10, 4),
        "cache_write_input": round(inp * 1.25, 4)}
    note = "" if prices is None else DERIVED_CACHE if cache_read is None else \
        "cache writes derived (1.25x input), not read off the page"
    return ModelFamily(prefix, "anthropic", True, False, "max_tokens", "tool", True, 1_000_000,
                       128_000, thinking=True, adaptive=True, forced_tool=False,
                       adaptive_ok=True, efforts=CLAUDE_EFFORTS, omits_thinking=True,
                       default_reasoning="reasoning_effort=high", prices=prices,
                       price_source=ANTHROPIC_PRICING if prices else "",
                       price_checked=PRICES_READ if prices else "", price_note=note,
                       vision=True, exact_name=True)


def _gemini(prefix: str, inp: float, out: float, cached: float, storage: float,
            levels: tuple[str, ...] = (), default: str = "reasoning_effort=high") -> ModelFamily:
    """Gemini 2.5 and 3: 1M context, 64K output, thinking on by default (its summaries on
    request); Gemini 3 takes a thinking level (`levels`, reasoning_effort=), 2.5 a budget
    (thinking=N: `thinking` True). No temperature is sent (Google advises 1.0 for Gemini 3).
    `storage`: an explicit cache's storage, dollars a million tokens an hour."""
    return ModelFamily(prefix, "google", True, False, "max_output_tokens", "json_schema", True,
                       1_048_576, 65_536, thinking=not levels, efforts=levels,
                       default_reasoning=default,
                       # implicit caching writes nothing; a write is an explicit cache made
                       # (cache=explicit): its creation at the input price, as Google's answer
                       # on billing says, its one-hour TTL's storage, and the read by the call
                       # that made it (providers/google_genai.py)
                       prices={"input": inp, "output": out, "cached_input": cached,
                               "cache_write_input": round(inp + storage * CACHE_HOURS + cached,
                                                          6)},
                       price_source=GOOGLE_PRICING, price_checked=GEMINI_PRICES_READ,
                       price_note=GEMINI_NOTE, vision=True)


FAMILIES: tuple[ModelFamily, ...] = (
    _openai("gpt-5.5", True, 1_000_000, 128_000, 5.00, 30.00, 0.50),
    _openai("gpt-5.4", True, 400_000, 128_000, 2.50, 15.00, 0.25),
    _openai("gpt-5.4-mini", True, 400_000, 128_000, 0.75, 4.50, 0.075),
    _openai("gpt-5.2", True, 400_000, 128_000, 1.75, 14.00, 0.175, "reasoning_effort=none"),
    _openai("gpt-5", True, 400_000, 128_000, 1.25, 10.00, 0.125, "reasoning_effort=medium"),
    _openai("gpt-5-mini", True, 400_000, 128_000, 0.25, 2.00, 0.025, "reasoning_effort=medium"),
    _openai("gpt-5-nano", True, 400_000, 128_000, 0.05, 0.40, 0.005, "reasoning_effort=medium"),
    _openai("gpt-5.1", True, 400_000, 128_000, 1.25, 10.00, 0.125, "reasoning_effort=none"),
    _openai("o3", True, 200_000, 100_000, 2.00, 8.00, 0.50, "reasoning_effort=medium"),
    _openai("o3-mini", True, 200_000, 100_000, 1.10, 4.40, 0.55, "reasoning_effort=medium",
            vision=False),
    _openai("o4-mini", True, 200_000, 100_000, 1.10, 4.40, 0.275, "reasoning_effort=medium"),
    _openai("gpt-4.1", False, 1_047_576, 32_768, 2.00, 8.00, 0.50),
    _openai("gpt-4.1-mini", False, 1_047_576, 32_768, 0.40, 1.60, 0.10),
    _openai("gpt-4.1-nano", False, 1_047_576, 32_768, 0.10, 0.40, 0.025),
    _openai("gpt-4o", False, 128_000, 16_384, 2.50, 10.00, 1.25),
    _openai("gpt-4o-mini", False, 128_000, 16_384, 0.15, 0.60, 0.075),
    _claude5("claude-sonnet-5-5", 2.00, 10.00),
    _claude5("claude-sonnet-5", 2.00, 10.00),
    _claude5("claude-opus-5-5", 4.00, 20.00, cache_read=0.20),
    _claude5("claude-opus-5", 5.00, 25.00),
    _claude5("claude-fable-5-1", 10.00, 50.00, cache_read=0.25),
    _claude5("claude-fable-5-2", 8.00, 40.00),
    _claude5("claude-haiku-5-5", None, None),  # no published price read: unknown
    _claude_adaptive("claude-opus-4-8", 128_000, 1_000_000),  # no published price read
    _claude_adaptive("claude-opus-4-7", 128_000, 1_000_000),  # no published price read
    _claude("claude-opus-4-6", 128_000, 5.00, 25.00, efforts=CLAUDE_EFFORTS, adaptive_ok=True),
    _claude("claude-sonnet-4-6", 64_000, 3.00, 15.00, efforts=CLAUDE_EFFORTS[:3],
            adaptive_ok=True),
    _claude("claude-opus-4-5", 64_000, 5.00, 25.00, efforts=CLAUDE_EFFORTS[:3]),
    _claude("claude-sonnet-4-5", 64_000, 3.00, 15.00),
    _claude("claude-haiku-4-5", 64_000, 1.00, 5.00),
    _claude("claude-opus-4-1", 32_000, 15.00, 75.00),
    _claude("claude-opus-4", 32_000, 15.00, 75.00),
    _claude("claude-sonnet-4", 64_000, 3.00, 15.00),
    _gemini("gemini-3.1-pro-preview", 2.00, 12.00, 0.20, 4.50, ("low", "high")),
    _gemini("gemini-3-flash-preview", 0.50, 3.00, 0.05, 1.00, ("minimal", "low", "medium", "high")),
    _gemini("gemini-2.5-pro", 1.25, 10.00, 0.125, 4.50, default="thinking=dynamic"),
    _gemini("gemini-2.5-flash", 0.30, 2.50, 0.03, 1.00, default="thinking=dynamic"),
    _gemini("gemini-2.5-flash-lite", 0.10, 0.40, 0.01, 1.00, default="thinking=off"),
)

# The shipped local model (llama.cpp on loopback, its context as duel starts it): free.
LOCAL = ModelFamily("local", "local", False, True, "max_tokens", "tool", True, 16_384, 16_384,
                    prices={"input": 0.0, "output": 0.0, "cached_input": 0.0},
                    default_reasoning="none", price_note="the shipped model on this machine",
                    vision=False)

_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")


def table_name(model: str) -> str:
    """The name the table knows `model` by: without OpenRouter's ``vendor/`` part, and with
    OpenRouter's dotted Claude versions as Anthropic spells them (``claude-sonnet-4.6`` is
    ``claude-sonnet-4-6``)."""
    name = model.rpartition("/")[2]
    return name.replace(".", "-") if name.startswith("claude-") else name


def undated(model: str) -> str:
    """The model's name without a dated snapshot suffix (``-2025-08-07``, ``-20250929``)."""
    return _SNAPSHOT.sub("", model)


def family(model: str) -> ModelFamily | None:
    """The family of `model` (longest prefix wins), or None if the table does not know it. A
    Claude entry is its own name and its dated snapshots only (`exact_name`): the version
    follows the name (``claude-opus-4-7`` is not ``claude-opus-4``, and takes another thinking
    request). The shipped local model is `LOCAL`, which its provider names itself."""
    name = table_name(model)
    best: ModelFamily | None = None
    for fam in FAMILIES:
        if not name.startswith(fam.prefix):
            continue
        if fam.exact_name and undated(name) != fam.prefix:
            continue
        if best is None or len(fam.prefix) > len(best.prefix):
            best = fam
    return best


def default_max_tokens(fam: ModelFamily | None, thinking: int | None,
                       reasons: bool = False) -> int:
    """The output budget when the spec sets none: the model's documented output limit when it
    reasons (always, or as the spec asks: `thinking`, `reasons`), a short answer otherwise;
    for a model the table does not know, UNKNOWN_TOKENS (room for the thinking budget and an
    answer if one is set)."""
    if fam is None:
        return max(UNKNOWN_TOKENS, thinking + ANSWER_TOKENS) if thinking else UNKNOWN_TOKENS
    if fam.reasons or thinking or reasons:
        return fam.max_output
    return min(ANSWER_TOKENS, fam.max_output)


def listed_prices() -> dict[str, dict[str, float]]:
    """Each priced family's prices under its own name: the default price table."""
    entries = (*FAMILIES, LOCAL)
    return {f.prefix: dict(f.prices) for f in entries if f.prices is not None}
