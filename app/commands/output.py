"""Where a command's lines go in the chat: a dim note in the transcript (not history: never
sent to the model), plain text, sanitised, never markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.widgets.transcript import Transcript


async def show_note(transcript: Transcript, lines: list[str] | str, title: str | None = None) -> Static:
    """A block of text at the end of the transcript (the chat's, also while a picker or
    the palette is on top), scrolled into view."""
    text = Text()
    if title:
        text.append(sanitize(title) + "\n", style="bold")
    body = [lines] if isinstance(lines, str) else lines
    text.append("\n".join(sanitize(line) for line in body))
    note = Static(text, classes="command-note")
    await transcript.mount(note)
    transcript.follow()
    return note
