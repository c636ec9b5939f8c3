"""What a turn costs: USD per million tokens, by model, and the sum for one turn's usage.

Prices are a small table of list prices (input, output, cache read, cache
write per MTok), matched by model-name prefix; a backend's configured
``price`` overrides it, and unknown models (a local server) cost nothing.
Budgets and limits are enforced by the session, outside the model.
"""

from __future__ import annotations

from collections.abc import Sequence

from bandstand.agents.base import Usage

# model-name prefix → (input, output, cache read, cache write) USD per million tokens
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4": (15.0, 75.0, 1.5, 18.75),
    "claude-sonnet-4": (3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4": (1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": (0.8, 4.0, 0.08, 1.0),
    "gpt-4o-mini": (0.15, 0.6, 0.075, 0.15),
    "gpt-4o": (2.5, 10.0, 1.25, 2.5),
}


def price_for(
    model: str, override: Sequence[float] | None = None
) -> tuple[float, float, float, float]:
    """The price row for `model` (longest matching prefix), `override` if given, else zeros."""
    if override:
        row = [*map(float, override), 0.0, 0.0, 0.0][:4]
        return row[0], row[1], row[2], row[3]
    for prefix in sorted(PRICES, key=len, reverse=True):
        if model.startswith(prefix):
            return PRICES[prefix]
    return 0.0, 0.0, 0.0, 0.0


def cost_of(usage: Usage, price: tuple[float, float, float, float]) -> float:
    """USD for `usage` at `price`."""
    p_in, p_out, p_read, p_write = price
    return (
        usage.input_tokens * p_in
        + usage.output_tokens * p_out
        + usage.cache_read_tokens * p_read
        + usage.cache_write_tokens * p_write
    ) / 1_000_000
