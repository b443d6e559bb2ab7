"""The Responses API's own features as commands (issue 27): /background, /cancel,
/tools (the hosted tools of this conversation), /cost, /verbosity and /tier. Each
holds for this run only, as /approval does; the settings make them last."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rivulet.app.commands.output import show_note
from rivulet.core.hosted_tools import name_of
from rivulet.core.sanitize import sanitize
from rivulet.core.turn.prices import PRICES_DATE
from rivulet.core.turn.turn_cost import describe

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext

Handler = Callable[..., Awaitable[None]]
VERBOSITY = ("low", "medium", "high")
TIERS = ("auto", "default", "flex", "priority", "scale")


def cost_lines(app: CommandContext) -> list[str]:
    """The last turn's and the session's tokens, dollars and speed (also in /status)."""
    conv = app.conversation
    if conv is None or conv.last_cost is None:
        return ["cost           nothing sent yet"]
    lines = [f"last turn      {describe(conv.last_cost)}"]
    total = conv.session_cost or {}
    lines.append(f"this run       {describe(total)} over {total.get('turns', 0)} turns")
    source = conv.last_cost.get("price_source")
    lines.append(f"prices         {source or 'unknown for this model (set prices in the config)'}"
                 + ("" if source != f"list prices of {PRICES_DATE}" else ": check them, they change"))
    return lines


async def show_cost(app: CommandContext, arg: str = "") -> None:
    await show_note(app, cost_lines(app), title="Cost")


async def toggle_background(app: CommandContext, arg: str = "") -> None:
    settings = app.running.settings
    want = {"on": True, "off": False}.get(arg.strip().lower(), not settings.background)
    if want and getattr(app.transport, "name", "") != "sse":
        app.notify("Background mode needs the HTTP (SSE) transport: start with --background or "
                   "transport = \"sse\"", severity="warning", markup=False)
        return
    settings.background = want
    app.notify("Background responses: " + ("on (resumed after a cut, left running at quit, Esc cancels)"
                                           if want else "off"), markup=False)


async def cancel(app: CommandContext, arg: str = "") -> None:
    """Stop the running turn (a background response is cancelled on the server)."""
    worker = app.turn_worker
    if worker is None or not worker.is_running or app.conversation is None:
        app.notify("No turn is running", markup=False)
        return
    app.conversation.cancel_requested = True
    worker.cancel()


async def toggle_tools(app: CommandContext, arg: str = "") -> None:
    """`/tools` lists the hosted tools; `/tools NAME` switches one on or off."""
    conv = app.conversation
    if conv is None:
        return
    names = [name_of(t) for t in conv.hosted_tools]
    if not names:
        await show_note(app, ["none configured: set hosted_tools (e.g. [\"web_search\", \"code_interpreter\"])"],
                        title="Hosted tools")
        return
    pick = arg.strip()
    if pick:
        if pick not in names:
            app.notify(f"/tools: {sanitize(pick)!r} is not one of {', '.join(map(sanitize, names))}",
                       severity="warning", markup=False)
            return
        if pick in conv.hosted_off:
            conv.hosted_off.discard(pick)
        else:
            conv.hosted_off.add(pick)
    await show_note(app, [f"{'off' if n in conv.hosted_off else 'on ':4} {n}" for n in names],
                    title="Hosted tools (/tools NAME switches one)")


async def set_verbosity(app: CommandContext, arg: str = "") -> None:
    await _choose(app, "verbosity", "Verbosity (text.verbosity)", VERBOSITY, arg)


async def set_tier(app: CommandContext, arg: str = "") -> None:
    await _choose(app, "service_tier", "Service tier", TIERS, arg)


async def _choose(app: CommandContext, field: str, title: str, options: tuple[str, ...], arg: str) -> None:
    value = arg.strip().lower()
    if value not in (*options, "default", "unset") or (value == "default" and field != "service_tier"):
        app.notify(f"{title}: one of {', '.join(options)}, or unset", severity="warning", markup=False)
        return
    setattr(app.running.settings, field, None if value == "unset" else value)
    app.notify(f"{title}: {value}, from the next request on", markup=False)


def responses_commands(app: CommandContext, slash: Callable[..., Any]) -> list[Any]:
    """The commands, made by the registry's own factory (`_slash`)."""
    return [
        slash(app, "Background responses", "Requests outlive a cut or a quit (/background on|off)", "background",
              toggle_background, "on|off"),
        slash(app, "Cancel the response", "Stop the turn; a background response is cancelled on the server",
              "cancel", cancel),
        slash(app, "Hosted tools", "The server's tools: list, or /tools NAME to switch one", "tools",
              toggle_tools, "NAME"),
        slash(app, "Cost", "Tokens, dollars and speed of the last turn and of this run", "cost", show_cost),
        slash(app, "Verbosity", "text.verbosity for the next requests: low, medium, high", "verbosity",
              set_verbosity, "LEVEL"),
        slash(app, "Service tier", "service_tier for the next requests: auto, default, flex, priority", "tier",
              set_tier, "TIER"),
    ]
