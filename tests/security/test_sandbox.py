"""The shell tool's bubblewrap sandbox (issue 11, "an OS sandbox for the shell tool").

These tests run bwrap for real. Where bwrap cannot run, the ones that need it fail
(they never skip); the fallback path is tested separately by taking bwrap off PATH."""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
from pathlib import Path

import pytest
from helpers.calls import Scripted, fn_call
from helpers.mock_api import settings
from helpers.tui import GatedServer
from hostile import screen_output

from rivulet.app.tui import RivuletApp
from rivulet.core.tools import sandbox as sb
from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.turn.bus import EventBus, Notice

pytestmark = pytest.mark.bwrap  # every test here runs commands in bubblewrap


def _call(command: str, **extra) -> dict:
    return fn_call("fc", "c1", "shell", {"command": command, "workdir": None, "timeout_ms": 20000,
                                          "justification": None, **extra})


async def _run(ws, command: str, mode: str = "workspace-write", policy: str = "never-ask", approver=None,
               bus=None, **kw) -> str:
    tools = AgentTools(ToolSettings(workspace=ws, sandbox=mode, **kw), ApprovalPolicy(policy, approver or Scripted()),
                       bus)
    return (await tools.run(_call(command)))["output"]


def test_bubblewrap_runs_here():
    info = sb.probe()
    assert info.ok, f"bubblewrap cannot run in this environment: {info.reason}"


async def test_workspace_write_can_write_the_workspace_and_nothing_else(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    outside = Path(tempfile.mkdtemp(dir="/var/tmp"))  # not under /tmp: that is private in the sandbox
    try:
        out = await _run(ws, f"echo in > inside.txt && echo ok1; echo x > {outside}/o.txt || echo refused2; "
                             "echo x > .git/config || echo refused3; echo t > /tmp/t && echo tmpok4; "
                             f"echo x > {tmp_path}/private.txt && echo tmpok5")
        assert not (outside / "o.txt").exists()
    finally:
        shutil.rmtree(outside)
    assert "ok1" in out and "refused2" in out and "refused3" in out and "tmpok4" in out and "tmpok5" in out
    assert (ws / "inside.txt").read_text() == "in\n"
    assert not (ws / ".git" / "config").exists()
    assert not (tmp_path / "private.txt").exists()  # its /tmp was its own


async def test_read_only_writes_nothing(tmp_path):
    out = await _run(tmp_path, "echo x > a.txt || echo refused1; echo t > /tmp/t || echo refused2", mode="read-only")
    assert "refused1" in out and "refused2" in out
    assert not (tmp_path / "a.txt").exists()


def _listener() -> tuple[socket.socket, int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    def accept() -> None:
        try:
            server.accept()
        except OSError:  # closed by the test: nobody came
            pass

    threading.Thread(target=accept, daemon=True).start()
    return server, server.getsockname()[1]


@pytest.mark.parametrize("network", [False, True])
async def test_the_network_is_off_unless_allowed(tmp_path, network):
    # A private network namespace has its own loopback: only sandbox_network reaches the host's.
    server, port = _listener()
    try:
        out = await _run(tmp_path, f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo cut",
                         sandbox_network=network)
    finally:
        server.close()
    assert ("connected" if network else "cut") in out


async def test_a_sandboxed_command_cannot_see_rivulet_or_its_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "zz-sandbox-secret-0123456789")
    monkeypatch.setenv("SOME_PRIVATE_SETTING", "private-value-42")
    out = await _run(tmp_path, "ls /proc | grep -c '^[0-9]'; cat /proc/*/cmdline 2>/dev/null | tr '\\0' ' '; echo; "
                               "env; echo; cat /proc/1/environ /proc/$PPID/environ 2>/dev/null | base64 -w0")
    counts = [int(line) for line in out.splitlines() if line.strip().isdigit()]
    assert counts and counts[0] <= 4  # its own namespace: bwrap's init, bash and what bash runs
    with open("/proc/self/cmdline", "rb") as f:  # this test process: rivulet's stand-in
        me = f.read().replace(b"\0", b" ").decode().strip()
    assert me not in out
    assert "private-value-42" not in out and "SOME_PRIVATE_SETTING" not in out
    assert "zz-sandbox-secret" not in out and "enotc2FuZGJveC1zZWNyZXQ" not in out


async def test_auto_runs_sandboxed_commands_and_asks_before_leaving_the_sandbox(tmp_path):
    approver = Scripted(Decision.NO)
    tools = AgentTools(ToolSettings(workspace=tmp_path, sandbox="workspace-write"), ApprovalPolicy("auto", approver))
    inside = await tools.run(_call("echo inside"))
    assert "inside" in inside["output"] and approver.asked == []
    outside = await tools.run(_call("echo outside", outside_sandbox=True))
    assert "declined" in outside["output"]
    assert len(approver.asked) == 1 and approver.asked[0].sandbox == "no sandbox"


async def test_without_bwrap_it_says_so_once_falls_back_and_asks(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bash").symlink_to(shutil.which("bash"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # bash but no bwrap: the real fallback
    monkeypatch.setattr(sb, "_probe", None)
    bus = EventBus()
    notices: list[str] = []
    bus.subscribe(lambda e: notices.append(e.text), Notice)
    approver = Scripted(Decision.YES, Decision.YES)
    tools = AgentTools(ToolSettings(workspace=tmp_path, sandbox="workspace-write"), ApprovalPolicy("auto", approver),
                       bus)
    assert not tools.sandbox.active and tools.sandbox.describe() == "sandbox unavailable"
    first = await tools.run(_call("/bin/echo one"))
    second = await tools.run(_call("/bin/echo two"))
    await bus.drain()
    monkeypatch.setattr(sb, "_probe", None)  # the next test probes again, with the real PATH
    assert "one" in first["output"] and "two" in second["output"]
    assert len(approver.asked) == 2  # under auto, an unsandboxed command asks
    assert len(notices) == 1 and "bwrap is not installed" in notices[0]


async def test_the_status_line_shows_the_sandbox(tmp_path):
    app = RivuletApp(settings(), GatedServer(["x"]).transport(), remember_theme=False,
                     tool_settings=ToolSettings(workspace=tmp_path, sandbox="workspace-write"))
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.pause()
        _, plain = screen_output(app)
    assert "sandbox workspace-write" in plain
