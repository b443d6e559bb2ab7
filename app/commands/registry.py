"""rivulet's own commands: one registry that the command palette and the composer's
slash commands both read, so the two never disagree about what exists."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from rivulet.app.commands import conversation as conv_cmds
from rivulet.app.commands import model as model_cmds
from rivulet.app.commands import profile as profile_cmds
from rivulet.app.commands import settings as set_cmds
from rivulet.app.commands import undo as undo_cmds
from rivulet.app.commands.output import show_note
from rivulet.app.commands.responses_api import responses_commands
from rivulet.app.commands.status import help_lines, status_lines
from rivulet.app.copying import copy_commands
from rivulet.themes import THEMES

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext


@dataclass(frozen=True)
class Command:
    title: str  # as the palette shows it
    help: str
    run: Callable[[], Any]
    slash: str | None = None  # the `/word` that runs it, if any
    arg: str | None = None  # what `/word ARG` takes, for /help and the popup (None: no argument)
    run_arg: Callable[[str], Any] | None = None  # runs it with the argument typed after the word


def _background(app: CommandContext, handler: Callable[..., Awaitable[None]], arg: str = "") -> None:
    """Commands that ask (a picker) or wait (the server) run as workers: the UI goes on."""
    app.run_worker(handler(app, arg), group="command", exit_on_error=False)


def _slash(app: CommandContext, title: str, help_text: str, slash: str,
           handler: Callable[..., Awaitable[None]], arg: str | None = None) -> Command:
    return Command(title, help_text, partial(_background, app, handler), slash, arg,
                   partial(_background, app, handler) if arg else None)


async def _status(app: CommandContext, arg: str = "") -> None:
    await show_note(app, status_lines(app), title="Status")


async def _help(app: CommandContext, arg: str = "") -> None:
    await show_note(app, help_lines(app_commands(app)),
                    title="Commands (also in the palette, ctrl+p; Tab or Enter picks from the / list)")


def slash_commands(app: CommandContext) -> list[Command]:
    """The commands a `/word` runs, in the order the `/` popup lists them: the built-in
    ones, then /init and the user's saved prompts (app/commands/own_prompts.py)."""
    from rivulet.app.commands.own_prompts import own_commands

    builtin = _builtin_commands(app)
    return builtin + own_commands(app, {c.slash for c in builtin if c.slash})


def _builtin_commands(app: CommandContext) -> list[Command]:
    return [
        _slash(app, "Switch model", "Pick the model for the next requests (GET /models)", "model",
               model_cmds.choose_model, "NAME"),
        _slash(app, "Reasoning effort", "minimal, low, medium or high, for the next requests", "effort",
               model_cmds.choose_effort, "LEVEL"),
        _slash(app, "New conversation", "Start over; the current session stays saved", "new",
               conv_cmds.new_conversation),
        Command("Compact the conversation", "Replace older history with a summary, to free context",
                partial(conv_cmds.start_compaction, app), "compact"),
        _slash(app, "Resume a session", "Open a saved session (a picker, or /resume ID)", "resume",
               conv_cmds.resume, "ID"),
        _slash(app, "List sessions", "The saved sessions started here (/sessions all: every one)", "sessions",
               conv_cmds.list_saved, "all"),
        _slash(app, "Status", "Model, effort, server, session, tokens, context, sandbox, AGENTS.md", "status",
               _status),
        Command("Turn diff", "Show everything the turn changed in the workspace", app.action_turn_diff, "diff"),
        _slash(app, "Undo files", "Put back the files the last turn changed (shows the diff, asks)", "undo",
               undo_cmds.undo, "N"),
        _slash(app, "Redo files", "Apply again what /undo put back", "redo", undo_cmds.redo, "N"),
        Command("Transcript", "The whole conversation as plain text in $PAGER (ctrl+s)", app.action_transcript,
                "transcript"),
        Command("History inspector", "Every committed item, filterable, with its raw JSON", app.action_inspect,
                "inspect"),
        _slash(app, "Copy…", "The last answer, or one of its code blocks, to the clipboard", "copy",
               set_cmds.choose_copy, "N"),
        _slash(app, "Export session…", "Write the session beside its file, as Markdown or JSON", "export",
               set_cmds.choose_export, "md|json"),
        _slash(app, "Theme…", "Pick a theme (remembered)", "theme", set_cmds.choose_theme, "NAME"),
        _slash(app, "Approval policy", "When tools ask before they run (this run only)", "approval",
               set_cmds.choose_approval, "POLICY"),
        _slash(app, "Sandbox", "Where shell commands run: workspace-write, read-only, off", "sandbox",
               set_cmds.choose_sandbox, "MODE"),
        _slash(app, "Switch profile", "The config's [profiles.NAME]: pick one for the next turn", "profile",
               profile_cmds.choose_profile, "NAME"),
        Command("MCP servers", "The MCP servers: their state, tools and errors", app.action_mcp, "mcp"),
        *responses_commands(app, _slash),
        _slash(app, "Help", "Every command, with what it does", "help", _help),
        Command("Quit", "Leave rivulet (the session is saved)", app.exit, "quit"),
    ]


def app_commands(app: CommandContext) -> list[Command]:
    """Every command available now: the slash commands, then the palette's own
    (some depend on the app's state, e.g. an answer to copy)."""
    cmds = slash_commands(app)
    cmds += [Command(f"Theme: {t.name}", f"Switch to the {t.name} theme (remembered)", partial(app.set_theme, t.name))
             for t in THEMES]
    cmds += [
        Command("Toggle raw reasoning", "Show or hide raw reasoning text when the server sends it",
                app.action_toggle_raw_reasoning),
        Command("Interrupt turn", "Stop the running turn", app.action_interrupt),
        Command("Find in transcript", "Search the conversation (ctrl+f)", app.action_find),
    ]
    cmds += [Command(name, help_text, run) for name, help_text, run in copy_commands(app, app.last_answer())]
    if app.session_writer is not None:
        cmds.append(Command("Export session as Markdown", "Write the session beside its file, as .md",
                            partial(app.export_session, "md")))
        cmds.append(Command("Export session as JSON", "Write the session beside its file, as .json",
                            partial(app.export_session, "json")))
    return cmds
