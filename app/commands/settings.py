"""/theme, /approval, /sandbox, /export and /copy: a choice list when no argument is
given, the value at once when one is.

/theme is remembered in the config file (as the palette's theme entries are);
/approval and /sandbox hold for this run only: a policy that asks less is a choice
for now, not for every later session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Protocol

from rivulet.app import copying
from rivulet.app.commands.results import Choose, Option, Result, Say
from rivulet.app.commands.services import HasClipboard, HasEngine, HasLooks, HasStatus
from rivulet.core.command_name import command_name
from rivulet.core.errors import RivuletError
from rivulet.core.tools.router import AgentTools
from rivulet.themes import THEMES

APPROVALS = {
    "ask": "ask before every command and patch",
    "auto-edit": "patches inside the workspace run without asking",
    "auto": "auto-edit, and commands inside the sandbox run without asking",
    "never-ask": "never ask (sandboxes, CI)",
}
SANDBOXES = {
    "workspace-write": "commands may write the workspace, nothing else",
    "read-only": "commands may write nothing",
    "off": "commands run unsandboxed, with your rights",
}
FORMATS = {"md": "Markdown, beside the session file", "json": "JSON, beside the session file"}
FULL_SCREEN = "the full-screen chat's ({command} without --plain)"


async def _pick(title: str, options: dict[str, str], current: str | None, arg: str,
                then: Callable[[str], Awaitable[Result]]) -> Result:
    """`then(arg)` if the argument is one of `options`, else a choice list of them."""
    if arg:
        if arg in options:
            return await then(arg)
        return Say(f"{title}: {arg!r} is not one of {', '.join(options)}", "warning")
    return Choose(title, [Option(value, help=text) for value, text in options.items()], then, current=current)


async def choose_theme(s: HasLooks, arg: str = "") -> Result:
    looks = s.looks
    if looks is None:
        return Say(f"Themes are {FULL_SCREEN.format(command=command_name())}")
    names = {t.name: "dark" if t.dark else "light" for t in THEMES}

    async def pick(name: str) -> Result:
        looks.set_theme(name)
        return None

    return await _pick("Theme", names, looks.theme, arg.strip(), pick)


async def choose_approval(s: HasEngine, arg: str = "") -> Result:
    return await _pick("Approval policy (this run)", APPROVALS, s.engine.settings.approval, arg.strip(),
                       partial(set_approval, s))


async def set_approval(s: HasEngine, picked: str) -> Result:
    s.engine.settings.approval = picked  # type: ignore[assignment]
    if isinstance(s.engine.tools, AgentTools):
        s.engine.tools.approvals.policy = picked  # type: ignore[assignment]
    return Say(f"Approval policy: {picked} ({APPROVALS[picked]})")


class SandboxNeeds(HasEngine, HasStatus, Protocol):
    pass


async def choose_sandbox(s: SandboxNeeds, arg: str = "") -> Result:
    tools = s.engine.tools
    if not isinstance(tools, AgentTools) or not tools.settings.shell:
        return Say("No shell tool in this session: there is no sandbox to set")

    async def pick(mode: str) -> Result:
        # The shell tool reads the mode at each command; MCP servers already started keep theirs.
        tools.sandbox.mode = mode  # type: ignore[assignment]
        s.engine.settings.sandbox = mode  # type: ignore[assignment]
        s.status.show_sandbox(tools.sandbox.describe())
        return Say(f"Sandbox: {tools.sandbox.describe()}, from the next command on")

    return await _pick(f"Sandbox for commands (now: {tools.sandbox.describe()})", SANDBOXES, tools.sandbox.mode,
                       arg.strip(), pick)


async def choose_export(s: HasEngine, arg: str = "") -> Result:
    return await _pick("Export the session as", FORMATS, None, arg.strip().lower(), partial(export, s))


async def export(s: HasEngine, fmt: str) -> Result:
    """The session file written beside itself as Markdown or JSON."""
    from rivulet.app.export import export_session

    writer = s.engine.writer
    if writer is None or writer.path is None:
        return Say("Nothing to export yet: the session has no message")
    try:
        out = export_session(writer.path, fmt)
    except (OSError, RivuletError) as exc:
        return Say(f"Export failed: {exc}", "error")
    return Say(f"Exported to {out}")


class CopyNeeds(HasEngine, HasClipboard, Protocol):
    pass


def last_answer(s: HasEngine) -> str:
    return copying.last_answer(s.engine.conversation.history)


async def copy(s: HasClipboard, text: str, what: str) -> Result:
    return copying.copy_text(s.clipboard, text, what)


async def choose_copy(s: CopyNeeds, arg: str = "") -> Result:
    """The last answer, or one of its code blocks (`/copy 2`: the second block)."""
    entries = copying.copyables(last_answer(s))
    if not entries:
        return Say("Nothing to copy yet: no answer")

    async def pick(n: str) -> Result:
        return await copy(s, entries[int(n)].text, entries[int(n)].what)

    arg = arg.strip()
    if arg:
        if not arg.isdigit() or not 1 <= int(arg) < len(entries):
            return Say(f"/copy N: N is a code block of the last answer, 1 to {len(entries) - 1}", "warning")
        return await pick(arg)
    if len(entries) == 1:
        return await pick("0")
    return Choose("Copy", [Option(str(n), e.name, e.help) for n, e in enumerate(entries)], pick)
