"""The key footer: Textual's `Footer`, recomposed once per burst of binding changes.

Textual's recomposes after the next screen refresh on every bindings signal, and a
start sends three (the screen, its focus, the app's keymap): the composer's keys then
show three frames (some 60 ms) after everything else. Here a signal recomposes at the
footer's next turn, once however many signals came meanwhile.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    # The compact footer docks the palette key right with a one-cell right margin; once the
    # keys overflow (60 columns), Textual paints nothing in that margin, and the terminal keeps
    # whatever the cell held before a resize (a stray letter). Padding is painted: same look.
    DEFAULT_CSS = """
    KeyFooter.-compact FooterKey.-command-palette {
        margin-right: 0;
        padding-right: 1;
    }
    """

    _pending = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen or self._pending:
            return
        self._pending = True
        self.call_next(self._recompose_now)

    async def _recompose_now(self) -> None:
        self._pending = False
        await self.recompose()
