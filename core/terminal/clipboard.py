"""Copying text out: through the system clipboard when there is one (pbcopy, wl-copy,
xclip, xsel), else the caller falls back to OSC 52 (the terminal sets the clipboard;
it works over SSH, where the terminal allows it).

What is copied is model text, and it is pasted into the user's shell: `clean_copy` strips
every control character first (an `ESC[201~` inside a code block ends a bracketed paste
early, and the shell then runs the lines after it), and the bidi controls and tag
characters that would hide what the user pastes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from rivulet.core.sanitize import without_bidi

# C0 but tab and newline, DEL, C1, tag characters: removed from a copy (and the bidi controls).
_STRIP = {c: None for c in (*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0xE0000, 0xE0080))
          if c not in (0x09, 0x0A)}


def clean_copy(text: str) -> tuple[str, int]:
    """(text without control characters, how many were removed). A CRLF is a newline."""
    text = text.replace("\r\n", "\n")
    cleaned = without_bidi(text.translate(_STRIP))
    return cleaned, len(text) - len(cleaned)


def removed_note(removed: int) -> str:
    """What the copy's notice adds when something was stripped."""
    return f"; {removed} control character{'' if removed == 1 else 's'} removed" if removed else ""


# (tool, argv, what it needs in the environment)
TOOLS = [
    ("pbcopy", ["pbcopy"], None),
    ("wl-copy", ["wl-copy"], "WAYLAND_DISPLAY"),
    ("xclip", ["xclip", "-selection", "clipboard"], "DISPLAY"),
    ("xsel", ["xsel", "--clipboard", "--input"], "DISPLAY"),
]


def system_copy(text: str) -> str | None:
    """Copy with the first clipboard tool that works here; its name, or None."""
    for name, argv, needs in TOOLS:
        if name == "pbcopy" and sys.platform != "darwin":
            continue
        if needs and not os.environ.get(needs):
            continue
        if shutil.which(argv[0]) is None:
            continue
        try:
            subprocess.run(argv, input=text.encode("utf-8"), timeout=5, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            continue
        return name
    return None


_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n"
                    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)


def code_blocks(markdown: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown text: (language, code), in order."""
    return [(m.group("info").strip().split(" ")[0], m.group("body")) for m in _FENCE.finditer(markdown)]
