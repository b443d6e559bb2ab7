"""Pasted bytes never become key presses, however the terminal's reads split them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from textual import events

from rivulet.app.paste_guard import END, START, PasteSafeParser

# Paste content: any text with ESCs, controls and CR, but never the end marker itself
# (a terminal with bracketed paste strips that from what it pastes).
CONTENT = st.text(alphabet=st.sampled_from(["\x1b", "[", "]", "2", "0", "1", "~", "\x07", "\r", "\n", "a", "é", ";"]),
                  max_size=40).filter(lambda t: END not in t)


def parse(chunks: list[str]) -> list:
    parser = PasteSafeParser()
    out: list = []
    for chunk in chunks:
        if chunk:
            out += list(parser.feed(chunk))
    return out


@given(CONTENT, st.lists(st.integers(min_value=0, max_value=60), max_size=4))
def test_a_paste_is_one_paste_event_and_no_keys_wherever_the_reads_split(content, cuts):
    raw = "x" + START + content + END + "y"
    points = sorted({min(c, len(raw)) for c in cuts})
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    found = parse(chunks)
    pastes = [e for e in found if isinstance(e, events.Paste)]
    keys = [e.character for e in found if isinstance(e, events.Key)]
    assert keys == ["x", "y"]  # nothing inside the paste became a key
    if content:
        assert [p.text for p in pastes] == [content.replace("\x1b", "␛")]


def test_textual_alone_turns_a_pasted_escape_into_key_presses():
    """Why the guard exists (if Textual fixes this, the guard can go)."""
    from textual._xterm_parser import XTermParser

    parser = XTermParser()
    found = list(parser.feed(START + "a\x1b]2;t\x07b\x1b[x" + END))
    assert any(isinstance(e, events.Key) for e in found)


def test_an_escape_key_outside_a_paste_is_not_held_back():
    parser = PasteSafeParser()
    assert parser.guard("\x1b") == "\x1b"  # the Escape key goes on at once (the parser times it)
    assert parser.guard("abc") == "abc"
