"""What LLM games will cost before they are played: the one model behind `duel llm check`'s
projection of a game and the `--dry-run` of `duel tournament` and `duel grade`.

One seat's game is DECISIONS_PER_SEAT decisions (DECISIONS_RANGE: the range), one call each when
the first reply is legal (re-asks cost more). A call is cold or warm: a cold call finds the rules
text (the system prompt, the same on every call) not yet in the provider's cache and writes it
there (billed at the cache-write price where the provider bills writes: Anthropic; OpenAI bills
none, its table entry prices a write as input); a warm call reads it from the cache (the
cache-read price). Everything is priced with the price table (prices.cost); a model without a
price has an unknown cost (None), never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from duel.accounting.prices import cost

# Decisions of one seat in a whole game: the mean per seat over 20 seeded games (seeds 0-19) was
# 35.8 for rule against rule and 35.6 for random against random (28 to 40); the draft's picks
# are calls too.
DECISIONS_PER_SEAT = 35
DECISIONS_RANGE = (28, 40)
CHARS_PER_TOKEN = 4  # the local estimate of a text's tokens (English and JSON)


def estimate_tokens(text: str) -> int:
    """A text's tokens by the local estimate (a quarter of its characters)."""
    return len(text) // CHARS_PER_TOKEN


@dataclass(frozen=True)
class Call:
    """One call's size: its input tokens (the rules text among them: the cacheable prefix) and
    its output tokens."""

    input_tokens: int
    output_tokens: int
    rules_tokens: int

    def usd(self, model: str, prices: dict[str, dict[str, float]] | None = None,
            warm: bool = True) -> float | None:
        """Its cost: the rules text read from the provider's cache (`warm`) or written to it."""
        prefix = min(self.input_tokens, self.rules_tokens)
        return cost(model, self.input_tokens, self.output_tokens, prefix if warm else 0, prices,
                    0 if warm else prefix)

    def cached_share(self) -> float:
        """The share of a warm call's input read from the cache."""
        return min(self.input_tokens, self.rules_tokens) / self.input_tokens \
            if self.input_tokens else 0.0


@dataclass(frozen=True)
class Spend:
    """Projected dollars, and the range for DECISIONS_RANGE decisions per seat and game."""

    usd: float
    low_usd: float
    high_usd: float


def spend(cold_usd: float, warm_usd: float, seat_games: int = 1, cold_calls: int = 1,
          decisions: tuple[int, int, int] = (DECISIONS_PER_SEAT, *DECISIONS_RANGE)) -> Spend:
    """`seat_games` seats' games (one seat's game each), `cold_calls` of their calls cold and
    every other one warm, at `decisions` per seat's game: DECISIONS_PER_SEAT (the range at
    DECISIONS_RANGE), one for an answer to a position."""
    def at(n: int) -> float:
        calls = seat_games * n
        cold = min(cold_calls, calls)
        return round(cold * cold_usd + (calls - cold) * warm_usd, 6)

    return Spend(*(at(n) for n in decisions))
