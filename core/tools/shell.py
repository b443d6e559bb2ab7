"""Run one shell command in the workspace: timeout, captured and capped output.

The command runs in its own session (`bash -c`), inside the bubblewrap sandbox when
there is one; when it ends, times out or is interrupted, everything it started is
killed, also what left its process group (see proctree.py). Output is streamed to `on_output` as it arrives (the UI
shows it live) and kept for the model with a cap: the head and the tail survive, the
middle is replaced by a note saying how much was left out.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rivulet.core.compat.asyncio import close_process_pipes
from rivulet.core.tools import proctree
from rivulet.core.tools.environ_scrub import SECRET_ENV as SECRET_ENV  # (its home: imported without this module)
from rivulet.core.tools.proctree import become_subreaper, children_of_me, kill_tree
from rivulet.core.tools.sandbox import Sandbox
from rivulet.core.tools.secret_mask import SecretMasker


@dataclass
class ShellResult:
    exit_code: int | None  # None: killed (timeout)
    output: str
    duration: float
    timed_out: bool = False
    truncated: int = 0  # characters left out of `output`


class _Capped:
    """Keeps the first and the last `limit // 2` characters of a stream."""

    def __init__(self, limit: int) -> None:
        self.half = max(1, limit // 2)
        self.head: list[str] = []
        self.head_len = 0
        self.tail = ""
        self.dropped = 0

    def add(self, text: str) -> None:
        if self.head_len < self.half:
            take = text[: self.half - self.head_len]
            self.head.append(take)
            self.head_len += len(take)
            text = text[len(take):]
        if text:
            self.tail += text
            if len(self.tail) > self.half:
                self.dropped += len(self.tail) - self.half
                self.tail = self.tail[-self.half:]

    def text(self) -> str:
        head = "".join(self.head)
        if not self.dropped:
            return head + self.tail
        return f"{head}\n[... {self.dropped} characters left out ...]\n{self.tail}"


# Never handed to a command the model wrote: it could print them into its output.
# Every provider preset's key variable too (core/providers.py): a key for another profile is still a key.


def child_env(secrets: tuple[str, ...] = ()) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SECRET_ENV and v not in secrets}
    env.update({"PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb", "NO_COLOR": "1"})
    return env


async def _spawn(argv: Sequence[str], cwd: Path, env: dict[str, str],
                 known: set[int], token: str) -> asyncio.subprocess.Process:
    """Start the command. An interrupt during the start (Esc as the command begins) must not
    leave it running: the process may already be up, and may have started others, before
    asyncio hands it back, so the start is finished and then the whole tree killed."""
    spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True))
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        try:
            proc = await spawn
        except Exception:  # it never started: nothing to kill
            raise asyncio.CancelledError from None
        kill_tree(proc.pid, known, token)
        await proc.wait()
        close_process_pipes(proc)
        raise


async def run_shell(command: str, cwd: Path, *, timeout: float, limit: int,
                    on_output: Callable[[str], None] | None = None, secrets: tuple[str, ...] = (),
                    sandbox: Sandbox | None = None, read_only: Sequence[Path] | None = None) -> ShellResult:
    """`read_only`: the workspace's protected paths, bound read-only in the sandbox."""
    start = time.monotonic()
    if sandbox is not None and sandbox.active:
        argv, env = sandbox.argv(command, cwd, read_only=read_only), sandbox.env()
    else:
        argv, env = ["bash", "-c", command], child_env(secrets)
    become_subreaper()  # orphans of the command come back to us, so they can be killed
    known = children_of_me()
    token = proctree.start_tool()  # another tool's end (a subagent's) leaves this one alone
    try:
        proc = await _spawn(argv, cwd, {**env, proctree.TOKEN_VAR: token}, known, token)
    except BaseException:
        proctree.end_tool(token, None)
        raise
    proctree.running(proc.pid)
    captured = _Capped(limit)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may span two reads
    masker = SecretMasker(secrets)  # before the cap and the screen: a key split across reads is masked too

    def take(text: str) -> None:
        captured.add(text)
        if on_output is not None and text:
            on_output(text)

    async def pump() -> None:
        assert proc.stdout is not None
        while chunk := await proc.stdout.read(65536):
            take(masker.feed(decoder.decode(chunk)))
        take(masker.feed(decoder.decode(b"", final=True)) + masker.flush())

    reader = asyncio.ensure_future(pump())
    waiter = asyncio.ensure_future(proc.wait())
    timed_out = False
    try:
        # The command is done when its process exits: a background child that keeps the
        # pipe open does not keep the tool running (it is killed below).
        done, _ = await asyncio.wait({waiter}, timeout=timeout)
        if not done:
            timed_out = True
        kill_tree(proc.pid, known, token)
        await waiter
        try:  # everything it started is dead, so the pipe ends soon: keep what it still had
            await asyncio.wait_for(asyncio.shield(reader), 2)
        except TimeoutError:
            reader.cancel()
    except BaseException:  # interrupted (cancelled): nothing may outlive the turn
        kill_tree(proc.pid, known, token)
        reader.cancel()
        waiter.cancel()
        raise
    finally:
        proctree.end_tool(token, proc.pid)
        # Close the pipes now, not when the transport is garbage collected (maybe after
        # its event loop has closed, which raises from __del__).
        close_process_pipes(proc)
    return ShellResult(None if timed_out else proc.returncode, captured.text(), time.monotonic() - start,
                       timed_out, captured.dropped)
