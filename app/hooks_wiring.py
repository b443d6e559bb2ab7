"""The chat's hooks: made once the conversation exists, session_start fired in the
background (the chat does not wait for it), session_end awaited when the app ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core.errors import ConfigError
from rivulet.core.turn.bus import Notice

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp
    from rivulet.core.hooks.dispatch import Hooks


def hooks_for_app(app: RivuletApp) -> Hooks | None:
    """The hooks wired into the app's conversation and tools (None: none configured,
    or tools given from outside)."""
    from rivulet.core.hooks.wiring import attach, make_hooks

    if app.settings is None or app.tool_settings is None or app.conversation is None:
        return None
    try:
        hooks, ignored = make_hooks(app.settings, app.tool_settings.workspace, app.bus, app.tool_settings.secrets)
    except ConfigError as exc:  # prepare() checked the tables; a late failure is a notice, not a crash
        app.bus.publish(Notice(exc.message))
        return None
    if ignored:
        app.bus.publish(Notice(ignored))
    if not hooks:
        return None
    attach(hooks, app.conversation)
    writer = app.session_writer
    hooks.session_id = lambda: writer.path.stem if writer is not None and writer.path is not None else None
    app.run_worker(hooks.session_start(resumed=app.session is not None), group="hooks", exit_on_error=False)
    return hooks
