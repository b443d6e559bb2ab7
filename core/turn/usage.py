"""Token usage arithmetic: a turn's usage is the sum of its responses'."""

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
