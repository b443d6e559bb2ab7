"""The chat's start: the banner and theme from what is known, the boot in a thread (when
the settings are still to be validated), and the engine built once they are, which
moves the App from `Starting` to `Running` (app/chat_phase.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from rivulet.app import DEMO_MODEL
from rivulet.app.chat_phase import Running
from rivulet.app.keymap import apply_keymap
from rivulet.app.paste_guard import install as install_paste_guard
from rivulet.app.styles_cache_fix import install as install_styles_cache_fix
from rivulet.core.config_sources import save_setting
from rivulet.core.errors import ConfigError, one_line
from rivulet.core.server_endpoint import safe_url
from rivulet.core.turn import bus as b
from rivulet.themes import THEMES
from rivulet.widgets.safe import safe_text

if TYPE_CHECKING:
    from rivulet.app.boot import Ready
    from rivulet.app.tui import RivuletApp
    from rivulet.core.config import Settings
    from rivulet.widgets.frozen_entries import Record


def patch_textual() -> None:
    """Two fixes to Textual, each installed once: pasted text never becomes key presses
    (app/paste_guard.py), and removed widgets' lines are freed (app/styles_cache_fix.py)."""
    install_paste_guard()
    install_styles_cache_fix()


def banner(app: RivuletApp) -> tuple[str, str]:
    """(the banner's text, the model) from the settings, or from the view until then."""
    if app.settings is not None:
        base_url, model = app.settings.base_url, app.settings.model
    else:
        view = app.starting.view
        base_url, model = view.base_url, DEMO_MODEL if app.demo else view.model
    where = "DEMO · scripted local server, no model" if app.demo else safe_url(base_url)
    if app.replay:
        where = "REPLAY · a recorded stream, no server"
    return f"rivulet · {where} · {model}", model


def apply_settings_view(app: RivuletApp) -> None:
    """Keymap and theme, from the settings (or the view until they are validated)."""
    if app.settings is not None:
        keymap, theme = app.settings.keymap, app.settings.theme
    else:
        keymap, theme = app.starting.view.keymap, app.starting.view.theme
    apply_keymap(app, keymap)
    if theme not in app.available_themes:  # said, not silently replaced (issue 25)
        app.notify(f"Unknown theme {theme!r}: using {THEMES[0].name} "
                   f"(one of {', '.join(t.name for t in THEMES)})", severity="warning")
    app.theme = theme if theme in app.available_themes else THEMES[0].name


def mount(app: RivuletApp) -> None:
    """The chat screen is up: bind its widgets, apply the theme, then start the engine, or
    the boot in a thread (the keys typed meanwhile are held: app/tui_held_input.py)."""
    from textual.widgets import Markdown

    from rivulet.app.chat_screen import DEMO_WELCOME

    app.chat.bind(app.screen)  # the ChatScreen: the default screen, the only one yet
    # The widgets as tests read them (modules use app.chat: tests/app/test_thin_app_rules.py).
    app._transcript, app._status, app._composer = app.chat.transcript, app.chat.status.line, app.chat.composer
    assert app.chat.transcript.hint is not None
    app.chat.transcript.hint.display = False
    app.chat.search.display = False
    app.queue.attach(app.chat.composer)
    for theme in THEMES:
        app.register_theme(theme)
    apply_settings_view(app)
    app.themes_ready = True  # from now on a theme change is the user's, and remembered
    app.chat.composer.focus()
    if app.demo and app.session is None:
        app.chat.transcript.mount(Markdown(DEMO_WELCOME, classes="entry", id="welcome"))
    if app.settings is not None:
        start(app)
    else:
        app.held_input = []  # keys and pastes wait until the chat has started
        app.call_after_refresh(app.run_worker, boot_in_thread(app), group="boot", exit_on_error=False)


def remember_theme(app: RivuletApp, name: str) -> None:
    """A theme the user picked is saved in the config (not the settings' own, at start)."""
    settings = app.settings
    if app.remember_theme and app.themes_ready and settings is not None and name != settings.theme:
        try:
            save_setting("theme", name)
            settings.theme = name
        except ConfigError as exc:
            app.notify(exc.message, severity="warning")


async def stop(app: RivuletApp) -> None:
    """The app is going: every server the engine started, the transport, the session file."""
    if isinstance(app.phase, Running):
        await app.phase.engine.aclose()  # nothing survives the app
    else:
        if app.phase.transport is not None:
            await app.phase.transport.aclose()
        if app.phase.writer is not None:
            app.phase.writer.close()
    await app.bus.close()


def warm_up() -> None:
    """Import, off the UI thread (the boot's, or before the app runs), what the first turn and
    the first commands need: done on the UI thread they would hold up the keys typed meanwhile."""
    import rivulet.app.chat_front
    import rivulet.app.commands.registry
    import rivulet.app.mcp.wiring
    import rivulet.core.assembly
    import rivulet.core.engine
    import rivulet.core.protocol.payloads
    import rivulet.core.tools.approval
    import rivulet.core.tools.approval_event
    import rivulet.core.tools.mcp_wiring
    import rivulet.core.tools.router
    import rivulet.core.turn.conversation
    import rivulet.widgets.dialogs
    import rivulet.widgets.inspector  # noqa: F401
    from rivulet.core.sanitize import load_tables

    load_tables()  # what the first text that is not all ASCII needs (the `regex` library's tables)


def adopt(app: RivuletApp, ready: Ready) -> None:
    """Take what `boot.prepare` made (before the app runs, or in the boot thread)."""
    warm_up()  # (made already in the boot thread: then nothing is left to import)
    app.ready = ready
    app.starting.adopt(ready)
    app.demo = ready.demo is not None  # as the validated settings decided


