"""Untrusted text never reaches a terminal with control sequences intact."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rivulet.core.sanitize import sanitize

HOSTILE = [
    "\x1b]52;c;ZWNobyBwd25lZA==\x07",  # OSC 52: write the clipboard
    "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b[2J\x1b[H",  # clear screen
    "\x9b31m",  # C1 CSI
    "fake\rprompt$ ",
    "\u202eevil\u202c",
]


def _is_safe(text: str) -> bool:
    return not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
                   for c in text)


def test_hostile_sequences_are_made_visible():
    for text in HOSTILE:
        out = sanitize(text)
        assert _is_safe(out), repr(out)
    assert sanitize("\x1b[31mred") == "␛[31mred"


def test_ordinary_text_is_untouched():
    text = "Hello, wörld 🐔\n\tcode: `x = 1`\n"
    assert sanitize(text) == text


@given(st.text(), st.integers(0, 50))
def test_any_split_is_safe_and_matches_the_whole(text, cut):
    cut = min(cut, len(text))
    a, b = text[:cut], text[cut:]
    assert _is_safe(sanitize(a) + sanitize(b))
    if "\r" not in text:  # \r\n folding is the one cross-boundary rule
        assert sanitize(a) + sanitize(b) == sanitize(text)


def test_one_row_shows_newlines_and_tabs_as_codes():
    from rivulet.core.sanitize import one_row

    assert one_row("a\nb\tc\x1b[2J.txt") == "a␊b␉c␛[2J.txt"
    assert one_row("plain/path.py") == "plain/path.py"
