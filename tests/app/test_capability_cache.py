"""The capability cache end to end: `rivulet doctor` writes it, a later start applies
it (beneath what the user set), `--refresh` re-probes and says what changed, the chat
probes a new server once in the background, and `--report` is Markdown without a key."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.aimock import rivulet
from helpers.canned_server import CannedServer
from helpers.streams import simple_text_response

from rivulet.app.boot import settings_for
from rivulet.app.capability_probe import probe_in_background
from rivulet.app.cli import build_parser
from rivulet.core import capabilities as caps

MODELS = [{"id": "gemma-3-270m", "object": "model"}]


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith(("RIVULET_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    monkeypatch.setenv("RIVULET_CONFIG", os.devnull)
    return tmp_path / "servers.json"


def _settings(url: str, *argv: str):
    return settings_for(build_parser().parse_args([*argv, "exec", "--base-url", url, "hi"]), headless=True)[0]


def test_doctor_writes_the_cache_and_a_later_start_applies_it(data):
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        proc = rivulet("doctor", "--base-url", server.base_url, "--timeout", "20")
        assert proc.returncode == 0, proc.stderr
        assert f"Capability cache ({data}): patch_tool = \"function\", transport = \"sse\"" in proc.stdout
        entry = caps.lookup(server.base_url)
        assert entry is not None and entry.fingerprint == caps.fingerprint(["gemma-3-270m"])
        assert entry.settings["transport"] == "sse" and entry.settings["ws_incremental"] is False
        settings = _settings(server.base_url)
        assert (settings.transport, settings.patch_tool, settings.ws_incremental) == ("sse", "function", False)
        assert settings.applied["patch_tool"].startswith("no custom tool call came back (probed ")
        assert settings.applied["transport"].startswith("no Responses WebSocket")
        # What the user sets wins, and is not reported as applied.
        mine = _settings(server.base_url, "-c", "transport=ws", "-c", "patch_tool=custom")
        assert (mine.transport, mine.patch_tool) == ("ws", "custom")
        assert "transport" not in mine.applied and "patch_tool" not in mine.applied
        assert "ws_incremental" in mine.applied


def test_refresh_probes_again_and_says_what_changed(data):
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        url = server.base_url
        caps.store(caps.ServerCapabilities(url, caps.fingerprint(["gemma-3-270m"]), 1.0, {"transport": "ws", "patch_tool": "function"},
                              {"transport": "an old probe"}))
        assert _settings(url).transport == "ws"
        proc = rivulet("doctor", "--base-url", url, "--timeout", "20", "--refresh")
        assert proc.returncode == 0, proc.stderr
        assert 'transport = "sse" (was "ws")' in proc.stdout
        assert 'patch_tool = "function" (was' not in proc.stdout  # unchanged: not listed
        assert _settings(url).transport == "sse"
        again = rivulet("doctor", "--base-url", url, "--timeout", "20", "--refresh")
        assert "Capability cache: unchanged for this server." in again.stdout
        assert len(json.loads(data.read_text())["servers"]) == 1


async def test_the_chat_probes_a_new_server_once(data, monkeypatch):
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        settings = _settings(server.base_url)
        said: list[str] = []
        note = await probe_in_background(settings, said.append)
        assert said == [note] and note.startswith("Probed this server once: patch_tool function, transport sse")
        probed = len(server.requests)
        assert probed >= 4  # the doctor's probes ran
        assert not any(r.get("store") for r in server.requests)  # not previous_response_id's (issue 35)
        assert await probe_in_background(settings, said.append) is None  # known now: no probe, no note
        assert len(server.requests) == probed and len(said) == 1
        assert caps.lookup(server.base_url) is not None


async def test_no_probe_when_turned_off_or_on_openai(data, monkeypatch):
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        monkeypatch.setenv("RIVULET_PROBE_SERVERS", "false")
        assert await probe_in_background(_settings(server.base_url), print) is None
        monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")
        assert await probe_in_background(_settings(server.base_url, "-c", "provider=openai"), print) is None
        assert server.requests == [] and not data.exists()


def test_report_is_markdown_with_the_failing_request_and_no_key(data):
    key = "sk-report-test-0123456789abcdef"
    with CannedServer(simple_text_response("hi \x1b[31mred"), models=MODELS) as server:
        proc = rivulet("doctor", "--base-url", server.base_url, "--timeout", "20", "--report",
                       env={"OPENAI_API_KEY": key})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith(f"# rivulet doctor report: {server.base_url}\n")
    for part in ("- versions: rivulet ", "## Probes", "| plain text | ok |", "## Protocol deviations",
                 "## Minimal failing request", "The function call (tool_choice required) probe",
                 f"curl -N '{server.base_url}/responses'", 'Authorization: Bearer $OPENAI_API_KEY',
                 '"tool_choice": "required"', "- models listed: 1 (gemma-3-270m)"):
        assert part in out, part
    assert key not in out and "\x1b" not in out


async def test_the_probe_waits_while_a_turn_runs(data, monkeypatch):
    import asyncio

    import rivulet.app.capability_probe as probe_module

    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")
    monkeypatch.setattr(probe_module, "IDLE_POLL", 0.01)
    asked: list[bool] = []
    running = True

    def busy() -> bool:
        asked.append(running)
        return running

    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        task = asyncio.ensure_future(probe_in_background(_settings(server.base_url), print, busy))
        for _ in range(3000):
            if len(asked) >= 3:
                break
            await asyncio.sleep(0.01)
        assert len(asked) >= 3 and server.requests == []  # waiting: not one probe sent
        running = False
        assert (await asyncio.wait_for(task, 120)).startswith("Probed this server once")
        assert len(server.requests) >= 4
