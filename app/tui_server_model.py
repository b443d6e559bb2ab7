"""The chat's model list, asked after its first frame (issue 42.2, B): the context windows
the server reports, and, for a local server with no model set, its own model
(core/server_model.py). A slow server (up to its timeout) never holds up the chat: the
composer works at once, and the header, the status line and the next request switch to
the server's model when its answer comes (a message sent before then names the default,
which llama-server ignores; the switch is recorded in the session as /model's is)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.app.commands.model import refresh_model_status
from rivulet.core.errors import RivuletError
from rivulet.core.protocol.models import fetch_models
from rivulet.core.server_model import WHY, pick, wants_server_model
from rivulet.core.turn import bus as b
from rivulet.widgets.safe import safe_text

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp

LIST_TIMEOUT = 10.0  # seconds: the windows were asked with this before; a local model list is at once


async def learn_models(app: RivuletApp) -> None:
    """One `GET /models`: the windows learned, and the server's one model taken when the
    user set none (a resumed session goes on with its own model)."""
    from rivulet.app.tui_start import banner

    services = app.services
    engine = services.engine
    settings = engine.settings
    own_model = wants_server_model(settings) and engine.session is None and not app.demo
    if settings.context_window and not own_model:
        return
    try:
        found = await fetch_models(settings, timeout=LIST_TIMEOUT)
    except RivuletError:
        return  # not there, or no list: the table, the setting and the default stand
    if not settings.context_window:
        engine.windows.learn(found)
    if own_model:
        model, note = pick(settings.model, [m.id for m in found])
        if model is not None and model != settings.model:
            engine.set_model(model)
            settings.applied["model"] = WHY
            app.chat.banner.update(safe_text(banner(app)[0]))
        if note is not None:
            app.bus.publish(b.Notice(note))
    refresh_model_status(services)
