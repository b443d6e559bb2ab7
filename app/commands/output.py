"""Where a command's answer goes: a dim note in the transcript (not history: never
sent to the model), plain text, sanitised, never markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize
from rivulet.widgets.status import StatusLine
from rivulet.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.app import App


def chat_widget(app: App, cls):  # type: ignore[no-untyped-def]
    """A widget of the chat screen, also while a picker or the palette is on top."""
    return app.screen_stack[0].query_one(cls)


def status_line(app: App) -> StatusLine:
    return chat_widget(app, StatusLine)


async def show_note(app: App, lines: list[str] | str, title: str | None = None) -> Static:
    """A block of text at the end of the transcript, scrolled into view."""
    text = Text()
    if title:
        text.append(sanitize(title) + "\n", style="bold")
    body = [lines] if isinstance(lines, str) else lines
    text.append("\n".join(sanitize(line) for line in body))
    note = Static(text, classes="command-note")
    transcript = chat_widget(app, Transcript)
    await transcript.mount(note)
    transcript.follow()
    return note
