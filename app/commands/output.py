"""Where a command's answer goes: a dim note in the transcript (not history: never
sent to the model), plain text, sanitised, never markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext


async def show_note(app: CommandContext, lines: list[str] | str, title: str | None = None) -> Static:
    """A block of text at the end of the transcript, scrolled into view."""
    text = Text()
    if title:
        text.append(sanitize(title) + "\n", style="bold")
    body = [lines] if isinstance(lines, str) else lines
    text.append("\n".join(sanitize(line) for line in body))
    note = Static(text, classes="command-note")
    transcript = app.chat.transcript  # the chat's, also while a picker or the palette is on top
    await transcript.mount(note)
    transcript.follow()
    return note
