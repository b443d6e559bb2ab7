"""Old history entries as pre-rendered lines: a long conversation stays cheap.

Every widget in the transcript is visited by each layout pass, so a session with
hundreds of entries makes every frame of a streaming answer slower. Entries older than
the newest `KEEP_ENTRIES` are therefore handed to one `FrozenEntries` widget, which
draws each of them once (with Rich, styled from the theme, looking like its widget
did) and then costs one widget however many it holds. Clicking a frozen entry still
opens its raw item; the inspector lists them all as before.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual import events
from textual.strip import Strip
from textual.theme import Theme

from rivulet.core import items as it
from rivulet.core.sanitize import sanitize

from .entries import call_body, call_title, heading_of, output_text, reasoning_summary, shell_command, user_view
from .frozen import PrerenderedBlocks, markdown, render_lines

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
        text, attached = user_view(item)
        if attached:
            text = "\n".join([text, *attached])
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


class FrozenEntries(PrerenderedBlocks):
    """Old history entries; each block is (key, item, output)."""

    @property
    def entries(self) -> list[tuple[str, Item, Item | None]]:
        return self.blocks

    def add(self, key: str, item: Item, output: Item | None = None) -> None:
        self.add_block((key, item, output))

    def _block_lines(self, block: tuple[str, Item, Item | None], width: int, theme: Theme) -> list[Strip]:
        _, item, output = block
        # A blank line first: the entries' top margin.
        return [Strip.blank(width), *render_lines(entry_renderable(item, output, theme), width, theme)]

    def line_of(self, index: int) -> int:
        """The first line of entry `index`, at the width last drawn (find scrolls there)."""
        self._ensure(self._width or max(1, self.content_size.width))
        return self._starts[index] if index < len(self._starts) else 0

    def key_at(self, y: int) -> str | None:
        index = self.block_at(y)
        return None if index is None else self.blocks[index][0]

    def on_click(self, event: events.Click) -> None:
        key = self.key_at(event.y)
        open_raw = getattr(self.app, "open_raw_item", None)
        if key is not None and open_raw is not None:
            open_raw(key)
