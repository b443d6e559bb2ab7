"""`/mcp`: the MCP servers, their state (starting, ready, failed, disabled), their tools,
and a failed server's error and stderr tail.

It reads the state through a callable and redraws twice a second, so a server that is
still starting turns ready or failed while the view is open. Every name, error and
stderr line is server text: sanitised, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from rivulet.core.command_name import command_name
from rivulet.core.sanitize import sanitize

Status = Callable[[], list[dict[str, Any]]]
MARKS = {"ready": ("●", "green"), "starting": ("◌", "yellow"), "failed": ("✗", "red"), "disabled": ("○", "dim"),
         "stopped": ("○", "dim")}
STDERR_LINES = 12  # of a failed server's stderr tail


def _s(text: Any) -> str:
    return sanitize(str(text))


def render_status(servers: list[dict[str, Any]]) -> Text:
    """Every server as a few lines of plain (never markup) text."""
    out = Text()
    if not servers:
        out.append("No MCP servers are configured. Add one with:\n", style="italic")
        command = command_name()
        out.append(f"  {command} mcp add NAME -- COMMAND [ARGS...]\n  {command} mcp add NAME --url URL\n")
        return out
    for n, server in enumerate(servers):
        if n:
            out.append("\n")
        state = str(server.get("state") or "?")
        mark, colour = MARKS.get(state, ("?", ""))
        out.append(f"{mark} ", style=colour)
        out.append(_s(server.get("name")), style="bold")
        out.append(f"  {_s(server.get('transport') or '')} · ")
        out.append(state, style=f"bold {colour}")
        if server.get("where"):
            out.append(f" · {_s(server['where'])}", style="dim")
        out.append("\n")
        if server.get("error"):
            out.append(f"  {_s(server['error'])}\n", style="red")
        tools = [_s(t) for t in server.get("tools") or []]
        if tools:
            out.append(f"  {len(tools)} tool{'s' if len(tools) != 1 else ''}: ", style="dim")
            out.append(", ".join(tools) + "\n")
        elif state == "ready":
            out.append("  no tools offered\n", style="dim italic")
        tail = _s(server.get("stderr") or "").strip()
        if state == "failed" and tail:
            out.append("  stderr (last lines):\n", style="dim")
            for line in tail.splitlines()[-STDERR_LINES:]:
                out.append(f"    {line}\n")
    return out


class McpScreen(ModalScreen[None]):
    """The MCP servers, live."""

    DEFAULT_CSS = """
    McpScreen { align: center middle; background: $background 60%; }
    #mcp { width: 90%; height: auto; max-height: 90%; padding: 1 2; border: thick $primary; background: $surface; }
    #mcp-body { height: auto; max-height: 1fr; background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close", id="mcp.close")]

    def __init__(self, status: Status) -> None:
        super().__init__()
        self.status = status

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp"):
            yield Static(Text("MCP servers  (esc to close)", style="bold"), id="mcp-title")
            with VerticalScroll(id="mcp-body"):
                yield Static(render_status(self.status()), id="mcp-servers")

    def on_mount(self) -> None:
        self.set_interval(0.5, self.redraw)

    def redraw(self) -> None:
        self.query_one("#mcp-servers", Static).update(render_status(self.status()))
