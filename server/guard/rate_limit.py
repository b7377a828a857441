"""Token buckets per client: the server's request rate limit and its game creation limit."""

from __future__ import annotations

import time

MAX_BUCKETS = 10_000


class RateLimiter:
    """A token bucket per client (a seat's token, else an address): `rate` requests a second,
    bursts of `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str) -> bool:
        return self.delay(key) == 0.0

    def delay(self, key: str) -> float:
        """Take one token from `key`'s bucket: 0 if there was one, else the seconds until
        there is (nothing is taken)."""
        now = time.monotonic()
        if key not in self.buckets and len(self.buckets) >= MAX_BUCKETS:
            self._prune(now)
        tokens, last = self.buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self.buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self.buckets[key] = (tokens - 1.0, now)
        return 0.0

    def _prune(self, now: float) -> None:
        """Forget the buckets that have refilled (they are as good as new), so the table stays
        small; if every bucket is busy, forget the oldest half."""
        full = [k for k, (tokens, last) in self.buckets.items()
                if tokens + (now - last) * self.rate >= self.burst]
        for k in full:
            del self.buckets[k]
        if len(self.buckets) >= MAX_BUCKETS:
            oldest = sorted(self.buckets, key=lambda k: self.buckets[k][1])
            for k in oldest[:len(oldest) // 2]:
                del self.buckets[k]
