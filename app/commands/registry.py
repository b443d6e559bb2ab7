"""rivulet's own commands: one registry for every front end. The chat's command palette and
its composer's `/`, and plain mode's lines, read the same list, so none of them disagrees
about what exists. A command answers with a result (app/commands/results.py) that each
front end renders its own way (app/tui_commands.py, app/plain/commands.py)."""

from __future__ import annotations

from functools import partial

from rivulet.app import copying
from rivulet.app.commands import conversation as conv
from rivulet.app.commands import model, profile, search, undo
from rivulet.app.commands import responses_api as api
from rivulet.app.commands import settings as sets
from rivulet.app.commands.command import Command, Run
from rivulet.app.commands.own_prompts import own_commands
from rivulet.app.commands.results import Lines, Open, Quit, Result, View
from rivulet.app.commands.services import HasLooks, Services
from rivulet.app.commands.status import StatusNeeds, help_lines, status_lines
from rivulet.themes import THEMES


def _open(view: View) -> Run:
    async def run(s: object, arg: str = "") -> Result:
        return Open(view)

    return run


async def _status(s: StatusNeeds, arg: str = "") -> Result:
    return Lines(status_lines(s), title="Status")


async def _help(s: Services, arg: str = "") -> Result:
    return Lines(help_lines(slash_commands(s), s.keys), title="Commands")


async def _quit(s: object, arg: str = "") -> Result:
    return Quit()


BUILTIN = [
    Command("Switch model", "Pick the model for the next requests (GET /models)", model.choose_model, "model", "NAME"),
    Command("Reasoning effort", "minimal, low, medium or high, for the next requests", model.choose_effort, "effort",
            "LEVEL"),
    Command("New conversation", "Start over; the current session stays saved", conv.new_conversation, "new"),
    Command("Compact the conversation", "Replace older history with a summary, to free context",
            conv.start_compaction, "compact"),
    Command("Resume a session", "Open a saved session (a picker, or /resume ID)", conv.resume, "resume", "ID"),
    Command("List sessions", "The saved sessions started here (/sessions all: every one)", conv.list_saved,
            "sessions", "all"),
    Command("Search sessions", "The saved sessions that said QUERY, newest first; pick one to resume it",
            search.search_sessions, "search", "QUERY"),
    Command("Status", "Model, effort, server, session, tokens, context, sandbox, AGENTS.md", _status, "status"),
    Command("Turn diff", "Show everything the turn changed in the workspace", _open("turn_diff"), "diff"),
    Command("Undo files", "Put back the files the last turn changed (shows the diff, asks)", undo.undo, "undo", "N"),
    Command("Redo files", "Apply again what /undo put back", undo.redo, "redo", "N"),
    Command("Transcript", "The whole conversation as plain text in $PAGER (ctrl+s)", _open("transcript"),
            "transcript"),
    Command("History inspector", "Every committed item, filterable, with its raw JSON", _open("inspect"), "inspect"),
    Command("Copy…", "The last answer, or one of its code blocks, to the clipboard", sets.choose_copy, "copy", "N"),
    Command("Export session…", "Write the session beside its file, as Markdown or JSON", sets.choose_export,
            "export", "md|json"),
    Command("Theme…", "Pick a theme (remembered)", sets.choose_theme, "theme", "NAME"),
    Command("Approval policy", "When tools ask before they run (this run only)", sets.choose_approval, "approval",
            "POLICY"),
    Command("Sandbox", "Where shell commands run: workspace-write, read-only, off", sets.choose_sandbox, "sandbox",
            "MODE"),
    Command("Switch profile", "The config's [profiles.NAME]: pick one for the next turn", profile.choose_profile,
            "profile", "NAME"),
    Command("MCP servers", "The MCP servers: their state, tools and errors", _open("mcp"), "mcp"),
    # The Responses API's own (issue 27)
    Command("Background responses", "Requests outlive a cut or a quit (/background on|off)", api.toggle_background,
            "background", "on|off"),
    Command("Cancel the response", "Stop the turn; a background response is cancelled on the server", api.cancel,
            "cancel"),
    Command("Hosted tools", "The server's tools: list, or /tools NAME to switch one", api.toggle_tools, "tools",
            "NAME"),
    Command("Cost", "Tokens, dollars and speed of the last turn and of this run", api.show_cost, "cost"),
    Command("Verbosity", "text.verbosity for the next requests: low, medium, high", api.set_verbosity, "verbosity",
            "LEVEL"),
    Command("Service tier", "service_tier for the next requests: auto, default, flex, priority", api.set_tier, "tier",
            "TIER"),
    Command("Help", "Every command, with what it does", _help, "help"),
    Command("Quit", "Leave rivulet (the session is saved)", _quit, "quit"),
]


def slash_commands(s: Services) -> list[Command]:
    """The commands a `/word` runs, in the order the `/` popup and /help list them: the
    built-in ones, then /init and the user's saved prompts (app/commands/own_prompts.py)."""
    return BUILTIN + own_commands(s, {c.slash for c in BUILTIN if c.slash})


def _theme(name: str) -> Run:
    async def run(s: HasLooks, arg: str = "") -> Result:
        return await sets.choose_theme(s, name)

    return run


def palette_commands(s: Services) -> list[Command]:
    """Every command the chat's palette lists: the slash commands, then its own (some
    depend on the state, e.g. an answer to copy)."""
    cmds = slash_commands(s)
    cmds += [Command(f"Theme: {t.name}", f"Switch to the {t.name} theme (remembered)", _theme(t.name))
             for t in THEMES]
    cmds += [
        Command("Toggle raw reasoning", "Show or hide raw reasoning text when the server sends it",
                _open("raw_reasoning")),
        Command("Interrupt turn", "Stop the running turn", _open("interrupt")),
        Command("Find in transcript", "Search the conversation (ctrl+f)", _open("find")),
    ]
    for entry in copying.copyables(sets.last_answer(s)):
        cmds.append(Command(entry.name, entry.help, _copy(entry)))
    if s.engine.writer is not None:
        cmds.append(Command("Export session as Markdown", "Write the session beside its file, as .md",
                            partial(_export, "md")))
        cmds.append(Command("Export session as JSON", "Write the session beside its file, as .json",
                            partial(_export, "json")))
    return cmds


def _copy(entry: copying.Copyable) -> Run:
    async def run(s: sets.CopyNeeds, arg: str = "") -> Result:
        return await sets.copy(s, entry.text, entry.what)

    return run


async def _export(fmt: str, s: Services, arg: str = "") -> Result:
    return await sets.export(s, fmt)
