"""/theme, /approval, /sandbox, /export and /copy: a picker when no argument is
given, the value at once when one is.

/theme is remembered in the config file (as the palette's theme entries are);
/approval and /sandbox hold for this run only: a policy that asks less is a choice
for now, not for every later session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.app.copying import copy_commands
from rivulet.core.sanitize import sanitize
from rivulet.core.tools.router import AgentTools
from rivulet.themes import THEMES
from rivulet.widgets.choice import Choice, ChoiceScreen

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext

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


async def _pick(app: CommandContext, title: str, options: dict[str, str], current: str | None, arg: str) -> str | None:
    """The argument if it is one of `options`, else the user's pick (None: cancelled)."""
    if arg:
        if arg in options:
            return arg
        app.notify(f"{title}: {sanitize(arg)!r} is not one of {', '.join(options)}", severity="warning",
                   markup=False)
        return None
    choices = [Choice(value, help=text) for value, text in options.items()]
    picked: str | None = await app.push_screen_wait(ChoiceScreen(title, choices, current=current))
    return picked


async def choose_theme(app: CommandContext, arg: str = "") -> None:
    names = {t.name: "dark" if t.dark else "light" for t in THEMES}
    picked = await _pick(app, "Theme", names, app.theme, arg.strip())
    if picked:
        app.set_theme(picked)


async def choose_approval(app: CommandContext, arg: str = "") -> None:
    picked = await _pick(app, "Approval policy (this run)", APPROVALS, app.running.settings.approval, arg.strip())
    if not picked:
        return
    app.running.settings.approval = picked  # type: ignore[assignment]
    if isinstance(app.tools, AgentTools):
        app.tools.approvals.policy = picked  # type: ignore[assignment]
    app.notify(f"Approval policy: {picked} ({APPROVALS[picked]})", markup=False)


async def choose_sandbox(app: CommandContext, arg: str = "") -> None:
    tools = app.tools
    if not isinstance(tools, AgentTools) or not tools.settings.shell:
        app.notify("No shell tool in this session: there is no sandbox to set", markup=False)
        return
    picked = await _pick(app, f"Sandbox for commands (now: {tools.sandbox.describe()})", SANDBOXES,
                         tools.sandbox.mode, arg.strip())
    if not picked:
        return
    # The shell tool reads the mode at each command; MCP servers already started keep theirs.
    tools.sandbox.mode = picked  # type: ignore[assignment]
    app.running.settings.sandbox = picked  # type: ignore[assignment]
    app.chat.status.set(sandbox=tools.sandbox.describe())
    app.notify(f"Sandbox: {tools.sandbox.describe()}, from the next command on", markup=False)


async def choose_export(app: CommandContext, arg: str = "") -> None:
    picked = await _pick(app, "Export the session as", FORMATS, None, arg.strip().lower())
    if picked:
        app.export_session(picked)


async def choose_copy(app: CommandContext, arg: str = "") -> None:
    """The last answer, or one of its code blocks (`/copy 2`: the second block)."""
    entries = copy_commands(app, app.last_answer())
    if not entries:
        app.notify("Nothing to copy yet: no answer", markup=False)
        return
    arg = arg.strip()
    if arg:
        if not arg.isdigit() or not 1 <= int(arg) < len(entries):
            app.notify(f"/copy N: N is a code block of the last answer, 1 to {len(entries) - 1}",
                       severity="warning", markup=False)
            return
        entries[int(arg)][2]()
        return
    if len(entries) == 1:
        entries[0][2]()
        return
    choices = [Choice(str(n), name, help_text) for n, (name, help_text, _) in enumerate(entries)]
    picked = await app.push_screen_wait(ChoiceScreen("Copy", choices))
    if picked is not None:
        entries[int(picked)][2]()
