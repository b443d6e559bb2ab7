"""The plain chat: the engine (core/engine.py: transport, tools, MCP servers, session file,
hooks), as the full-screen chat and exec use it, with a loop of lines around it. Each
message is one `submit`; Ctrl-C is `interrupt` (the conversation records it, as the chat's
Esc does); Ctrl-D or /quit leaves, and the last line says how to resume."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rivulet.app.boot import fail as _fail
from rivulet.app.commands.services import Services
from rivulet.app.plain.commands import QUIT, handle, show
from rivulet.app.plain.printer import PlainPrinter
from rivulet.app.plain.services import (
    KEYS,
    RESUMED_SHOWN,
    PlainNotify,
    PlainStatus,
    PlainTranscript,
    PlainTurns,
    osc52,
)
from rivulet.core.errors import ConfigError, RivuletError
from rivulet.core.prompts.shell_context import ShellContext
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.app.commands.command import Command
    from rivulet.app.plain.reader import LineReader
    from rivulet.core.config import Settings
    from rivulet.core.engine import Engine
    from rivulet.core.tools.approval import ApprovalRequest, Approver, Decision
    from rivulet.core.tools.router import AgentTools
    from rivulet.core.turn.bus import EventBus
    from rivulet.core.turn.conversation import Conversation


@dataclass
class PlainChat:
    engine: Engine
    printer: PlainPrinter
    reader: LineReader
    server: str
    context: ShellContext = field(default_factory=ShellContext)
    images: list[Any] = field(default_factory=list)  # --image files, sent with the first message
    # A question on the terminal (a choice list's number, undo's y/N); "" when none can be asked.
    ask: Callable[[str], Awaitable[str]] = field(default_factory=lambda: _ask_tty if _has_terminal() else _no_answer)
    args: argparse.Namespace | None = None  # the command line, for /profile's reload
    services: Services = field(init=False)

    def __post_init__(self) -> None:
        tools = self.engine.agent_tools
        # What the commands of the registry are given (app/commands/services.py), never this chat.
        self.services = Services(
            engine=self.engine, notify=PlainNotify(self.printer), status=PlainStatus(self.printer, self.engine),
            turns=PlainTurns(self.engine, lambda result: show(self, result)), transcript=PlainTranscript(self.printer),
            clipboard=osc52, keys=KEYS, context=self.context, workspace=tools.workspace if tools is not None else None,
            args=self.args)

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    @property
    def conversation(self) -> Conversation:
        return self.engine.conversation

    @property
    def tools(self) -> AgentTools:
        tools: AgentTools | None = self.engine.agent_tools
        assert tools is not None  # plain mode always has the agent's tools
        return tools

    @property
    def bus(self) -> EventBus:
        return self.engine.bus

    @property
    def writer(self) -> Any:
        return self.engine.writer

    def commands(self) -> list[Command]:
        """The chat's commands (app/commands/registry.py): the same list, the same /help."""
        from rivulet.app.commands.registry import slash_commands

        return slash_commands(self.services)

    async def loop(self) -> int:
        self.commands()  # what was skipped or renamed is said before the first prompt
        while True:
            text = await self.reader.read()
            if text is None:
                return 0
            if not text.strip():
                continue
            what = await handle(self, text)
            if what is QUIT:
                return 0
            if isinstance(what, str) and what.strip():
                await self.turn(self.context.take(what))

    async def turn(self, prompt: str) -> None:
        images, self.images = self.images, []
        task = asyncio.ensure_future(self.engine.submit(prompt, images))
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self.engine.interrupt)  # Ctrl-C stops the turn, not rivulet
        try:
            await task
        except RivuletError:
            pass  # published as ErrorOccurred: the printer said it
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
        finally:
            loop.remove_signal_handler(signal.SIGINT)  # the prompt's own Ctrl-C again
            await self.bus.drain()
            self.printer.flush()


