"""The model of a local server when the user named none (issue 42.2).

llama.cpp's llama-server (and most local servers) serve one model whatever the request
names: sending and showing rivulet's default (`gpt-5.1-codex`) there is wrong in the
header, /status, the session list, doctor and exec. So, for a local server (a local
preset, or a bare local `--base-url`: capabilities.is_local_server) with no `model` set
anywhere and `probe_servers` on, the server's `GET /models` is asked once: one model
listed is the model; several are none of them (the user picks with /model or --model:
one note says so); no answer leaves the default, as before. exec, plain, doctor and acp
ask before the run (`learn_server_model`); the chat asks after its first frame and
switches when the answer comes (app/tui_server_model.py), never waiting for a slow server.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from rivulet.core.capabilities import is_local_server
from rivulet.core.config import Settings
from rivulet.core.errors import RivuletError

LIST_TIMEOUT = 5.0  # seconds: a local server lists its models at once (or is not there)
WHY = "the one model the server lists (GET /models)"


def wants_server_model(settings: Settings) -> bool:
    return settings.probe_servers and "model" not in settings.explicit and is_local_server(settings)


def pick(current: str, ids: list[str]) -> tuple[str | None, str | None]:
    """(the model to use, the note for the user) from the server's list: its one model,
    or none and a note when it lists several."""
    if len(ids) == 1:
        return ids[0], None
    if len(ids) > 1:
        return None, (f"the server lists {len(ids)} models and none is set: requests name {current}; "
                      "pick one with /model (or --model, or `model` in the config file)")
    return None, None


def choose(settings: Settings, ids: list[str]) -> str | None:
    """Set the model from the server's list; returns the note for the user, if any."""
    model, note = pick(settings.model, ids)
    if model is not None:
        settings.model = model
        settings.applied["model"] = WHY
    return note


def learn_server_model(settings: Settings) -> str | None:
    """Ask the server's model list (when `wants_server_model`) and choose from it; returns
    the note for the user. Blocking, in a thread of its own: callers are synchronous,
    some of them inside a running event loop (exec, doctor)."""
    if not wants_server_model(settings):
        return None
    from rivulet.core.protocol.models import fetch_models

    def listed() -> list[str]:
        try:
            return [m.id for m in asyncio.run(fetch_models(settings, timeout=LIST_TIMEOUT))]
        except RivuletError:
            return []  # not there, or no list: the default stands, as it did

    with ThreadPoolExecutor(1) as pool:
        ids = pool.submit(listed).result()
    return choose(settings, ids)
