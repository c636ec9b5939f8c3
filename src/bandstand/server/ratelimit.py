"""A token bucket: at most `rate` events per second on average, `burst` at once.
The jam WebSocket gives one to each client."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(slots=True)
class TokenBucket:
    rate: float
    burst: int
    tokens: float = field(init=False)
    stamp: float = field(init=False, default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    def take(self, now: float | None = None) -> bool:
        """True if one more event may pass now (and count it)."""
        now = time.monotonic() if now is None else now
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
