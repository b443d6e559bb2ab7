"""Keys typed while the chat starts. Plain characters are typed at once; every other key
or paste waits, unhandled, until the chat has started: what it does (a send, a popup, a
recalled prompt, an attached image) depends on what is starting. From the first key
that waits, every later one waits too, so they keep their order."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message

from rivulet.widgets.compat.textual import check_bindings

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp


class InputReleased(Message):
    """The chat has started: the keys held since the first frame can be handled."""


@contextmanager
def noting_input(app: RivuletApp, event: events.Event) -> Iterator[None]:
    """Around the app's handling of `event`: a key or paste from the terminal (not one
    bubbling back up), once handed to its widget, holds the bus's next batches until it
    is drawn (app/bus_bridge.py)."""
    typed = isinstance(event, (events.Key, events.Paste))
    if not typed:
        yield
        return
    fresh = not event.is_forwarded  # (handling it forwards it: asked before)
    app.bridge.key_taken()  # it is being handled: batches need not stop for it
    try:
        yield
    finally:
        app.bridge.key_handled(app.focused or app.screen if fresh else None)


def noting_post(app: RivuletApp, message: Message) -> None:
    """A key or paste posted to the app from the terminal (not one bubbling back up): the
    batch under way stops at its next event, so that the key is handled next."""
    if isinstance(message, (events.Key, events.Paste)) and not message.is_forwarded:
        app.bridge.key_posted()


async def hold(app: RivuletApp, event: events.Event) -> bool:
    """True if `event` was held (or handled as one of the app's own keys) here."""
    held = app.held_input
    if held is None or not isinstance(event, (events.Key, events.Paste)) or event.is_forwarded \
            or _plain_text(app, event, held):
        return False
    # The app's own keys (quit, stop) act at once, also if the start hangs.
    if isinstance(event, events.Key) and await check_bindings(app, event.key, priority=True):
        return True
    held.append(event)
    return True


def _plain_text(app: RivuletApp, event: events.Key | events.Paste, held: list[events.Key | events.Paste]) -> bool:
    """A character that only adds itself to the composer (`/` and `@` open popups)."""
    return not held and isinstance(event, events.Key) and event.is_printable \
        and event.character not in (None, "/", "@") and app.focused is app.chat.composer


def released(held: list[events.Key | events.Paste]) -> list[events.Key | events.Paste]:
    """Every key held so far, in order, to be handled before any key that came after the
    release. They go as one burst, stamped now: while the chat started, the input thread
    shared the interpreter with the start, so the gaps between their own times are the
    start's, not the typist's (an Enter among them is a newline, as in a paste; an Enter
    they end with sends, unless more keys follow at once)."""
    return [events.Key(e.key, e.character) if isinstance(e, events.Key) else events.Paste(e.text) for e in held]
