"""Make untrusted (model / tool / server) text safe for a terminal.

Every C0 control except newline and tab, DEL, every C1 control (U+0080-U+009F,
which some terminals treat as ESC-sequences on their own), the Unicode bidi controls
("Trojan Source"), the invisible zero-width characters and the tag characters
(U+E0000-U+E007F, "ASCII smuggling": text a model reads and a human does not see) are
replaced by a visible stand-in. The work is per character, so a sequence split across
two deltas is neutralised just the same: the ESC that would start it is gone whichever
delta it arrives in. The zero-width joiner (U+200D) is kept: emoji are built with it.

`reveal` is the stricter view for what the user is asked to approve: it also shows tabs
and the joiner, and says which kinds of hidden characters it found.
"""

from __future__ import annotations

_REPLACE: dict[int, str] = {}
for _c in range(0x20):
    if _c not in (0x09, 0x0A):
        _REPLACE[_c] = chr(0x2400 + _c)  # the Control Pictures block: ␛ for ESC
_REPLACE[0x7F] = "\u2421"  # ␡
for _c in range(0x80, 0xA0):
    _REPLACE[_c] = f"\\x{_c:02x}"
# Bidi embeddings/overrides/isolates and marks can reorder what the user sees.
BIDI = frozenset((0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))
# Characters that take no room on screen.
INVISIBLE = frozenset((0x00AD, 0x180E, 0x200B, 0x200C, *range(0x2060, 0x2065), 0xFEFF, *range(0xE0000, 0xE0080)))
for _c in (*BIDI, *INVISIBLE):
    _REPLACE[_c] = f"\\u{_c:04x}" if _c <= 0xFFFF else f"\\U{_c:08x}"
_TABLE = str.maketrans(_REPLACE)
_UNSAFE = frozenset(chr(c) for c in _REPLACE)


def sanitize(text: str) -> str:
    """Untrusted text with every terminal control made visible (\\r\\n becomes \\n)."""
    if text.isprintable() or not (_UNSAFE.intersection(text)):
        return text
    return text.replace("\r\n", "\n").translate(_TABLE)


_ROW = str.maketrans({0x0A: "\u240a", 0x09: "\u2409"})


def one_row(text: str) -> str:
    """Untrusted text for a single row (a file name in a list): sanitised, and a newline
    or tab shown as ␊ / ␉, so one name can never look like two rows."""
    return sanitize(text).translate(_ROW)


_REVEAL = str.maketrans({**_REPLACE, 0x09: "\u2409", 0x0D: "\u240d", 0x200D: "\\u200d"})


def reveal(text: str) -> tuple[str, list[str]]:
    """(text with every control and hidden character shown, what kinds were found).
    Newlines stay newlines; a lone or paired CR shows as ␍ (it can hide a line's start)."""
    found = []
    codes = {ord(c) for c in text}
    if any((c < 0x20 and c not in (0x09, 0x0A)) or 0x7F <= c < 0xA0 for c in codes):
        found.append("control characters")
    if codes & BIDI:
        found.append("bidirectional-text controls")
    if codes & INVISIBLE or 0x200D in codes:
        found.append("invisible characters")
    return text.translate(_REVEAL), found
