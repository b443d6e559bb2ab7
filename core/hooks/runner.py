"""Run one hook: its argv (with `{files}` expanded), the event's JSON on stdin, the
workspace as cwd, an environment without the API key, under the hooks' sandbox setting,
and a time limit after which its whole process group is killed. Outside the sandbox
(unsandboxed.py): with `hooks_sandbox = "off"` a hook that would run a workspace file is
refused, its program is run by the path found for it (no second PATH lookup), and its
git does not take a planted repository's settings.

Nothing a hook does raises out of here: a command that cannot start, fails or hangs
comes back as a `HookResult` saying so, and the chat goes on.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rivulet.core.compat.asyncio import close_process_pipes
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.hooks.unsandboxed import git_env, reach, refusal
from rivulet.core.tools import proctree
from rivulet.core.tools.proctree import children_of_me, kill_tree
from rivulet.core.tools.sandbox import Sandbox
from rivulet.core.tools.secret_mask import SecretMasker
from rivulet.core.tools.shell import child_env

FILES = "{files}"
CAPTURE_BYTES = 64 * 1024  # of stdout and of stderr each; the rest is read and dropped


@dataclass
class HookResult:
    exit_code: int | None  # None: it did not start, or was killed at its timeout
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None  # why it could not start
    refused: str | None = None  # why it was not run (a workspace file outside the sandbox)
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def expand(command: Sequence[str], files: Sequence[str]) -> list[str]:
    """An item that is exactly `{files}` becomes one argv item per file (never one
    string to split: a file name with spaces or a leading `-` stays one argument)."""
    out: list[str] = []
    for arg in command:
        if arg == FILES:
            out += [f if not f.startswith("-") else f"./{f}" for f in files]
        else:
            out.append(arg)
    return out


async def _read_capped(stream: asyncio.StreamReader | None) -> bytes:
    kept = b""
    if stream is None:
        return kept
    while chunk := await stream.read(65536):
        if len(kept) < CAPTURE_BYTES:
            kept += chunk[: CAPTURE_BYTES - len(kept)]
    return kept


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> None:
    if stdin is None:
        return
    try:  # a hook need not read its stdin: a closed pipe is not an error
        stdin.write(data)
        await stdin.drain()
        stdin.close()
    except (BrokenPipeError, ConnectionResetError):
        pass


async def run_hook(spec: HookSpec, payload: dict[str, Any], workspace: Path, *, files: Sequence[str] = (),
                   sandbox: Sandbox | None = None, secrets: tuple[str, ...] = ()) -> HookResult:
    start = time.monotonic()
    argv = expand(spec.command, files)
    if sandbox is not None and sandbox.active:
        argv, env = sandbox.argv(shlex.join(argv), workspace), sandbox.env()
    else:
        env = git_env(child_env(secrets))
        found = reach(spec.command, str(workspace), env.get("PATH", os.defpath))
        if (sandbox is None or sandbox.mode == "off") and (why := refusal(found)) is not None:
            return HookResult(None, refused=why)
        if found.program is None:
            return HookResult(None, error="not found on PATH")
        argv[0] = found.program  # run what was checked: no second lookup
    token = proctree.start_tool()  # a command that ends meanwhile (a subagent's) leaves it alone
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=workspace, env={**env, proctree.TOKEN_VAR: token}, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True)  # its own group: killed as one
    except OSError as exc:
        proctree.end_tool(token, None)
        return HookResult(None, error=exc.strerror or str(exc), duration=time.monotonic() - start)
    except BaseException:
        proctree.end_tool(token, None)
        raise
    proctree.running(proc.pid)
    data = json.dumps(payload, ensure_ascii=True).encode() + b"\n"
    feeder = asyncio.ensure_future(_feed(proc.stdin, data))
    out = asyncio.ensure_future(_read_capped(proc.stdout))
    err = asyncio.ensure_future(_read_capped(proc.stderr))
    waiter = asyncio.ensure_future(proc.wait())
    timed_out = False
    try:
        done, _ = await asyncio.wait({waiter}, timeout=spec.timeout)
        if not done:
            timed_out = True
        # Its group and its descendants; other children of rivulet (MCP servers) are left alone.
        kill_tree(proc.pid, children_of_me() - {proc.pid}, token)
        await waiter
        # What it left running is dead, so the pipes end: keep what they still held.
        await asyncio.wait({out, err, feeder}, timeout=5)
    except BaseException:  # the turn was interrupted: the hook goes with it
        kill_tree(proc.pid, children_of_me() - {proc.pid}, token)
        raise
    finally:
        proctree.end_tool(token, proc.pid)
        for task in (out, err, feeder, waiter):
            if not task.done():
                task.cancel()
        close_process_pipes(proc)
    masker = SecretMasker(secrets)  # a hook may print the key it found somewhere

    def text(task: asyncio.Future[bytes]) -> str:
        raw = task.result() if task.done() and not task.cancelled() else b""
        return masker.mask(raw.decode("utf-8", "replace"))

    return HookResult(None if timed_out else proc.returncode, text(out), text(err), timed_out,
                      duration=time.monotonic() - start)
