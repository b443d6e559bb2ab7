"""What one turn used, cost and how fast it came: tokens split into input, cached,
output and reasoning; dollars from the price table; time to first token and output
tokens per second (and llama.cpp's own `timings`, where it sends them).

Shown in the turn's status note, /status and /cost, and sent in `exec --json`'s
`turn.completed` (as `cost`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from rivulet.core.turn.prices import price_for


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def split_usage(usage: Mapping[str, Any] | None) -> dict[str, int]:
    """input, cached, output and reasoning tokens of a usage object (0 where not sent)."""
    usage = usage or {}
    in_details = usage.get("input_tokens_details")
    out_details = usage.get("output_tokens_details")
    return {
        "input": _int(usage.get("input_tokens")),
        "cached": _int(in_details.get("cached_tokens")) if isinstance(in_details, Mapping) else 0,
        "output": _int(usage.get("output_tokens")),
        "reasoning": _int(out_details.get("reasoning_tokens")) if isinstance(out_details, Mapping) else 0,
    }


class TurnClock(msgspec.Struct, dict=True):
    """The turn's timing, fed by the turn loop: each response's start, its first delta
    and its end (monotonic seconds)."""

    started: float
    first_token: float | None = None
    streaming: float = 0.0  # seconds from each response's first delta to its end, summed
    llama: dict[str, float] = msgspec.field(default_factory=dict)  # llama.cpp's timings of the last response

    def response(self, first_delta: float | None, ended: float, timings: Mapping[str, Any] | None) -> None:
        if first_delta is not None:
            if self.first_token is None:
                self.first_token = first_delta
            self.streaming += max(0.0, ended - first_delta)
        if isinstance(timings, Mapping):
            self.llama = {k: float(v) for k, v in timings.items()
                          if k in ("predicted_per_second", "prompt_per_second") and isinstance(v, (int, float))}


def turn_cost(usage: Mapping[str, Any] | None, model: str, clock: TurnClock | None = None,
              prices: Mapping[str, Mapping[str, float]] | None = None, shipped: bool = True) -> dict[str, Any]:
    """The turn's `cost` record: tokens, dollars (None for a model without a price; with
    `shipped` False, a local server's, only the `prices` setting prices it) and speed
    (None where unmeasured)."""
    tokens = split_usage(usage)
    price = price_for(model, prices, shipped)
    dollars = price.dollars(tokens["input"], tokens["cached"], tokens["output"]) if price else None
    out: dict[str, Any] = {**tokens, "dollars": dollars, "price_source": price.source if price else None,
                           "ttft_s": None, "tokens_per_s": None}
    if clock is not None:
        if clock.first_token is not None:
            out["ttft_s"] = round(clock.first_token - clock.started, 3)
        if clock.streaming > 0 and tokens["output"]:
            out["tokens_per_s"] = round(tokens["output"] / clock.streaming, 1)
        if "predicted_per_second" in clock.llama:  # the server's own measure beats ours
            out["tokens_per_s"] = round(clock.llama["predicted_per_second"], 1)
        if "prompt_per_second" in clock.llama:
            out["prompt_tokens_per_s"] = round(clock.llama["prompt_per_second"], 1)
    return out


def add_cost(total: dict[str, Any] | None, turn: Mapping[str, Any]) -> dict[str, Any]:
    """The session's running sum of tokens and dollars. Dollars stay None until a turn
    has a price (no figure is made up for an unpriced model); `unpriced` counts the
    turns the dollars leave out."""
    out = dict(total or {"input": 0, "cached": 0, "output": 0, "reasoning": 0, "dollars": None, "unpriced": 0,
                         "turns": 0})
    for key in ("input", "cached", "output", "reasoning"):
        out[key] += int(turn.get(key) or 0)
    if turn.get("dollars") is None:
        out["unpriced"] += 1
    else:
        out["dollars"] = (out["dollars"] or 0.0) + float(turn["dollars"])
    out["turns"] += 1
    part = turn.get("subagents")
    if isinstance(part, Mapping) and part.get("count"):  # their share, summed apart too (/cost, issue 41)
        out["subagents"] = add_subagents(out.get("subagents"), part)
    return out


def add_subagents(total: Mapping[str, Any] | None, turn: Mapping[str, Any]) -> dict[str, Any]:
    """The run's sum of the turns' `subagents` parts (dollars None once one had no price)."""
    keys = ("input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens", "count")
    out: dict[str, Any] = dict(total or {**dict.fromkeys(keys, 0), "dollars": 0.0})
    for key in keys:
        out[key] = int(out.get(key) or 0) + int(turn.get(key) or 0)
    dollars = turn.get("dollars")
    out["dollars"] = None if out.get("dollars") is None or dollars is None else out["dollars"] + float(dollars)
    return out


def cost_pieces(cost: Mapping[str, Any]) -> list[tuple[str, str]]:
    """`describe`'s pieces, each with what it says ("tokens", "dollars", "first_token",
    "speed"): the status line gives each its own priority."""
    cached = f" ({cost['cached']:,} cached)" if cost.get("cached") else ""
    reasoning = f" ({cost['reasoning']:,} reasoning)" if cost.get("reasoning") else ""
    pieces = [("tokens", f"{cost.get('input', 0):,} in{cached} · {cost.get('output', 0):,} out{reasoning}")]
    if cost.get("dollars") is not None:  # None: no price known, so no dollars shown
        unpriced = int(cost.get("unpriced") or 0)
        left_out = f" ({unpriced} turn{'s' if unpriced > 1 else ''} without a price)" if unpriced else ""
        pieces.append(("dollars", f"${cost['dollars']:.4f}{left_out}"))
    if cost.get("ttft_s") is not None:
        pieces.append(("first_token", f"{cost['ttft_s']:.1f}s to first token"))
    if cost.get("tokens_per_s") is not None:
        pieces.append(("speed", f"{cost['tokens_per_s']:g} tok/s"))
    return pieces


def describe(cost: Mapping[str, Any]) -> str:
    """One line: `1,204 in (800 cached) · 312 out (120 reasoning) · $0.0031 · 0.8s to first token · 45 tok/s`."""
    return " · ".join(text for _, text in cost_pieces(cost))
