"""Issue 25: a mouse selection across transcript entries copies clean text -- no
borders, bars or margins, no break where a line was wrapped on screen, no "↪" marks --
whether the entries are widgets (the newest) or lines of the frozen store (older ones),
and code blocks are part of it (Textual left a code block's rows out of every copy)."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.tui import GatedServer, until
from textual.selection import SELECT_ALL

from rivulet.app.tui import RivuletApp
from rivulet.core import items as it
from rivulet.core.store.session import Session, SessionMeta
from rivulet.core.turn.history import History
from rivulet.widgets.frozen import FrozenMarkdown
from rivulet.widgets.frozen_entries import FrozenEntries

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py

PARAGRAPH = ("This paragraph is long enough that it has to wrap at least once on an eighty column "
             "screen, and a second time too.")
CODE = "print('a line of code long enough that it is continued on the next row of the block')"
CHROME = "↪▌│┃┌┐└┘├┤┬┴┼─"  # what is drawn for looks, never copied


def answer(n: int) -> str:
    return f"{PARAGRAPH}\n\n```python\n{CODE}\nx = {n}\n```\n\nEnd of answer {n}.\n"


def session(turns: int, long_from: int = 0) -> Session:
    """`turns` turns; those from `long_from` on answer with a paragraph and a code block
    that wrap at 80 columns, the others in one short line."""
    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n:02d}"), key=f"user-{n + 1}")
        text = answer(n) if n >= long_from else f"Short answer {n}."
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]}, "req-1", f"m{n}")
    return Session(SessionMeta("sel", 0, "/", "m", "u"), history)


def screen_lines(app: RivuletApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def row_of(app: RivuletApp, text: str) -> int:
    return next(y for y, line in enumerate(screen_lines(app)) if text in line)


async def drag(pilot, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Press, move and release the mouse, as a user selecting does."""
    await pilot.mouse_down(offset=start)
    await pilot.hover(offset=end)
    await pilot.mouse_up(offset=end)
    await pilot.pause()


async def copy_selection(pilot, app: RivuletApp, monkeypatch) -> str:
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    await pilot.press("ctrl+c")  # app/ctrl_c.py: a selection is copied first
    assert len(copied) == 1, copied
    return copied[0]


def assert_clean(text: str) -> None:
    assert not any(c in text for c in CHROME), text
    assert PARAGRAPH in text.splitlines()  # one line: the screen's wraps are not the text's
    assert CODE in text.splitlines()  # the code line whole, without its continuation mark
    assert all(line == line.rstrip() for line in text.splitlines() if CODE not in line)


async def test_a_selection_across_entry_widgets_copies_their_text(monkeypatch):
    app = RivuletApp(settings(), GatedServer([]).transport(), session=session(2), remember_theme=False)
    async with app.run_test(size=(80, 50)) as pilot:
        await until(pilot, lambda: any("End of answer 1." in line for line in screen_lines(app)), "the session")
        await pilot.pause()
        assert app._transcript.frozen is None or not app._transcript.frozen.entries  # all are widgets
        assert any("↪" in line for line in screen_lines(app))  # the code line is wrapped on screen
        await drag(pilot, (2, row_of(app, "question 00")), (30, row_of(app, "End of answer 1.")))
        text = await copy_selection(pilot, app, monkeypatch)
    assert_clean(text)
    lines = text.splitlines()
    assert lines[0] == "question 00" and lines[-1] == "End of answer 1."
    assert lines.count(CODE) == 2 and "x = 0" in lines and "x = 1" in lines


async def test_a_selection_from_the_frozen_store_into_entry_widgets_copies_clean_text(monkeypatch):
    app = RivuletApp(settings(), GatedServer([]).transport(), session=session(12, long_from=0),
                     remember_theme=False)
    async with app.run_test(size=(80, 50)) as pilot:
        await until(pilot, lambda: any("End of answer 11." in line for line in screen_lines(app)), "the session")
        await pilot.pause()
        frozen = app._transcript.frozen
        assert frozen is not None and frozen.entries
        app.action_scroll_transcript("page_up")  # an old entry (data, drawn as lines) into view
        await until(pilot, lambda: any("question 07" in line for line in screen_lines(app)), "old entries")
        await pilot.pause()
        start = row_of(app, "question 07")
        assert isinstance(app.screen.get_widget_at(3, start)[0], FrozenEntries)  # it starts in the line store
        end = max(y for y, line in enumerate(screen_lines(app)) if "End of answer" in line)
        assert not isinstance(app.screen.get_widget_at(3, end)[0], FrozenEntries)  # and ends in a widget
        await drag(pilot, (0, start), (40, end))  # from the margin: the whole row, and none above it
        text = await copy_selection(pilot, app, monkeypatch)
    assert_clean(text)
    assert text.startswith("question 07\n")
    assert text.count(CODE) >= 2  # a frozen entry's code block and a widget's


async def test_a_long_answer_s_frozen_segments_are_copied(monkeypatch):
    """A long answer keeps its older segments as lines (widgets/frozen.py): they are part
    of a selection across the entry, as text."""
    parts = [f"Section {n}: {PARAGRAPH}\n\n```python\n{CODE}\n```\n\n" for n in range(12)]
    long_answer = "".join(p + "filler line. " * 120 + "\n\n" for p in parts) + "The end.\n"
    history = History()
    history.append(it.user_message("a long one"), key="user-1")
    history.append({"id": "m0", "type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": long_answer}]}, "req-1", "m0")
    app = RivuletApp(settings(), GatedServer([]).transport(),
                     session=Session(SessionMeta("long", 0, "/", "m", "u"), history), remember_theme=False)
    async with app.run_test(size=(80, 40)) as pilot:
        await until(pilot, lambda: any("The end." in line for line in screen_lines(app)), "the answer")
        await pilot.pause()
        app.screen.selections = {app.query_one(FrozenMarkdown): SELECT_ALL}  # as a drag across it selects it
        text = app.screen.get_selected_text() or ""
    lines = text.splitlines()
    assert not any(c in text for c in CHROME), text
    assert "Section 0: " + PARAGRAPH in lines and lines.count(CODE) >= 2
