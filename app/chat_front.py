"""The chat as a front end of the one assembly (core/assembly.py): what it hands over (its
bus, its bridge as the asker of approval questions, toasts for the MCP servers) and what
it has made before (the boot's transport, session and tools), and the engine it gets.

The approval questions reach the bridge as every other event does, in the order published,
but through the asker attached to the engine: with the chat attached, a question is asked
(the dialog of app/handlers/approvals.py), never declined for want of a front end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core.errors import ConfigError
from rivulet.core.tools.approval_event import ApprovalRequested
from rivulet.core.turn.bus import BusEvent, Notice, TurnCompleted

if TYPE_CHECKING:
    from collections.abc import Callable

    from rivulet.app.chat_phase import Starting
    from rivulet.core.assembly import Ground
    from rivulet.core.engine import Engine
    from rivulet.core.protocol.context_window import ModelWindows
    from rivulet.core.turn.bus import EventBus

    Toast = Callable[..., None]  # the App's notify


def open_for_chat(bus: EventBus, bridge: Callable[[BusEvent], None], toast: Toast, starting: Starting,
                  windows: ModelWindows | None) -> Engine:
    """The chat's engine over what its start made (or was given: a replay, a test). `bridge`
    takes the bus's events to the screen, the approval questions among them; `toast` says a
    server's or a table's trouble."""
    from rivulet.app.mcp.wiring import remember_servers, remember_tools
    from rivulet.core.assembly import FrontEnd, Ground, open_conversation

    assert starting.settings is not None
    bus.subscribe(bridge, when=_not_a_question)  # the questions come through the asker
    front = FrontEnd(name="chat", bus=bus, asks=bridge,
                     servers=lambda text, severity: toast(text, severity=severity, timeout=8),
                     servers_hint="more: ctrl+p, MCP servers", on_tools=remember_tools)
    ground = Ground(settings=starting.settings, tool_settings=starting.tool_settings, tools=starting.tools,
                    transport=starting.transport, notices=starting.notices, session=starting.session,
                    writer=starting.writer, windows=windows)
    _read_tables(bus, toast, ground)
    remember_servers(ground.mcp_servers or [])
    if ground.hooks is not None and ground.hooks.ignored:
        bus.publish(Notice(ground.hooks.ignored))
    engine = open_conversation(ground, front)
    if starting.settings.save_sessions:
        _index_after_turns(bus, engine)
    return engine


def _index_after_turns(bus: EventBus, engine: Engine) -> None:
    """After each turn, the sessions' search index catches up on a thread of its own (issue 40)."""
    from rivulet.core.store.search_indexer import BackgroundIndexer

    indexer = BackgroundIndexer()

    def turn_done(event: BusEvent) -> None:
        path = engine.writer.path if engine.writer is not None else None
        if path is not None:  # (the session of /new or /resume: the engine's writer now)
            indexer.committed(path)

    bus.subscribe(turn_done, TurnCompleted)


def _not_a_question(event: BusEvent) -> bool:
    return type(event) is not ApprovalRequested


def _read_tables(bus: EventBus, toast: Toast, ground: Ground) -> None:
    """The tables, read again (the boot stopped at a bad one: only settings given directly,
    in tests, get here with one): a bad [mcp_servers] is a toast and no servers, a bad
    [[hooks]] a notice and no hooks."""
    while True:
        try:
            ground.read_tables()
            return
        except ConfigError as exc:
            if ground.mcp_servers is None:
                toast(exc.message, severity="error", timeout=15)
                ground.mcp_servers = []
            else:
                from rivulet.core.hooks.spec import LoadedHooks

                bus.publish(Notice(exc.message))
                ground.hooks = LoadedHooks([])
