"""Copying text out: through the system clipboard when there is one (pbcopy, wl-copy,
xclip, xsel), else the caller falls back to OSC 52 (the terminal sets the clipboard;
it works over SSH, where the terminal allows it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

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
