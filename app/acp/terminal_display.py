"""A shell call's output shown in a terminal of the editor's, while the command runs in
rivulet's own runner (its sandbox, approvals, secret masking, process-tree kill).

ACP's own terminals (`terminal/create` and the rest) run the command in the client, out
of rivulet's sandbox: the editor spawns it with its own environment, so the bubblewrap
sandbox and its seccomp filter, the scrubbed environment, the masking of secrets in the
output and the protected-path guard would not hold. rivulet never asks for one.

What it uses instead, when the client offers it, is the display-only terminal Zed gives
agents that run commands themselves (the extension codex-acp uses): the client says
`"_meta": {"terminal_output": true}` in its capabilities; the agent names a terminal in
a tool call's content with `_meta.terminal_info` (its id and cwd), streams the output in
`_meta.terminal_output` and ends it with `_meta.terminal_exit`. Without that, the
output goes as text content, as before.

The output is a tool's text and a terminal would act on its escapes (a clipboard write,
a title, a cursor move), so it is sanitised first (core/sanitize.py) and its newlines
are made CR LF, as a terminal wants them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from acp.schema import ToolCallProgress

SHOWN = 64 * 1024  # of the output sent in one update (its end): a flood is cut, said in the terminal
_EXIT = re.compile(r"Exit code: (-?\d+)\n")


def offers_display(capabilities: object) -> bool:
    """Whether the client shows an agent's own command output in a terminal (Zed's
    `_meta.terminal_output` extension)."""
    from acp.schema import ClientCapabilities

    meta = capabilities.field_meta if isinstance(capabilities, ClientCapabilities) else None
    return isinstance(meta, dict) and meta.get("terminal_output") is True


def ran(output_text: str) -> bool:
    """Whether a shell call's output says the command ran (not declined, not refused)."""
    return output_text.startswith("Exit code: ")


def exit_code(output_text: str) -> int | None:
    """The command's exit code; None when it was killed (a time limit) or it did not say."""
    found = _EXIT.match(output_text)
    return int(found.group(1)) if found else None


class TerminalDisplay:
    """The shell calls of one session shown in display-only terminals, by tool call id."""

    def __init__(self) -> None:
        self._cwd: dict[str, str] = {}  # calls that will show a terminal once they run
        self._opened: set[str] = set()  # those whose terminal the editor has been told of

    def expect(self, key: str, cwd: str) -> None:
        self._cwd[key] = cwd

    def shows(self, key: str) -> bool:
        return key in self._cwd

    def forget(self, key: str) -> None:
        self._cwd.pop(key, None)
        self._opened.discard(key)

    def output(self, key: str, text: str) -> list[ToolCallProgress]:
        """The updates that show `text`, the output since the last one (the terminal opened first)."""
        if len(text) > SHOWN:
            text = f"... ({len(text) - SHOWN:,} characters left out)\n{text[-SHOWN:]}"
        return [*self._open(key), _meta_update(key, "terminal_output",
                                               {"terminal_id": key, "data": as_terminal_text(text)})]

    def exit(self, key: str, status: str, code: int | None, note: str = "") -> list[ToolCallProgress]:
        """The updates that end the call: its terminal (opened if the command printed nothing)
        with its exit code, and the call's status. `note`: a line after the terminal (why it ended)."""
        from acp import text_block, tool_content, tool_terminal_ref

        content: list[Any] = [tool_terminal_ref(key), *([tool_content(text_block(note))] if note else [])]
        updates = [*self._open(key), _meta_update(key, "terminal_exit",
                                                  {"terminal_id": key, "exit_code": code, "signal": None},
                                                  status=status, content=content)]
        self.forget(key)
        return updates

    def opened(self, key: str) -> bool:
        return key in self._opened

    def _open(self, key: str) -> list[ToolCallProgress]:
        from acp import tool_terminal_ref

        if key in self._opened:
            return []
        self._opened.add(key)
        return [_meta_update(key, "terminal_info", {"terminal_id": key, "cwd": self._cwd.get(key, "")},
                             content=[tool_terminal_ref(key)])]


def as_terminal_text(text: str) -> str:
    """A tool's text as a terminal may be given it: no escapes, CR LF line ends."""
    return sanitize(text).replace("\n", "\r\n")


def _meta_update(key: str, name: str, value: dict[str, Any], **fields: Any) -> ToolCallProgress:
    from acp.schema import ToolCallProgress

    return ToolCallProgress(session_update="tool_call_update", tool_call_id=key, field_meta={name: value}, **fields)
