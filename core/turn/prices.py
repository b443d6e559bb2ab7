"""What tokens cost: a shipped table of list prices per model, which the `prices`
setting extends or overrides, in dollars per million tokens.

The shipped prices are OpenAI's published standard-tier list prices as of PRICES_DATE;
they change, so /cost says which date they are from and the setting wins. A model is
found by its longest matching prefix ("gpt-5-mini-2025-08-07" is "gpt-5-mini"). Reasoning
tokens are billed as output tokens and are already counted in `output_tokens`.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

PRICES_DATE = "2025-11-20"

# model prefix: (input, cached input, output) in dollars per million tokens.
SHIPPED: dict[str, tuple[float, float, float]] = {
    "gpt-5.1-codex-mini": (0.25, 0.025, 2.00),
    "gpt-5.1-codex": (1.25, 0.125, 10.00),
    "gpt-5.1": (1.25, 0.125, 10.00),
    "gpt-5-codex": (1.25, 0.125, 10.00),
    "gpt-5-mini": (0.25, 0.025, 2.00),
    "gpt-5-nano": (0.05, 0.005, 0.40),
    "gpt-5-pro": (15.00, 15.00, 120.00),
    "gpt-5": (1.25, 0.125, 10.00),
    "gpt-4.1-mini": (0.40, 0.10, 1.60),
    "gpt-4.1-nano": (0.10, 0.025, 0.40),
    "gpt-4.1": (2.00, 0.50, 8.00),
    "gpt-4o-mini": (0.15, 0.075, 0.60),
    "gpt-4o": (2.50, 1.25, 10.00),
    "o4-mini": (1.10, 0.275, 4.40),
    "o3-pro": (20.00, 20.00, 80.00),
    "o3": (2.00, 0.50, 8.00),
}


class Price(msgspec.Struct, frozen=True):
    """Dollars per million tokens; `source` says where the numbers came from."""

    input: float
    cached: float
    output: float
    source: str

    def dollars(self, input_tokens: int, cached_tokens: int, output_tokens: int) -> float:
        cached = min(cached_tokens, input_tokens)  # cached tokens are part of the input, billed lower
        return ((input_tokens - cached) * self.input + cached * self.cached + output_tokens * self.output) / 1e6


def price_for(model: str, table: Mapping[str, Mapping[str, float]] | None = None,
              shipped: bool = True) -> Price | None:
    """The price of `model`: the setting's table first, then the shipped one (not for a
    local server, `shipped` False: its "gpt-oss-20b" or "gpt-4o-mini" costs nothing at
    OpenAI's prices); None when neither knows it (no dollars shown)."""
    name = model.lower()
    for prefix in sorted(table or {}, key=len, reverse=True):
        if name.startswith(prefix.lower()):
            row = (table or {})[prefix]
            given = float(row.get("input", 0.0))
            return Price(given, float(row.get("cached", given)), float(row.get("output", 0.0)), "prices setting")
    for prefix in sorted(SHIPPED, key=len, reverse=True) if shipped else ():
        if name.startswith(prefix):
            return Price(*SHIPPED[prefix], f"list prices of {PRICES_DATE}")
    return None
