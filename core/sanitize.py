"""Make untrusted (model / tool) text safe for a terminal.

Every C0 control except newline and tab, DEL, every C1 control (U+0080-U+009F,
which some terminals treat as ESC-sequences on their own) and the Unicode bidi
overrides are replaced by a visible stand-in. The work is per character, so a
sequence split across two deltas is neutralised just the same: the ESC that would
start it is gone whichever delta it arrives in.
"""

from __future__ import annotations

_REPLACE: dict[int, str] = {}
for _c in range(0x20):
    if _c not in (0x09, 0x0A):
        _REPLACE[_c] = chr(0x2400 + _c)  # the Control Pictures block: ␛ for ESC
_REPLACE[0x7F] = "\u2421"  # ␡
for _c in range(0x80, 0xA0):
    _REPLACE[_c] = f"\\x{_c:02x}"
# Bidi embeddings/overrides/isolates can reorder what the user sees ("Trojan Source").
for _c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)):
    _REPLACE[_c] = f"\\u{_c:04x}"
_TABLE = str.maketrans(_REPLACE)
_UNSAFE = frozenset(chr(c) for c in _REPLACE)


def sanitize(text: str) -> str:
    """Untrusted text with every terminal control made visible (\\r\\n becomes \\n)."""
    if text.isprintable() or not (_UNSAFE.intersection(text)):
        return text
    return text.replace("\r\n", "\n").translate(_TABLE)
