"""Attack 7 of issue 11: processes outlived their tool. `setsid` and `nohup` children
survived Esc, the timeout and rivulet's exit. Each test runs with the sandbox off (the
subreaper path) and on (bubblewrap's PID namespace)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time

import pytest
from helpers.calls import fn_call
from hostile import RIVULET, HostileServer, rivulet_env
from test_secrets import _shell_then_answer

from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.sandbox import probe

MODES = ["off", "workspace-write"]


def _with_marker(marker: int) -> list[int]:
    """pids of live processes whose command line holds `sleep <marker>`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z" and b"sleep" in args[0] and str(marker).encode() in args:
            found.append(int(name))
    return found


@pytest.fixture
def markers():
    used: list[int] = []

    def new() -> int:
        used.append(70000 + (os.getpid() * 7 + len(used) * 13 + time.monotonic_ns()) % 20000)
        return used[-1]

    yield new
    for marker in used:  # whatever happened, leave nothing behind (the shells that hold them too)
        for pid in _mentioning(range(marker, marker + 4)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _mentioning(numbers) -> list[int]:
    wanted = [str(n).encode() for n in numbers]
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    line = f.read()
            except OSError:
                continue
            if any(w in line for w in wanted):
                found.append(int(name))
    return found


def _escapers(m: int) -> str:
    """Four ways to leave a process group or detach, each with its own marker sleep."""
    return (f"setsid sleep {m} >/dev/null 2>&1 < /dev/null & "
            f"nohup sleep {m + 1} >/dev/null 2>&1 & "
            f"(setsid sh -c 'sleep {m + 2}' >/dev/null 2>&1 &) ; "
            f"(trap '' HUP TERM; exec sleep {m + 3}) >/dev/null 2>&1 & ")


def _all(m: int) -> list[int]:
    return [pid for k in range(4) for pid in _with_marker(m + k)]


def _tools(tmp_path, mode: str) -> AgentTools:
    kw = {"sandbox": mode} if mode != "off" else {}  # "off" is also what the old ToolSettings did
    return AgentTools(ToolSettings(workspace=tmp_path, **kw), ApprovalPolicy("never-ask"))


def _call(command: str, timeout_ms: int = 20000) -> dict:
    return fn_call("fc", "c1", "shell", {"command": command, "workdir": None, "timeout_ms": timeout_ms,
                                          "justification": None})


@pytest.mark.parametrize("mode", MODES)
async def test_detached_children_die_when_the_command_ends(tmp_path, markers, mode):
    m = markers()
    out = await _tools(tmp_path, mode).run(_call(_escapers(m) + "sleep 0.5; echo finished"))
    assert "finished" in out["output"]
    assert _all(m) == []


@pytest.mark.parametrize("mode", MODES)
async def test_detached_children_die_at_the_timeout(tmp_path, markers, mode):
    m = markers()
    out = await _tools(tmp_path, mode).run(_call(_escapers(m) + "echo started; sleep 60", timeout_ms=1500))
    assert "timed out" in out["output"] and "started" in out["output"]
    assert _all(m) == []


@pytest.mark.parametrize("mode", MODES)
async def test_detached_children_die_when_the_turn_is_interrupted(tmp_path, markers, mode):
    m = markers()
    task = asyncio.ensure_future(_tools(tmp_path, mode).run(_call(_escapers(m) + "sleep 60")))
    for _ in range(1500):  # until all four are running
        if len(_all(m)) == 4:
            break
        await asyncio.sleep(0.02)
    assert len(_all(m)) == 4
    task.cancel()  # what Esc does
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _all(m) == []


@pytest.mark.parametrize("mode", MODES)
async def test_detached_children_die_when_the_turn_is_interrupted_as_the_command_starts(
        tmp_path, markers, mode, monkeypatch):
    """Esc while asyncio is still handing the new process back (seen under load): the
    command and what it started are already running, and must die all the same."""
    m = markers()
    handed_back = asyncio.Event()
    start = asyncio.create_subprocess_exec

    async def slow_start(*args, **kwargs):
        proc = await start(*args, **kwargs)
        await handed_back.wait()  # the process runs; its start has not returned yet
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", slow_start)
    task = asyncio.ensure_future(_tools(tmp_path, mode).run(_call(_escapers(m) + "sleep 60")))
    for _ in range(1500):  # until all four are running
        if len(_all(m)) == 4:
            break
        await asyncio.sleep(0.02)
    assert len(_all(m)) == 4
    task.cancel()  # what Esc does
    await asyncio.sleep(0)
    handed_back.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _all(m) == []


@pytest.mark.bwrap
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_sandboxed_commands_die_with_rivulet(tmp_path, markers, how):
    if how == signal.SIGKILL:  # only the sandbox can do this: nothing runs in a killed process
        assert probe().ok, f"bubblewrap cannot run here: {probe().reason}"
    m = markers()
    with HostileServer(_shell_then_answer(_escapers(m) + "sleep 60")) as server:
        proc = subprocess.Popen([*RIVULET, "exec", "--approval", "never-ask", "--base-url", server.base_url,
                                 "--workspace", str(tmp_path), "hi"],
                                env=rivulet_env(tmp_path, OPENAI_API_KEY="sk-test-secret-key-123456",
                                                RIVULET_SANDBOX="workspace-write"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while len(_all(m)) < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(_all(m)) == 4, "the command did not start"
            proc.send_signal(how)
            proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
    deadline = time.monotonic() + 10  # the kernel tears the namespace down: give it a moment
    while _all(m) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _all(m) == []


@pytest.mark.parametrize("mode", MODES)
async def test_detached_children_die_when_the_app_quits_mid_command(tmp_path, markers, mode):
    from agent_helpers import agent_app, answer, shell_turn
    from helpers.tui import GatedServer, until

    m = markers()
    kw = {"sandbox": mode} if mode != "off" else {}
    app = agent_app(GatedServer(shell_turn(_escapers(m) + "sleep 60"), answer()), tmp_path, approval="never-ask", **kw)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: len(_all(m)) == 4, "the command's children")
        await app.action_quit()
    assert _all(m) == []
