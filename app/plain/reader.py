"""The user's messages, a line (or a pasted block) at a time.

On a terminal: prompt-toolkit, which keeps the editing on the input's own lines (history
with Up/Down, the workspace's earlier prompts included; Alt+Enter or Esc Enter for a new
line; a bracketed paste arrives whole, newlines and all). With TERM=dumb prompt-toolkit
itself falls back to a plain echoing prompt. Without a terminal on stdin: one message
per line. `None` is the end of input (Ctrl-D, or the end of the pipe).
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyPressEvent

    from rivulet.core.store.prompt_history import PromptHistory

PROMPT = "you> "


class LineReader:
    def __init__(self, history: PromptHistory | None = None) -> None:
        self.history = history
        self._session = None
        if sys.stdin.isatty() and sys.stdout.isatty():
            self._session = _prompt_session(history.load() if history is not None else [])

    async def read(self) -> str | None:
        """The next message, stripped of its trailing newline; "" for a line left blank or
        cancelled with Ctrl-C at the prompt; None at the end of input."""
        if self._session is None:
            line: str = await asyncio.to_thread(sys.stdin.readline)
            if not line:
                return None
            return line.rstrip("\n")
        try:
            text: str = await self._session.prompt_async(PROMPT)
        except KeyboardInterrupt:  # Ctrl-C at the prompt: the line is dropped, as in a shell
            return ""
        except EOFError:
            return None
        if text.strip() and self.history is not None:
            self.history.append(text)
        return text


def _prompt_session(past: list[str]) -> PromptSession[str]:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings

    history = InMemoryHistory()
    for prompt in past:
        history.append_string(prompt)
    keys = KeyBindings()

    @keys.add("escape", "enter")  # Alt+Enter (sent as Esc Enter) or Esc then Enter: a new line
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    # No completion menus, no mouse, no bottom toolbar: nothing is drawn but the input.
    return PromptSession(history=history, key_bindings=keys, multiline=False, enable_history_search=False,
                         mouse_support=False, complete_while_typing=False, erase_when_done=False)
