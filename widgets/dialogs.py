"""Modal screens: the approval question for a tool call, and the turn's diff."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rivulet.core.approval import ApprovalRequest, Decision
from rivulet.core.sanitize import sanitize


def diff_text(diff: str, limit: int = 200_000) -> Text:
    """A unified diff, coloured line by line (sanitised: it holds model-written text)."""
    out = Text()
    for line in sanitize(diff[:limit]).splitlines():
        style = ("bold" if line.startswith(("+++", "---", "@@")) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "")
        out.append(line + "\n", style=style)
    if len(diff) > limit:
        out.append(f"… ({len(diff) - limit} more characters)\n", style="italic")
    return out


class ApprovalScreen(ModalScreen[Decision]):
    """Ask whether a command may run or a patch may be applied.

    For the first GRACE seconds answers are ignored: someone typing in the composer
    when the question pops up would otherwise answer it with their next "y", "s" or
    Enter."""

    GRACE = 0.5

    BINDINGS = [
        Binding("y", "decide('yes')", "Yes", id="approval.yes"),
        Binding("a", "decide('always')", "Yes, for this session", id="approval.always"),
        Binding("n", "decide('no')", "No, continue", id="approval.no"),
        Binding("s", "decide('stop')", "No, stop the turn", id="approval.stop"),
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        self._shown_at = time.monotonic()

    def _too_soon(self) -> bool:
        if time.monotonic() - self._shown_at >= self.GRACE:
            return False
        self.notify("The question had just appeared: answer again", severity="warning", timeout=3)
        return True

    def compose(self) -> ComposeResult:
        r = self.request
        what = "Run this command?" if r.kind == "shell" else "Apply this patch?"
        with Vertical(id="approval"):
            yield Static(Text(what, style="bold"), id="approval-title")
            if r.kind == "shell":
                yield Static(Text("$ " + sanitize(r.title), style="bold"), id="approval-command")
            if r.reason:
                yield Static(Text("why: " + sanitize(r.reason), style="italic"))
            with VerticalScroll(id="approval-detail"):
                yield Static(diff_text(r.detail) if r.kind == "patch" else Text(sanitize(r.detail)))
            with Horizontal(id="approval-buttons"):
                # Short labels: all four fit whole at 80 columns.
                yield Button("Yes (y)", id="yes", variant="success")
                yield Button("Always (a)", id="always", variant="primary", tooltip="Yes, for this session")
                yield Button("No (n)", id="no", variant="warning", tooltip="No, and continue the turn")
                yield Button("Stop (s)", id="stop", variant="error", tooltip="No, and stop the turn")

    def on_resize(self) -> None:
        # The detail gives way first on a short terminal: the buttons stay on screen.
        detail = self.query_one("#approval-detail")
        detail.styles.max_height = max(3, min(20, self.size.height - 15))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self._too_soon():
            self.dismiss(Decision(event.button.id))

    def action_decide(self, value: str) -> None:
        if not self._too_soon():
            self.dismiss(Decision(value))


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
