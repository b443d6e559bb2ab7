"""Modal screens: the approval question for a tool call, and the turn's diff.

The approval question shows exactly what will happen: the whole command (every line,
numbered and scrollable) with control, invisible and bidi characters made visible and
a warning when there are any, its directory and time limit; for a patch, every file and
the full diff; for an MCP tool, its server, its name and its arguments as indented JSON.
The buttons stay on screen at 80x24: the question scrolls, they do not.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rivulet.core.sanitize import sanitize, short_row
from rivulet.core.tools.approval import ApprovalRequest
from rivulet.core.tools.approval_text import number_lines, question

from .approval_gate import GatedQuestion
from .safe import safe_text


def diff_text(diff: str, limit: int | None = 200_000) -> Text:
    """A unified diff, coloured line by line (sanitised: it holds model-written text)."""
    out = Text()
    shown = diff if limit is None else diff[:limit]
    for line in sanitize(shown).splitlines():
        style = ("bold" if line.startswith(("+++", "---", "@@")) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "")
        out.append(line + "\n", style=style)
    if limit is not None and len(diff) > limit:
        out.append(f"… ({len(diff) - limit} more characters)\n", style="italic")
    return out


def numbered(text: str) -> Text:
    """Every line of a command, numbered (a line far below the first is still seen)."""
    rows = number_lines(text)
    out = Text()
    for i, (n, line) in enumerate(rows, 1):
        out.append(f"{n} │ ", style="dim")
        out.append(line + ("\n" if i < len(rows) else ""), style="bold")
    return out


def subagent_label(name: str) -> Text:
    """Who asks: "agent 'tests' asks:" (the name is the model's: sanitised, one line, cut)."""
    return Text.assemble(("agent ", "bold"), (f"'{short_row(name, 60)}'", "bold reverse"), (" asks:", "bold"))


class ApprovalScreen(GatedQuestion):
    """Ask whether a command may run or a patch may be applied.

    Someone typing in the composer when the question pops up would answer it with their
    next "y" or "a": a key answers only after a pause in typing, and "always" is picked
    and then confirmed (approval_gate.py)."""

    BINDINGS = [
        Binding("y", "decide('yes')", "Yes", id="approval.yes"),
        Binding("a", "decide('always')", "Yes, for this session", id="approval.always"),
        Binding("n", "decide('no')", "No, continue", id="approval.no"),
        Binding("s", "decide('stop')", "No, stop the turn", id="approval.stop"),
    ]

    def __init__(self, request: ApprovalRequest, clock: Callable[[], float] = time.monotonic,
                 subagent: str | None = None) -> None:
        super().__init__(clock)
        self.request = request
        self.subagent = subagent  # the asking subagent's name (model text), None for the conversation

    def compose(self) -> ComposeResult:
        r = self.request
        q = question(r)  # the words, shared with exec's terminal prompt (core/tools/approval_text.py)
        if r.kind == "patch":
            body = Text(q.body + "\n\n", style="bold")
            body.append_text(diff_text(r.detail, limit=None))
        else:
            body = numbered(q.body)
        with Vertical(id="approval"):
            if self.subagent is not None:  # which of the running subagents asks (issue 41)
                yield Static(subagent_label(self.subagent), id="approval-subagent", markup=False)
            yield Static(Text(q.title, style="bold"), id="approval-title")
            for warning in q.warnings:
                yield Static(Text(f"⚠ {warning}", style="bold"), classes="approval-warning")
            if q.meta:
                yield Static(safe_text(q.meta), id="approval-meta")
            if r.reason and r.kind != "mcp":  # (an MCP call's reason is the warning above)
                yield Static(safe_text("why: " + r.reason, "italic"), id="approval-reason")
            with VerticalScroll(id="approval-detail"):
                yield Static(body, id={"shell": "approval-command", "mcp": "approval-arguments"}.get(r.kind,
                                                                                                   "approval-patch"))
            with Horizontal(id="approval-buttons"):
                # Short labels: all five fit whole at 80 columns.
                yield Button("Yes (y)", id="yes", variant="success", compact=True)
                yield Button("Always (a)", id="always", variant="primary", compact=True,
                             tooltip="Yes, for this session" + (": this tool with these exact arguments"
                                                                if r.kind == "mcp" else ""))
                if r.kind == "mcp" and r.remembered:  # the MCP-only choice (a destructive tool asks every time)
                    yield Button("Always, any args", id="always-tool", variant="primary", compact=True,
                                 tooltip="Yes, and this tool with any arguments for the rest of the session")
                yield Button("No (n)", id="no", variant="warning", compact=True, tooltip="No, and continue the turn")
                yield Button("Stop (s)", id="stop", variant="error", compact=True, tooltip="No, and stop the turn")
            yield self.hint  # what the answer waits for

    def on_resize(self) -> None:
        # The detail gives way first on a short terminal: the buttons stay on screen.
        detail = self.query_one("#approval-detail")
        label = 1 if self.subagent is not None else 0  # (the line saying which subagent asks)
        detail.styles.max_height = max(3, min(20, self.size.height - 16 - label))


class DiffScreen(ModalScreen[None]):
    """Everything the current (or last) turn changed in the workspace."""

    BINDINGS = [Binding("escape,q,ctrl+t", "dismiss", "Close", id="diff.close")]

    def __init__(self, diff: str) -> None:
        super().__init__()
        self.diff = diff

    def compose(self) -> ComposeResult:
        with Vertical(id="diff"):
            yield Static(Text("Turn diff  (esc to close)", style="bold"))
            with VerticalScroll(id="diff-body"):
                yield Static(diff_text(self.diff) if self.diff else Text("No changes in this turn.", style="italic"))
