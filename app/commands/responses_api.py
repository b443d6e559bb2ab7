"""The Responses API's own features as commands (issue 27): /background, /cancel,
/tools (the hosted tools of this conversation), /cost, /verbosity and /tier. Each
holds for this run only, as /approval does; the settings make them last."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from rivulet.app.commands.results import Lines, Result, Say
from rivulet.app.commands.services import HasEngine, HasTurns
from rivulet.core.hosted_tools import DEFAULTS, NEEDS, name_of, normalise
from rivulet.core.turn.prices import PRICES_DATE
from rivulet.core.turn.turn_cost import describe

if TYPE_CHECKING:
    from rivulet.core.engine import Engine

VERBOSITY = ("low", "medium", "high")
TIERS = ("auto", "default", "flex", "priority", "scale")


class ResponsesNeeds(HasEngine, HasTurns, Protocol):
    pass


def cost_lines(engine: Engine) -> list[str]:
    """The last turn's and the session's tokens, dollars and speed (also in /status)."""
    conv = engine.conversation
    if conv.last_cost is None:
        return ["cost           nothing sent yet"]
    lines = [f"last turn      {describe(conv.last_cost)}"]
    lines += subagent_lines(conv.last_cost)
    total = conv.session_cost or {}
    lines.append(f"this run       {describe(total)} over {total.get('turns', 0)} turns")
    lines += subagent_lines(total)
    source = conv.last_cost.get("price_source")
    lines.append(f"prices         {source or 'unknown for this model (set prices in the config)'}"
                 + ("" if source != f"list prices of {PRICES_DATE}" else ": check them, they change"))
    return lines


def subagent_lines(cost: Mapping[str, Any]) -> list[str]:
    """What the subagents (issue 41) took of a cost record's totals, on a line apart: none
    when no subagent ran."""
    part = cost.get("subagents")
    if not isinstance(part, Mapping) or not part.get("count"):
        return []
    count = int(part["count"])
    words = [f"{count} subagent{'s' if count != 1 else ''}", f"{int(part.get('input_tokens') or 0):,} in",
             f"{int(part.get('output_tokens') or 0):,} out"]
    dollars = part.get("dollars")
    words.append(f"${float(dollars):.4f}" if isinstance(dollars, (int, float)) else "no price")
    return ["  of it        " + " · ".join(words)]


async def show_cost(s: HasEngine, arg: str = "") -> Result:
    return Lines(cost_lines(s.engine), title="Cost")


async def toggle_background(s: HasEngine, arg: str = "") -> Result:
    settings = s.engine.settings
    want = {"on": True, "off": False}.get(arg.strip().lower(), not settings.background)
    if want and s.engine.transport.name != "sse":
        return Say("Background mode needs the HTTP (SSE) transport: start with --background or "
                   "transport = \"sse\"", "warning")
    settings.background = want
    return Say("Background responses: " + ("on (resumed after a cut, left running at quit, Esc cancels)"
                                           if want else "off"))


async def cancel(s: ResponsesNeeds, arg: str = "") -> Result:
    """Stop the running turn (a background response is cancelled on the server)."""
    if not s.turns.cancel():
        return Say("No turn is running")
    return None


async def toggle_tools(s: HasEngine, arg: str = "") -> Result:
    """`/tools` lists the hosted tools; `/tools NAME` switches one on or off. A tool the
    config does not name is added, when its name alone is enough (web_search,
    code_interpreter, image_generation); file_search and mcp need their options there."""
    conv = s.engine.conversation
    configured = [name_of(t) for t in conv.hosted_tools]
    addable = [n for n, default in DEFAULTS.items() if default is not None and n not in configured]
    pick = arg.strip()
    if pick in addable:
        conv.hosted_tools.extend(normalise([pick]))
        conv.hosted_off.discard(pick)
    elif pick in configured:
        if pick in conv.hosted_off:
            conv.hosted_off.discard(pick)
        else:
            conv.hosted_off.add(pick)
    elif pick:
        try:
            normalise([pick])
        except ValueError as exc:  # the options it needs, or the names known
            return Say(f"/tools: {exc}", "warning")
    names = [name_of(t) for t in conv.hosted_tools]
    shown = [f"{'off' if n in conv.hosted_off else 'on ':4} {n}" for n in names]
    shown += [f"off  {n}" for n in DEFAULTS if DEFAULTS[n] is not None and n not in names]
    needs = [n for n in NEEDS if not any(t.get("type") == n for t in conv.hosted_tools)]
    if needs:  # they cannot be switched on by name: their options go in the config
        shown.append(f"({' and '.join(needs)} need their options in the hosted_tools setting)")
    return Lines(shown, title="Hosted tools (/tools NAME switches one)")


async def set_verbosity(s: HasEngine, arg: str = "") -> Result:
    return _choose(s, "verbosity", "Verbosity (text.verbosity)", VERBOSITY, arg)


async def set_tier(s: HasEngine, arg: str = "") -> Result:
    return _choose(s, "service_tier", "Service tier", TIERS, arg)


def _choose(s: HasEngine, field: str, title: str, options: tuple[str, ...], arg: str) -> Result:
    value = arg.strip().lower()
    if value not in (*options, "default", "unset") or (value == "default" and field != "service_tier"):
        return Say(f"{title}: one of {', '.join(options)}, or unset", "warning")
    setattr(s.engine.settings, field, None if value == "unset" else value)
    return Say(f"{title}: {value}, from the next request on")