async def boot_in_thread(app: RivuletApp) -> None:
    """Validate the settings and build what a turn needs, off the UI thread; then start."""
    from rivulet.app.boot import BootError
    from rivulet.app.tui_held_input import InputReleased

    boot = app.starting.boot
    assert boot is not None
    records: list[Record] | None = None

    def run() -> Ready:
        nonlocal records
        ready = app.ready = boot()  # set here too: a quit during the boot still stops its demo server
        warm_up()
        if ready.session is not None:  # a resume: its transcript as data, a pass over all of it, made here
            from rivulet.app.resume import transcript_records

            records = transcript_records(ready.session.history.entries)
        return ready

    try:
        ready = await asyncio.to_thread(run)
    except BootError as exc:
        app.boot_error = exc
        app.exit(return_code=exc.code)
        return
    except Exception as exc:  # a bug: still one line and an exit, never a chat that cannot start
        logging.getLogger(__name__).debug("the chat could not start", exc_info=True)
        app.boot_error = BootError(f"the chat could not start: {one_line(str(exc)) or type(exc).__name__}")
        app.exit(return_code=1)
        return
    adopt(app, ready)
    text, model = banner(app)
    app.chat.banner.update(safe_text(text))  # the palette may be the screen by now
    app.chat.status.set(model=model)
    app.themes_ready = False  # the settings' own theme is not a change to remember
    apply_settings_view(app)
    app.themes_ready = True
    start(app, records)
    # Behind every key that came before it, and behind a resumed transcript (scheduled by
    # `start`): a message sent meanwhile comes after the session's entries.
    app.call_after_refresh(app.post_message, InputReleased())


def start(app: RivuletApp, records: list[Record] | None = None) -> None:
    """Everything that needs the settings: the engine (conversation, tools, MCP), ticks."""
    from rivulet.app.chat_front import open_for_chat
    from rivulet.app.commands.model import refresh_model_status
    from rivulet.app.commands.registry import slash_commands
    from rivulet.app.commands.slash import SlashCompletions
    from rivulet.app.tui_services import services_for
    from rivulet.core.tools.router import AgentTools

    starting = app.starting
    settings = starting.settings
    assert settings is not None and starting.transport is not None
    app.frame_interval = app.frame_interval or 1 / settings.stream_fps
    engine = open_for_chat(app.bus, app.bridge.publish, app.notify, starting, app.windows)
    app.phase = Running(engine, starting.tool_settings)
    app.windows = engine.windows
    app.services = services = services_for(app, engine)  # what the commands are given
    engine.start()  # the MCP servers, in the background: the UI does not wait for them
    if starting.prompts is not None:
        app.chat.composer.load_history(starting.prompts)
    app.setup_attachments(starting.images)
    if isinstance(engine.tools, AgentTools) and engine.tools.settings.shell:
        app.chat.status.set(sandbox=engine.tools.sandbox.describe())
    if engine.session is not None:
        from rivulet.app.resume import rebuild_transcript

        workspace = starting.tool_settings.workspace if starting.tool_settings is not None else None
        app.call_after_refresh(rebuild_transcript, app.chat, app.commits, engine.session, workspace, records)
        if starting.turn is not None:  # (after the entries: the callbacks run in turn, each awaited)
            app.call_after_refresh(services.transcript.show_turn, starting.turn)
        if engine.session.background:  # a background response the last run left running
            from rivulet.app.background_resume import reattach_later

            app.call_after_refresh(reattach_later, services)
    if app.replay:
        app.call_after_refresh(app.run_turn, f"(replay of {app.replay})")
    # Both ticks run only while needed (a live pane; a running turn): idle costs nothing.
    app.chat.frame_timer = app.frame_timer = app.set_interval(app.frame_interval, app.live_panes.frame, pause=True)
    app.chat.second_timer = app.second_timer = app.set_interval(1.0, app.turn_status.second, pause=True)
    app.chat.composer.add_completion_provider(SlashCompletions(lambda: slash_commands(services)))
    if not (app.demo or app.replay):  # a server's stream-shape notes: once per server (issue 42.7)
        from rivulet.core.server_notes import SeenNotes

        app.notes.seen = SeenNotes(settings.base_url)
    refresh_model_status(services)
    if not app.replay:
        contact_server(app, settings)


def contact_server(app: RivuletApp, settings: Settings) -> None:
    """What the chat asks the server by itself: its model list (the context windows, and a
    local server's own model: app/tui_server_model.py), after the first frame, and, for a
    local server met for the first time, the doctor's probes in the background.
    A paid or remote server hears nothing before the user sends something: the model
    list waits for the first turn, and it is never probed unasked (core/capabilities.py)."""
    from rivulet.app.tui_server_model import learn_models
    from rivulet.core.capabilities import is_local_server

    if not (app.demo or is_local_server(settings)):
        def first_turn(event: b.BusEvent) -> None:
            unsubscribe()
            app.run_worker(learn_models(app), group="models", exit_on_error=False)

        unsubscribe = app.bus.subscribe(first_turn, b.TurnStarted)
        return
    app.run_worker(learn_models(app), group="models", exit_on_error=False)
    if not app.demo:  # a server met for the first time: probed once, in the background
        from rivulet.app.capability_probe import probe_in_background

        def busy() -> bool:
            return bool(app.turn_worker and app.turn_worker.is_running)

        app.run_worker(probe_in_background(settings, lambda text: app.bus.publish(b.Notice(text)), busy),
                       group="probe", exit_on_error=False)
