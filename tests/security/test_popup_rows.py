"""Attack: a newline in a file name split a row of the `@` popup (issue 21, the smaller
ones): `evil\nREADME.md` showed as two files, the second a lie. Every name is one row,
its newline shown as ␊ (the real terminal: tests/terminal/test_attach_terminal.py)."""

from __future__ import annotations

from rivulet.widgets.completion import Completion, CompletionPopup


def test_a_name_with_a_newline_is_one_row():
    entry = Completion('@"x" ', "notes\nREADME.md\x1b[2J", "12 B")
    option = CompletionPopup._option(entry, 20)
    text = option.prompt.plain  # what the row shows
    assert "\n" not in text and "\x1b" not in text
    assert text.startswith("notes␊README.md␛[2J") and text.rstrip().endswith("12 B")
