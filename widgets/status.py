"""The status line: working/elapsed, reasoning heading, retries; on the right the
sandbox, the model and its reasoning effort, tokens used and the percent of the
context window left (core `context_left`: the last response's usage against the
window the app worked out from the setting, the server's report or the table)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize
from rivulet.core.turn.usage import context_left


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class StatusLine(Static):
    def __init__(self, model: str, effort: str | None = None, window: int | None = None, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.model = model
        self.effort = effort  # the reasoning effort sent (None: the server's default)
        self.window = window  # the model's context window in tokens (None: unknown)
        self.usage: dict[str, Any] | None = None  # the last response's: what the context holds
        self.state = "idle"  # idle | working | retrying | failed
        self.elapsed = 0
        self.heading: str | None = None
        self.retry: tuple[int, int] | None = None
        self.note: str | None = None
        self.total_tokens = 0
        self.sandbox: str | None = None  # where shell commands run ("sandbox workspace-write", ...)
        self.profile: str | None = None  # the active [profiles.NAME], named before the model

    def set_usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        total = usage.get("total_tokens")
        self.total_tokens += total if isinstance(total, int) and not isinstance(total, bool) else 0
        self.usage = usage
        self.refresh_line()

    def context_text(self) -> str | None:
        left = context_left(self.usage, self.window)
        return None if left is None else f"{left}% context left"

    def refresh_line(self) -> None:
        for cls in ("working", "retrying", "failed"):
            self.set_class(self.state == cls, cls)
        left: list[str] = []
        if self.state in ("working", "retrying"):
            left.append(f"Working ({self.elapsed}s • esc to interrupt)")
            if self.heading:
                left.append(sanitize(self.heading))
            if self.retry:
                left.append(f"reconnecting {self.retry[0]}/{self.retry[1]}")
        elif self.note:
            left.append(sanitize(self.note))
        else:
            left.append("Ready")
        model = sanitize(self.model) + (f" {self.effort}" if self.effort else "")
        if self.profile:
            model = f"{sanitize(self.profile)}: {model}"
        right = [self.sandbox, model] if self.sandbox else [model]
        if self.total_tokens:
            right.append(f"{_k(self.total_tokens)} tokens used")
        context = self.context_text()
        if context:
            right.append(context)
        right_text = " • ".join(right)
        room = (self.size.width or 80) - 2 - len(right_text) - 3  # at least " · " between the sides
        left_text = " • ".join(left)
        if len(left_text) > room:  # a narrow terminal: the left side gives way, never runs into the right
            left_text = left_text[: max(0, room - 1)] + "…"
        line = Text(left_text)
        line.append(" " * max(3, room + 3 - len(left_text)))
        line.append(right_text)
        self.update(line, layout=False)  # one line, always: no layout pass for the screen

    def on_resize(self) -> None:
        self.refresh_line()
