"""Issue 35, item 8: a server billed on the user's key is never probed unasked. With
`provider = "azure"` or `"openrouter"` the chat used to send nine requests on opening
(the doctor's six model requests, two of them with `store: true`, a WebSocket
handshake and two model lists). Now only a local server is probed in the background
(the llamacpp, vllm, ollama and lmstudio presets, or no preset with a loopback or
private address), without `store: true`; nothing at all goes to a paid or remote
server before the user sends something; `rivulet doctor` says first what it sends."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest
from helpers.aimock import rivulet
from helpers.canned_server import CannedServer
from helpers.streams import simple_text_response
from helpers.tui import until

from rivulet.app.boot import prepare, settings_for
from rivulet.app.capability_probe import probe_in_background
from rivulet.app.cli import build_parser
from rivulet.app.tui import RivuletApp
from rivulet.core import capabilities as caps
from rivulet.core.config import load_settings

MODELS = [{"id": "m-1", "object": "model"}]
KEYS = {"AZURE_OPENAI_API_KEY": "azure-key-0123456789abcdef", "OPENROUTER_API_KEY": "sk-or-0123456789abcdef",
        "OPENAI_API_KEY": "sk-openai-0123456789abcdef"}


@pytest.fixture
def probing(tmp_path, monkeypatch) -> Path:
    """Probes on, as a user has them (the test suite turns them off), and every key set."""
    for name in list(os.environ):
        if name.startswith("OPENAI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_CONFIG", os.devnull)
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _settings(url: str, provider: str | None):
    argv = ["-c", f"provider={provider}"] if provider else []
    return settings_for(build_parser().parse_args([*argv, "exec", "--base-url", url, "hi"]), headless=True)[0]


def _args(url: str, provider: str) -> argparse.Namespace:
    return build_parser().parse_args(["-c", f"provider={provider}", "--base-url", url])


def _stored(server: CannedServer) -> list[dict]:
    return [r for r in server.requests if r.get("store") is True]


def test_only_local_servers_are_probed_unasked(probing):
    for provider in ("llamacpp", "vllm", "ollama", "lmstudio"):
        assert caps.probes_unasked(load_settings(overrides=[f"provider={provider}"])), provider
    for url in ("http://127.0.0.1:8080/v1", "http://localhost:1234/v1", "http://[::1]:8000/v1",
                "https://10.0.0.7:8000/v1", "https://192.168.1.20/v1", "https://172.16.3.4/v1"):
        assert caps.probes_unasked(load_settings(base_url=url)), url
        assert caps.probes_unasked(load_settings(base_url=url, overrides=["provider=custom"])), url
        for paid in ("openai", "azure", "openrouter"):  # a paid preset, whatever its address
            assert not caps.probes_unasked(load_settings(base_url=url, overrides=[f"provider={paid}"])), (paid, url)
    for url in ("https://api.example.com/v1", "https://8.8.8.8/v1", "https://api.openai.com/v1"):
        assert not caps.probes_unasked(load_settings(base_url=url)), url
        assert not caps.probes_unasked(load_settings(base_url=url, overrides=["provider=custom"])), url


@pytest.mark.parametrize("provider", ["azure", "openrouter", "openai"])
async def test_a_paid_preset_is_not_probed_in_the_background(probing, provider):
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        assert await probe_in_background(_settings(server.base_url, provider), print) is None
        assert server.local.requests == [] and not caps.cache_path().exists()


@pytest.mark.parametrize("provider", ["llamacpp", None])
async def test_a_local_server_is_probed_without_store_true(probing, provider):
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        settings = _settings(server.base_url, provider)
        note = await probe_in_background(settings, print)
        assert note is not None and note.startswith("Probed this server once")
        assert len(server.requests) >= 4  # the doctor's probes ran
        assert _stored(server) == []  # the server keeps nothing of a probe
        assert not any("previous_response_id" in r for r in server.requests)
        entry = caps.lookup(server.base_url)
        assert entry is not None and entry.settings["ws_incremental"] is False
        assert "not probed" in entry.reasons["ws_incremental"]


@pytest.mark.parametrize("provider", ["azure", "openrouter"])
async def test_opening_the_chat_sends_nothing_to_a_paid_server(probing, provider):
    with CannedServer(simple_text_response("Hello there."), models=MODELS) as server:
        ready = prepare(_args(server.base_url, provider))
        app = RivuletApp.from_ready(ready)
        app.remember_theme = False
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete([w for w in app.workers if w.group in ("probe", "models")])
            await pilot.pause()
            assert server.local.requests == []  # not a model list, not a probe, not a handshake
            await pilot.press(*"hi", "enter")
            await until(pilot, lambda: server.requests and not (app.turn_worker and app.turn_worker.is_running),
                        "the turn")
            await app.workers.wait_for_complete([w for w in app.workers if w.group in ("probe", "models")])
        assert len(server.requests) == 1 and "hi" in json.dumps(server.requests[0]["input"])
        assert _stored(server) == [] and not caps.cache_path().exists()
        # Once the user sent something: the turn's one POST and the model list for the context
        # window (free, and in either order: they go out at once); no probe, no WebSocket.
        routes = [(r.method, r.route) for r in server.local.requests]
        assert routes.count(("POST", "/v1/responses")) == 1 and set(routes) <= {("POST", "/v1/responses"),
                                                                                  ("GET", "/v1/models")}


@pytest.mark.parametrize("provider", ["azure", "openrouter"])
def test_exec_and_plain_send_only_what_the_user_asked(probing, provider):
    env = {"RIVULET_PROBE_SERVERS": "true", "RIVULET_SESSIONS_DIR": str(probing / "sessions"), **KEYS}
    with CannedServer(simple_text_response("Hello there."), models=MODELS) as server:
        done = rivulet("exec", "-c", f"provider={provider}", "--base-url", server.base_url, "say hi", env=env)
        assert done.returncode == 0, done.stderr
        assert [(r.method, r.route) for r in server.local.requests] == [("POST", "/v1/responses")]
        assert _stored(server) == []
        plain = rivulet("--plain", "-c", f"provider={provider}", "--base-url", server.base_url, env=env)
        assert plain.returncode == 0, plain.stderr
        assert len(server.local.requests) == 1  # the plain chat opened and closed: nothing sent


def test_doctor_says_first_what_it_sends_and_no_store_skips_it(probing):
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        done = rivulet("doctor", "--base-url", server.base_url, "--timeout", "20", "--no-store",
                       env={"RIVULET_SESSIONS_DIR": str(probing / "sessions")})
        assert done.returncode == 0, done.stderr
        assert _stored(server) == [] and "previous_response_id" in done.stdout and "not tried" in done.stdout
        told = rivulet("doctor", "--base-url", server.base_url, "--timeout", "20", "--json",
                       env={"RIVULET_SESSIONS_DIR": str(probing / "sessions")})
        assert told.returncode == 0, told.stderr
        assert "store: true" in told.stderr.splitlines()[0] and "--no-store" in told.stderr
        assert len(_stored(server)) == 2
        json.loads(told.stdout)  # the notice is not in the JSON


def test_status_says_why_a_paid_server_was_not_probed(probing):
    from rivulet.app.commands.profile import server_lines

    said = "\n".join(server_lines(load_settings(base_url="https://r.openai.azure.com/openai",
                                                overrides=["provider=azure"])))
    assert "probed         no: only a local server is probed unasked" in said and "rivulet doctor" in said
    assert "probed         no" not in "\n".join(server_lines(load_settings(base_url="http://127.0.0.1:8080/v1")))


async def test_the_background_probe_names_the_local_servers_one_model(probing):
    """Issue 42.2: the chat's probe may start before the chat has taken the server's model
    (its list is asked after the first frame): it names the server's one model all the same."""
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        args = build_parser().parse_args(["--base-url", server.base_url])
        ready = prepare(args)  # the chat's boot: the model list not asked yet
        assert ready.settings.model != "m-1"
        assert await probe_in_background(ready.settings, print) is not None
        await ready.transport.aclose()
        assert server.requests and {r.get("model") for r in server.requests} == {"m-1"}
