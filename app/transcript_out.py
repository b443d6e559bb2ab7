"""The conversation as plain text you can take: /transcript (ctrl+s) opens it in $PAGER
(`less -R` without one), and `--print` / `print_on_exit = true` writes it to the
terminal's normal scrollback on quit. Reasoning and tool output are in full; the text is
sanitised (core/store/export.py), so the pager and the scrollback get no control bytes.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from rivulet.app.commands.services import Notify
    from rivulet.core.turn.conversation import Conversation

DEFAULT_PAGER = "less -R"


def transcript_text(conversation: Conversation | None) -> str:
    from rivulet.core.store.export import history_markdown

    if conversation is None:
        return ""
    return history_markdown(list(conversation.history.items)).strip() + "\n"


def open_in_pager(conversation: Conversation | None, notify: Notify,
                  suspend: Callable[[], AbstractContextManager[None]]) -> None:
    """`suspend`: the full screen given back to the terminal while the pager runs."""
    from textual.app import SuspendNotSupported

    text = transcript_text(conversation)
    if not text.strip():
        notify("Nothing to show yet: the conversation is empty")
        return
    pager = os.environ.get("PAGER") or DEFAULT_PAGER
    # A private file (0600), gone when the pager is: the conversation may hold secrets of its own.
    with tempfile.NamedTemporaryFile("w", suffix=".md", prefix="rivulet-transcript-", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        try:
            with suspend():
                subprocess.run([*shlex.split(pager), f.name], check=False)
        except SuspendNotSupported:
            notify("The pager needs a terminal", severity="warning")
        except (OSError, ValueError) as exc:
            notify(f"Cannot run the pager {pager!r}: {exc}", severity="error")


def print_transcript(conversation: Conversation | None) -> None:
    """On quit: the conversation into the normal scrollback (stdout, after the screen is gone)."""
    text = transcript_text(conversation)
    if text.strip():
        print(text, end="")
