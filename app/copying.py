"""Copying from the chat: the last answer, or one of its code blocks, as Markdown
source; through the system clipboard where there is one, else OSC 52. The notice
says which was used."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from rivulet.core import items as it
from rivulet.core.terminal.clipboard import clean_copy, code_blocks, removed_note, system_copy
from rivulet.core.turn.history import History

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext


def last_answer(history: History | None) -> str:
    """The Markdown source of the newest assistant message."""
    if history is None:
        return ""
    for entry in reversed(history.entries):
        item = entry.item
        if item.get("type") == "message" and item.get("role") == "assistant":
            return it.message_text(item) or ""
    return ""


def copy_text(app: CommandContext, text: str, what: str) -> None:
    text, removed = clean_copy(text)  # model text, pasted into a shell: no control characters
    tool = system_copy(text)
    if tool is None:
        app.copy_to_clipboard(text)  # OSC 52: the terminal sets the clipboard, if it allows it
        via = "OSC 52 (if your terminal allows it)"
    else:
        via = tool
    app.notify(f"Copied {what} ({len(text)} characters) via {via}{removed_note(removed)}", markup=False)


def copy_commands(app: CommandContext, answer: str) -> list[tuple[str, str, Callable[[], Any]]]:
    """Palette entries: (name, help, callback)."""
    if not answer:
        return []
    cmds: list[tuple[str, str, Callable[[], Any]]] = [
        ("Copy last answer", "Its Markdown source, to the clipboard",
         partial(copy_text, app, answer, "the last answer"))]
    for n, (lang, code) in enumerate(code_blocks(answer), 1):
        # The language is model text, and the palette parses its labels as markup:
        # only a plain name gets through.
        lang = re.sub(r"[^A-Za-z0-9_+#.-]", "", lang)[:20]
        label = f"code block {n}" + (f" ({lang})" if lang else "")
        lines = code.count("\n") or 1
        cmds.append((f"Copy {label}", f"{lines} line{'s' if lines != 1 else ''} of the last answer",
                     partial(copy_text, app, code, label)))
    return cmds
