"""The status line: working/elapsed, reasoning heading, retries, tokens and context."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize

# Context windows of common models, in tokens (prefix match, longest first).
CONTEXT_WINDOWS = {
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "o4-mini": 200_000,
    "o3": 200_000,
    "gpt-oss": 131_072,
}


def context_window(model: str) -> int | None:
    for prefix in sorted(CONTEXT_WINDOWS, key=len, reverse=True):
        if model.startswith(prefix):
            return CONTEXT_WINDOWS[prefix]
    return None


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class StatusLine(Static):
    def __init__(self, model: str, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.model = model
        self.state = "idle"  # idle | working | retrying | failed
        self.elapsed = 0
        self.heading: str | None = None
        self.retry: tuple[int, int] | None = None
        self.note: str | None = None
        self.total_tokens = 0
        self.last_input = 0
        self.sandbox: str | None = None  # where shell commands run ("sandbox workspace-write", ...)

    def set_usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        self.total_tokens += int(usage.get("total_tokens") or 0)
        # The latest request's input is what the conversation now occupies.
        self.last_input = int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)
        self.refresh_line()

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
        right = [self.sandbox, self.model] if self.sandbox else [self.model]
        if self.total_tokens:
            right.append(f"{_k(self.total_tokens)} tokens used")
            window = context_window(self.model)
            if window and self.last_input:
                right.append(f"{max(0, 100 - 100 * self.last_input // window)}% context left")
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
