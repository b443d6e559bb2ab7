"""The chat's main screen and its layout."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.css.query import QueryType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from rivulet.widgets.attachment_chips import AttachmentChips
from rivulet.widgets.composer import Composer
from rivulet.widgets.entry_keys import FocusableEntry
from rivulet.widgets.footer import KeyFooter
from rivulet.widgets.line_select import LineSelect
from rivulet.widgets.safe import safe_text
from rivulet.widgets.search import SearchBar
from rivulet.widgets.status import StatusLine
from rivulet.widgets.transcript import Transcript

DEMO_WELCOME = (
    "This is the built-in **demo**: answers come from a scripted local server, not a model. "
    "Type anything and press Enter, ask *what time is it?* to see a tool call, *make a file* to see "
    "a patch stream, ask for your approval and apply (it adds `rivulet-demo.txt` here), or *delegate* to see "
    "two subagents work at once. "
    "Set `OPENAI_API_KEY` (or pass `--base-url`) to talk to a real server."
)


def chat_layout(banner: str, model: str, *, demo: bool = False) -> ComposeResult:
    """Banner, transcript, status line, search bar, composer and footer, top to bottom.
    The app composes these into its ChatScreen (so they exist before App.on_mount)."""
    yield Static(safe_text(banner), id="banner", classes="demo" if demo else "")
    yield Transcript(id="transcript")
    yield Static("↓ new output below · ctrl+end: follow", id="below-hint")
    yield StatusLine(model, id="status")
    yield SearchBar(id="search")
    yield AttachmentChips(id="chips")
    yield LineSelect(id="line-select")  # hidden until alt+v (widgets/line_select.py)
    yield Composer(id="composer")
    yield KeyFooter(compact=True)


class ChatScreen(Screen[None]):
    """The chat's screen. Typing always goes to the composer: a click on a transcript
    entry (a "Thought" toggle, say) or a Tab would otherwise focus that entry, and the
    keys typed next would vanish there."""

    AUTO_FOCUS = "#composer"

    def focus_next(self, selector: str | type[QueryType] = "*") -> Widget | None:
        """Tab stays out of the transcript (shift+Tab goes into it: widgets/entry_keys.py)."""
        found = super().focus_next(selector)
        if isinstance(found, FocusableEntry):
            composer = self.query_one(Composer)
            composer.focus()
            return composer
        return found

    def set_focus(self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False) -> None:
        if widget is not None and not isinstance(widget, FocusableEntry) \
                and any(isinstance(node, Transcript) for node in widget.ancestors):
            return  # (an entry itself may have the keys: widgets/entry_keys.py, typing goes on)
        super().set_focus(widget, scroll_visible, from_app_focus)
