"""`rivulet replay FILE`: the chat UI playing a recorded stream, no server.

The recording is played through the real state machine, history and screen; its
calls are shown as recorded and not run (core/turn/replay_tools.py), and the turn
ends where the recording does, so a replay never fails at its own end."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp


def replay_app(path: Path, *, speed: float = 1.0) -> RivuletApp:
    """The app for a replay of `path`. Raises OSError, ValueError or a RivuletError
    when the file cannot be read as a recording."""
    from rivulet.app.tui import RivuletApp
    from rivulet.core.config import Settings
    from rivulet.core.protocol.context_window import NoWindows
    from rivulet.core.protocol.replay import ReplayTransport
    from rivulet.core.turn.replay_tools import ReplayTools

    transport = ReplayTransport(path, speed=speed)
    count = len(transport.recordings)
    settings = Settings(base_url="http://replay.invalid/v1", model=f"replay of {path.name}",
                        max_retries=0, max_follow_ups=max(0, count - 1), save_sessions=False)
    app = RivuletApp(settings, transport, tools=ReplayTools(transport), replay=path.name)
    app.windows = NoWindows()  # no model: no context left to show
    return app
