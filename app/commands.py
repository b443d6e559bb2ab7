"""rivulet's own commands: one registry that the command palette and the composer's
slash commands both read, so the two never disagree about what exists."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from rivulet.app.copying import copy_commands
from rivulet.themes import THEMES

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp


@dataclass(frozen=True)
class Command:
    title: str  # as the palette shows it
    help: str
    run: Callable[[], Any]
    slash: str | None = None  # the `/word` that runs it, if any


def app_commands(app: RivuletApp) -> list[Command]:
    """Every command available now (some depend on the app's state, e.g. a session file)."""
    cmds = [Command(f"Theme: {t.name}", f"Switch to the {t.name} theme (remembered)", partial(app.set_theme, t.name))
            for t in THEMES]
    cmds += [
        Command("Toggle raw reasoning", "Show or hide raw reasoning text when the server sends it",
                app.action_toggle_raw_reasoning),
        Command("Interrupt turn", "Stop the running turn", app.action_interrupt),
        Command("Turn diff", "Show everything the turn changed in the workspace", app.action_turn_diff, "diff"),
        Command("History inspector", "Every committed item, filterable, with its raw JSON", app.action_inspect,
                "inspect"),
        Command("Find in transcript", "Search the conversation (ctrl+f)", app.action_find),
    ]
    cmds += [Command(name, help_text, run) for name, help_text, run in copy_commands(app, app.last_answer())]
    if app.session_writer is not None:
        cmds.append(Command("Export session as Markdown", "Write the session beside its file, as .md",
                            partial(app.export_session, "md")))
        cmds.append(Command("Export session as JSON", "Write the session beside its file, as .json",
                            partial(app.export_session, "json")))
    return cmds
