"""/profile in the chat: it lists the profiles, switches the next turn to another
server, and the status line and /status name the active one (and what the capability
cache applied)."""

from __future__ import annotations

import os

import pytest
from helpers.canned_server import CannedServer
from helpers.streams import simple_text_response
from helpers.tui import until

from rivulet.app.tui import RivuletApp
from rivulet.core import capabilities as caps
from rivulet.core.config import load_settings
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer
from rivulet.widgets.status import StatusLine


@pytest.fixture
def two_servers(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("OPENAI_"):
            monkeypatch.delenv(name)
    with CannedServer(simple_text_response("from A")) as a, CannedServer(simple_text_response("from B")) as b:
        config = tmp_path / "config.toml"
        config.write_text(f'profile = "a"\n[profiles.a]\nbase_url = "{a.base_url}"\nmodel = "model-a"\n'
                          f'[profiles.b]\nprovider = "llamacpp"\nbase_url = "{b.base_url}"\nmodel = "model-b"\n')
        monkeypatch.setenv("RIVULET_CONFIG", str(config))
        yield a, b


def _text(app) -> str:
    return str(app.query_one(StatusLine).render())


async def _command(pilot, app, text: str) -> None:
    app.query_one(Composer).load_text(text)
    await pilot.press("enter")


async def test_switching_profile_sends_the_next_turn_elsewhere(two_servers):
    a, b = two_servers
    s = load_settings()
    app = RivuletApp(s, SseTransport(s), remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "a: model-a" in _text(app), "the profile in the status line")
        await pilot.press(*"one", "enter")
        await until(pilot, lambda: len(a.requests) == 1 and app.query_one(StatusLine).state == "idle", "turn 1")
        await _command(pilot, app, "/profile")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the profile picker")
        await pilot.press("down", "enter")
        await until(pilot, lambda: "b: model-b" in _text(app), "the switch")
        assert app.settings.profile == "b" and app.settings.provider == "llamacpp"
        # The banner names the new server (issue 38.6), not the one the chat started with.
        banner = str(app.chat.banner.content)
        assert banner == f"rivulet · {app.settings.endpoint.safe} · model-b"
        assert a.base_url.removesuffix("/v1") not in banner
        await pilot.press(*"two", "enter")
        await until(pilot, lambda: len(b.requests) == 1, "turn 2 at server B")
        assert len(a.requests) == 1
        assert b.requests[0]["model"] == "model-b"
        # The history went along: B sees the first turn too.
        texts = [c.get("text") for i in b.requests[0]["input"] for c in (i.get("content") or [])
                 if isinstance(c, dict)]
        assert "one" in texts and "two" in texts


async def test_an_unknown_profile_is_one_toast_with_the_nearest_name(two_servers):
    s = load_settings()
    app = RivuletApp(s, SseTransport(s), remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _command(pilot, app, "/profile bb")
        await until(pilot, lambda: any("unknown profile 'bb'" in str(n.message) for n in app._notifications),
                    "the error")
        assert app.settings.profile == "a"


async def test_status_names_the_profile_and_what_the_probes_applied(two_servers, tmp_path):
    import time

    a, _ = two_servers
    caps.store(caps.ServerCapabilities(a.base_url, caps.fingerprint([]), 40_000_000.0, {"patch_tool": "function", "transport": "sse"},
                          {"patch_tool": "no custom tool call came back", "transport": "no Responses WebSocket"}))
    from rivulet.app.capability_probe import apply_cached

    s = load_settings(overrides=["transport=sse", "probe_servers=true"])
    apply_cached(s)
    app = RivuletApp(s, SseTransport(s), remember_theme=False)
    async with app.run_test(size=(140, 50)) as pilot:
        await _command(pilot, app, "/status")
        await until(pilot, lambda: "profile        a" in _notes(app), "the status note")
        lines = _notes(app)
        when = time.strftime("%Y-%m-%d", time.localtime(40_000_000.0))
        assert "profile        a (also: b)" in lines
        assert f"probed         patch_tool = function: no custom tool call came back (probed {when})" in lines
        assert "no Responses WebSocket" not in lines  # transport was set by the user (-c): not the cache's doing


def _notes(app) -> str:
    from textual.widgets import Static

    return "\n".join(str(w.render()) for w in app.query(".command-note").results(Static))
