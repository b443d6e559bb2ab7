"""The conversation as plain text you can take: /transcript (ctrl+s) opens it in $PAGER
(`less -R` without one), and `--print` / `print_on_exit = true` writes it to the
terminal's normal scrollback on quit. Reasoning and tool output are in full; the text is
sanitised (core/store/export.py), so the pager and the scrollback get no control bytes.

Without `--print`, quitting leaves a recap in the scrollback (issue 38.3; the setting
`exit_recap_turns`): the last turns' prompts and answers in the same text, and a line
that says how to see the rest, so the conversation is still there when the screen is gone.
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
    from pathlib import Path

    from rivulet.app.commands.services import Notify
    from rivulet.core.turn.conversation import Conversation
    from rivulet.core.turn.history import History

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


def recap_text(history: History | None, turns: int, session: Path | None, command: str) -> str:
    """The last `turns` turns' messages (prompts and answers; no reasoning or tool output:
    `--print` has those), after a line saying how to see the turns left out. `session`:
    the session file (None: not saved)."""
    from rivulet.core import items as it
    from rivulet.core.store.export import history_markdown
    from rivulet.core.turn.rewind import user_turns

    if history is None or turns <= 0:
        return ""
    starts = user_turns(history)
    first = starts[-turns].index if len(starts) > turns else 0
    messages = [e.item for e in history.entries[first:] if it.item_type(e.item) == "message"]
    text = history_markdown(messages).strip()
    if not text:
        return ""
    if first == 0:
        return text + "\n"
    left = len(starts) - turns
    where = (f"{command} export {session.stem} prints the whole conversation" if session is not None
             else "this session was not saved")
    return f"({left} earlier turn{'s' if left != 1 else ''} not shown: {where})\n\n{text}\n"


def print_on_quit(conversation: Conversation | None, everything: bool, turns: int, session: Path | None) -> None:
    """The conversation into the normal scrollback as the chat ends (stdout, the screen
    gone): all of it with `everything` (`--print`), else the recap of its last turns."""
    from rivulet.core.command_name import command_name

    if everything:
        text = transcript_text(conversation)
    else:
        history = conversation.history if conversation is not None else None
        text = recap_text(history, turns, session, command_name())
    if text.strip():
        print(text, end="")
