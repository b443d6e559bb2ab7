"""Token usage arithmetic: a turn's usage is the sum of its responses'; what the context
holds after a response, and how much of the window is left (the status line shows it)."""

from __future__ import annotations

from typing import Any


def add_usage(total: dict[str, Any] | None, usage: dict[str, Any] | None) -> dict[str, Any] | None:
    """Sum two usage objects field by field (nested details included)."""
    if not usage:
        return total
    if not total:
        return dict(usage)
    out = dict(total)
    for key, value in usage.items():
        if isinstance(value, bool):
            out[key] = value
        elif isinstance(value, (int, float)):
            out[key] = (out.get(key) or 0) + value
        elif isinstance(value, dict):
            out[key] = add_usage(out.get(key) if isinstance(out.get(key), dict) else None, value)
        else:
            out[key] = value
    return out


def tokens_in_context(usage: dict[str, Any] | None) -> int | None:
    """How many tokens the conversation holds after a response, from that response's
    own `usage` (not a turn's sum): its input plus its output, which the next
    request sends back."""
    if not isinstance(usage, dict):
        return None
    total = usage.get("total_tokens")
    if isinstance(total, int) and not isinstance(total, bool):
        return total
    parts = [usage.get("input_tokens"), usage.get("output_tokens")]
    if not any(isinstance(p, int) and not isinstance(p, bool) for p in parts):
        return None
    return sum(p for p in parts if isinstance(p, int) and not isinstance(p, bool))


def context_left(usage: dict[str, Any] | None, window: int | None) -> int | None:
    """Percent of the context window left (0-100, rounded down), or None if unknown."""
    used = tokens_in_context(usage)
    if used is None or not window or window <= 0:
        return None
    left = (window - used) * 100 // window
    return max(0, min(100, left))
