"""Pasted text never becomes key presses.

Textual's XTerm parser (8.x) treats an ESC inside a bracketed paste as the start of an
escape sequence: what follows it is then re-issued as key presses, so a pasted
`\\x1b]2;x\\x07` presses ctrl+g (the external editor) and a pasted `\\x1b…\\r` can press
Enter and send the message. Text copied from a web page or a model's answer can carry
such bytes. This parser replaces every ESC inside a paste with the visible `␛` before
Textual's parser sees it, so the whole paste arrives as one Paste event, shown (and
sent) as the composer shows any control character.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.message import Message

from rivulet.widgets.compat.textual import XTermParser, install_input_parser

START = "\x1b[200~"
END = "\x1b[201~"
SHOWN_ESC = "\u241b"  # ␛, as core/sanitize.py shows ESC


def _partial_suffix(data: str, marker: str) -> int:
    """The length of the longest end of `data` that is a proper start of `marker`."""
    for n in range(min(len(marker) - 1, len(data)), 0, -1):
        if marker.startswith(data[-n:]):
            return n
    return 0


class PasteSafeParser(XTermParser):
    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._in_paste = False
        self._held = ""  # inside a paste: a tail that may be the start of END
        self._start_tail = ""  # outside: a tail that may be the start of START

    def feed(self, data: str) -> Iterable[Message]:
        if not data:
            return super().feed(data)  # end of input
        guarded = self.guard(data)
        return super().feed(guarded) if guarded else ()  # all held back: wait for more

    def guard(self, data: str) -> str:
        """`data` with every ESC inside a bracketed paste replaced by ␛."""
        out: list[str] = []
        data = self._held + data
        self._held = ""
        pos = 0
        while pos < len(data):
            if not self._in_paste:
                # START may have begun in the previous read (its tail went through as is).
                probe = self._start_tail + data[pos:]
                at = probe.find(START)
                if at == -1:
                    out.append(data[pos:])
                    keep = _partial_suffix(probe, START)
                    self._start_tail = probe[len(probe) - keep:]
                    break
                end_of_start = at + len(START) - len(self._start_tail)  # index in data[pos:]
                out.append(data[pos:pos + end_of_start])
                pos += end_of_start
                self._start_tail = ""
                self._in_paste = True
            else:
                at = data.find(END, pos)
                if at == -1:
                    keep = _partial_suffix(data[pos:], END)
                    body = data[pos:len(data) - keep]
                    out.append(body.replace("\x1b", SHOWN_ESC))
                    self._held = data[len(data) - keep:]
                    break
                out.append(data[pos:at].replace("\x1b", SHOWN_ESC))
                out.append(END)
                pos = at + len(END)
                self._in_paste = False
        return "".join(out)


def install() -> None:
    """Make Textual's Linux driver read input with PasteSafeParser."""
    install_input_parser(PasteSafeParser)
