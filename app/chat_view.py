"""What the bus handlers see of the chat: typed accessors for its widgets and the few
services they use (Posting's screen accessors), never the App and never its private
state. The App makes one at start, giving it what the view does through it (notify, a
dialog, the alert, the session file), and binds the widgets when its screen is mounted.

A handler that needs more of the chat adds an accessor here, where the rule that keeps
the App thin can see it (`tests/app/test_thin_app_rules.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from textual.widgets import Static

from rivulet.app.status_board import StatusBoard
from rivulet.widgets.composer import Composer
from rivulet.widgets.search import SearchBar
from rivulet.widgets.status import StatusLine
from rivulet.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer

    from rivulet.core.store.session import SessionWriter

Severity = Literal["information", "warning", "error"]


class ChatView:
    transcript: Transcript
    composer: Composer
    search: SearchBar
    banner: Static
    frame_timer: Timer  # the live panes' frame tick (running only while a pane is live): set at the start
    second_timer: Timer  # the running turn's 1 s tick

    def __init__(self, *, notify: Callable[..., None], push_screen: Callable[..., Any],
                 alert: Callable[[str, str], None], give_back_attachments: Callable[[], None],
                 session_writer: Callable[[], SessionWriter | None]) -> None:
        self._notify, self._push_screen, self._alert = notify, push_screen, alert
        self._give_back, self._writer = give_back_attachments, session_writer
        self.status = StatusBoard()  # the status line's one writer

    def bind(self, screen: Screen[object]) -> None:
        """The chat screen's widgets, held directly: while the command palette is up,
        `query_one` on the app would search the palette."""
        self.transcript = screen.query_one(Transcript)
        self.composer = screen.query_one(Composer)
        self.search = screen.query_one(SearchBar)
        self.banner = screen.query_one("#banner", Static)
        self.status.bind(screen.query_one(StatusLine))
        self.transcript.hint = screen.query_one("#below-hint")

    @property
    def session_writer(self) -> SessionWriter | None:
        return self._writer()

    def notify(self, text: str, *, severity: Severity = "information", timeout: float | None = None,
               markup: bool = False) -> None:
        self._notify(text, severity=severity, timeout=timeout, markup=markup)

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None) -> Any:
        """A dialog over the chat (an approval question); `callback` gets its answer."""
        return self._push_screen(screen, callback)

    def alert(self, title: str, body: str) -> None:
        """The bell or a desktop notification, for a user looking elsewhere."""
        self._alert(title, body)

    def give_back_attachments(self) -> None:
        """An undone turn's attachments, held again for the next message."""
        self._give_back()