def run_plain_command(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(run_plain(args))
    except KeyboardInterrupt:
        print("\nrivulet: interrupted", file=sys.stderr)
        return 130


async def run_plain(args: argparse.Namespace) -> int:
    from rivulet.app.boot import BootError, cli_images, settings_for
    from rivulet.app.plain.reader import LineReader
    from rivulet.app.plain.resume import resumed_session
    from rivulet.core.assembly import FrontEnd, open_conversation, prepare
    from rivulet.core.store.prompt_history import PromptHistory, history_file
    from rivulet.core.tools.approval_event import Answering
    from rivulet.core.turn.bus import EventBus, Notice

    bus = EventBus()
    printer = PlainPrinter()
    bus.subscribe(printer)
    try:
        settings, demo = settings_for(args, say=_say)
        ground = prepare(settings, _say)  # the tools, the workspace recovered first, the tables read
        ground.session, ground.writer = session, writer = resumed_session(args, settings)
        images = cli_images(args, settings)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    except BootError as exc:
        return _fail(exc.message, exc.code)
    except (OSError, RivuletError) as exc:
        return _fail(getattr(exc, "message", str(exc)))
    tools_settings = ground.tool_settings
    assert tools_settings is not None  # (prepare made them)
    # The same assembly as the chat and exec: transport, tools, servers, session file, hooks;
    # approval questions asked inline (declined, and said, with no terminal to ask on).
    ask = _ask(bus, printer) if _has_terminal() else _declines(printer)
    front = FrontEnd(name="plain", bus=bus, asks=Answering(ask),
                     servers=lambda message, severity: bus.publish(Notice(message)) if severity == "error" else None)
    engine = open_conversation(ground, front)
    server = settings.endpoint.safe
    printer.line(f"rivulet · {tools_settings.workspace} · {settings.model} · {server}", "bold")
    printer.line("/help lists the commands · Alt+Enter: new line · Ctrl-C: stop a turn · Ctrl-D: quit", "dim")
    if ground.hooks is not None and ground.hooks.ignored:
        printer.line(f"note: {ground.hooks.ignored}", "yellow")
    for refused in engine.conversation.project.refused:
        printer.line(f"note: AGENTS.md: {refused}", "yellow")
    if session is not None:
        from rivulet.app.plain.resume import print_resumed

        print_resumed(printer, session, RESUMED_SHOWN)
    engine.start()
    prompts = PromptHistory(history_file(tools_settings.workspace)) if settings.save_sessions else None
    chat = PlainChat(engine, printer, LineReader(prompts), server, images=images, args=args)
    if images:
        printer.line(f"{len(images)} image(s) attached to your first message", "dim")
    try:
        code = await chat.loop()
    finally:
        await engine.aclose()  # the session_end hooks, the servers, the transport, the session file
        await bus.drain()
        printer.flush()
        if demo is not None:
            demo.stop()
    await bus.close()
    path = writer.path if writer is not None else None
    unsaved = writer.closing_note() if writer is not None else None
    if unsaved:
        print(f"rivulet: warning: {sanitize(unsaved)}", file=sys.stderr)
    if path is not None:
        from rivulet.core.command_name import command_name

        print(f"To resume this session: {command_name()} resume {path.stem} --plain")
    return code


def _say(text: str) -> None:
    print(f"rivulet: {text}", file=sys.stderr)


def _has_terminal() -> bool:
    try:
        with open("/dev/tty"):
            return True
    except OSError:
        return False


async def _ask_tty(prompt: str) -> str:
    from rivulet.app.tty_prompt import ask_tty

    return await ask_tty(prompt)


async def _no_answer(prompt: str) -> str:
    return ""


def _ask(bus: EventBus, printer: PlainPrinter) -> Approver:
    async def ask(request: ApprovalRequest) -> Decision:
        """exec's question, inline: the call is printed above it first."""
        from rivulet.app.exec_prompt import question_text
        from rivulet.app.tty_answer import ask_answer  # what was typed during the turn never answers

        await bus.drain()
        printer.flush()
        return await ask_answer(question_text(request))

    return ask


def _declines(printer: PlainPrinter) -> Approver:
    async def no(request: ApprovalRequest) -> Decision:
        from rivulet.core.tools.approval import Decision

        printer.line(f"declined (no terminal to ask on): {request.kind}: {request.title}", "yellow")
        return Decision.NO

    return no
