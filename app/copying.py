"""Copying from the chat: the last answer, or one of its code blocks, as Markdown
source; through the system clipboard where there is one, else the terminal's (OSC 52).
The notice says which was used."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rivulet.app.commands.results import Say
from rivulet.core.kinds import kind_of
from rivulet.core.terminal.clipboard import clean_copy, code_blocks, removed_note, system_copy
from rivulet.core.turn.history import History


@dataclass(frozen=True)
class Copyable:
    name: str  # as the palette lists it
    help: str
    text: str
    what: str  # as the notice names it


def last_answer(history: History | None) -> str:
    """The Markdown source of the newest assistant message."""
    if history is None:
        return ""
    for entry in reversed(history.entries):
        item = entry.item
        kind = kind_of(item)
        if kind.name == "answer" and item.get("role") == "assistant":
            return kind.copy_text(item, None)
    return ""


def copy_text(clipboard: Callable[[str], None], text: str, what: str) -> Say:
    text, removed = clean_copy(text)  # model text, pasted into a shell: no control characters
    tool = system_copy(text)
    if tool is None:
        clipboard(text)  # OSC 52: the terminal sets the clipboard, if it allows it
        via = "OSC 52 (if your terminal allows it)"
    else:
        via = tool
    return Say(f"Copied {what} ({len(text)} characters) via {via}{removed_note(removed)}")


def copyables(answer: str) -> list[Copyable]:
    """The answer, then each of its code blocks."""
    if not answer:
        return []
    out = [Copyable("Copy last answer", "Its Markdown source, to the clipboard", answer, "the last answer")]
    for n, (lang, code) in enumerate(code_blocks(answer), 1):
        # The language is model text, and the palette parses its labels as markup:
        # only a plain name gets through.
        lang = re.sub(r"[^A-Za-z0-9_+#.-]", "", lang)[:20]
        label = f"code block {n}" + (f" ({lang})" if lang else "")
        lines = code.count("\n") or 1
        out.append(Copyable(f"Copy {label}", f"{lines} line{'s' if lines != 1 else ''} of the last answer",
                            code, label))
    return out
