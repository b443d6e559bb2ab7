"""Desktop notifications through the terminal, for a turn that ended or an approval
that waits while you look elsewhere: the bell, OSC 9 (iTerm2, WezTerm, kitty, Ghostty,
Windows Terminal) or OSC 777 (rxvt, foot, Konsole's notify). The text is model
text: it is stripped of every control character before it goes into the sequence."""

from __future__ import annotations

import unicodedata

BEL = "\a"
# Terminals known to show OSC 9 as a notification; elsewhere "auto" rings the bell.
OSC9_TERMINALS = ("iTerm.app", "WezTerm", "ghostty", "kitty", "vscode")


def clean(text: str, limit: int = 120) -> str:
    """Printable text only: no ESC, BEL, C1 or other controls that could end the
    sequence early or start another one; `;` too, which separates OSC 777 fields."""
    out = []
    for ch in " ".join(text.split()):
        if unicodedata.category(ch)[0] == "C" or ch == ";":
            continue
        out.append(ch)
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def choose(mode: str, term_program: str) -> str:
    if mode != "auto":
        return mode
    return "osc9" if term_program in OSC9_TERMINALS else "bell"


def sequence(mode: str, title: str, body: str, term_program: str = "") -> str:
    """What to write to the terminal ("" for off)."""
    kind = choose(mode, term_program)
    if kind == "off":
        return ""
    if kind == "bell":
        return BEL
    if kind == "osc9":
        return f"\x1b]9;{clean(title)}: {clean(body)}\a"
    return f"\x1b]777;notify;{clean(title)};{clean(body)}\a"
