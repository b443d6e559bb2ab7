"""What the bus handlers see of the chat: typed accessors for its widgets and the few
services they use (Posting's screen accessors), never the App and never its private
state. The App makes one at start and binds the widgets when its screen is mounted.

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

    from rivulet.app.tui import RivuletApp
    from rivulet.core.store.session import SessionWriter

Severity = Literal["information", "warning", "error"]


class ChatView:
    transcript: Transcript
    composer: Composer
    search: SearchBar
    banner: Static

    def __init__(self, app: RivuletApp) -> None:
        self._app = app
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
    def frame_timer(self) -> Timer:
        """The live panes' frame tick (running only while a pane is live)."""
        return self._app.frame_timer

    @property
    def second_timer(self) -> Timer:
        """The running turn's 1 s tick."""
        return self._app.second_timer

    @property
    def session_writer(self) -> SessionWriter | None:
        return self._app.session_writer

    def notify(self, text: str, *, severity: Severity = "information", timeout: float | None = None,
               markup: bool = False) -> None:
        self._app.notify(text, severity=severity, timeout=timeout, markup=markup)

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None) -> Any:
        """A dialog over the chat (an approval question); `callback` gets its answer."""
        return self._app.push_screen(screen, callback)

    def alert(self, title: str, body: str) -> None:
        """The bell or a desktop notification, for a user looking elsewhere."""
        self._app.alert(title, body)

    def give_back_attachments(self) -> None:
        """An undone turn's attachments, held again for the next message."""
        self._app.give_back_attachments()
