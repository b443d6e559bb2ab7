"""Old history entries as pre-rendered lines: a long conversation stays cheap.

Every widget in the transcript is visited by each layout pass, so a session with
hundreds of entries makes every frame of a streaming answer slower. Entries older than
the newest `KEEP_ENTRIES` are therefore handed to one `FrozenEntries` widget, which
draws each of them once (with Rich, styled from the theme, looking like its widget
did) and then costs one widget however many it holds. Clicking a frozen entry still
opens its raw item; the inspector lists them all as before.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.strip import Strip
from textual.theme import Theme
from textual.widget import Widget

from rivulet.core import items as it
from rivulet.core.sanitize import sanitize

from .entries import call_body, call_title, heading_of, output_text, reasoning_summary, shell_command
from .frozen import markdown, render_lines

KEEP_ENTRIES = 40  # history entries kept as widgets; older ones are frozen

Item = dict[str, Any]


def _bar(text: str, colour: str, style: Style | None = None) -> Text:
    out = Text()
    lines = text.splitlines() or [""]
    for n, line in enumerate(lines):
        out.append("▌ ", style=Style(color=colour))
        out.append(line, style=style)
        if n < len(lines) - 1:
            out.append("\n")
    return out


def entry_renderable(item: Item, output: Item | None, theme: Theme) -> RenderableType:
    """What an entry widget shows, as one Rich renderable (all text sanitised)."""
    kind = item.get("type")
    muted = Style(color=theme.foreground, dim=True)
    if kind == "message" and item.get("role") == "user":
        text = sanitize(it.message_text(item) or "")
        if text.startswith("<turn_aborted>"):
            return Text("⏹ turn interrupted — the model was told on the next turn", style=muted + Style(italic=True))
        # Full width on the surface colour, as the UserEntry widget draws it.
        return Padding(_bar(text, theme.primary), (0, 1, 0, 0), style=Style(bgcolor=theme.surface), expand=True)
    if kind == "message":
        return Padding(markdown(sanitize(it.message_text(item) or ""), theme), (0, 1))
    if kind == "reasoning":
        heading = heading_of(sanitize(reasoning_summary(item)))
        return Text(f" ▶ Thought: {heading}" if heading else " ▶ Thought", style=muted)
    if kind in it.CALL_OUTPUT_TYPES:
        colour = theme.secondary or theme.primary
        body = sanitize(shell_command(item) or call_body(item))
        if len(body) > 2000:
            body = body[:2000] + f"\n… ({len(body) - 2000} more characters)"
        out = sanitize(output_text(output)) if output is not None else "(no output)"
        lines = out.splitlines()
        if len(lines) > 12:
            out = "\n".join(lines[:12]) + f"\n… ({len(lines) - 12} more lines)"
        parts: list[RenderableType] = [_bar("⚙ " + call_title(item), colour, Style(bold=True))]
        if body:
            parts.append(_bar(body, colour))
        parts.append(_bar("→ " + out, colour, muted))
        return Group(*parts)
    if kind == "error":
        return _bar("✗ " + sanitize(str(item.get("message", ""))), theme.error or "red",
                    Style(color=theme.error or "red"))
    status = item.get("status")
    return Text(" • " + " · ".join([sanitize(str(kind))] + ([sanitize(str(status))] if status else [])), style=muted)


class FrozenEntries(Widget):
    DEFAULT_CSS = """
    FrozenEntries { height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: list[tuple[str, Item, Item | None]] = []  # (key, item, output)
        self._width = 0
        self._theme = ""
        self._lines: list[Strip] = []
        self._starts: list[int] = []

    def add(self, key: str, item: Item, output: Item | None = None) -> None:
        self.entries.append((key, item, output))
        if self._width:
            self._render(self.entries[-1])
        self.refresh(layout=True)

    def _render(self, entry: tuple[str, Item, Item | None]) -> None:
        _, item, output = entry
        theme = self.app.current_theme
        self._starts.append(len(self._lines))
        self._lines.append(Strip.blank(self._width))  # the entries' top margin
        self._lines.extend(render_lines(entry_renderable(item, output, theme), self._width, theme))

    def _ensure(self, width: int) -> None:
        theme = self.app.current_theme.name
        if width != self._width or theme != self._theme:
            self._width, self._theme = width, theme
            self._lines, self._starts = [], []
            for entry in self.entries:
                self._render(entry)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(max(1, width))
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        self._ensure(max(1, width))
        style = self.rich_style
        if 0 <= y < len(self._lines):
            return self._lines[y].crop_extend(0, width, style).apply_style(style)
        return Strip.blank(width, style)

    def key_at(self, y: int) -> str | None:
        if not self._starts:
            return None
        return self.entries[max(0, bisect_right(self._starts, y) - 1)][0]

    def on_click(self, event: events.Click) -> None:
        key = self.key_at(event.y)
        open_raw = getattr(self.app, "open_raw_item", None)
        if key is not None and open_raw is not None:
            open_raw(key)
