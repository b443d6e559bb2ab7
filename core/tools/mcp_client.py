"""Connections to MCP servers, with the official `mcp` SDK.

`McpManager.start()` starts every enabled server at once; each has its own startup
timeout, and one that is slow, fails or crashes is marked `failed` (with its error and
the tail of its stderr) without holding up the others. Each connection lives in its own
task, which owns the SDK's context managers from start to stop: `aclose()` tells every
task to leave them, which ends the session and stops the server process (the SDK
terminates a stdio server's process tree; bubblewrap's `--die-with-parent` is a second
guard when sandboxed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from rivulet.core.errors import one_line, redact
from rivulet.core.sanitize import sanitize
from rivulet.core.tools.mcp_config import McpServerConfig
from rivulet.core.tools.mcp_schema import function_spec, tool_name
from rivulet.core.tools.sandbox import Sandbox

log = logging.getLogger(__name__)

State = Literal["stopped", "starting", "ready", "failed"]
MAX_TOOLS = 128  # tools offered per server; a server listing more gets the first ones
STDERR_TAIL = 2_000  # characters of a server's stderr kept for `/mcp` and error outputs


@dataclass
class McpTool:
    """One tool of one server, as offered to the model."""
    name: str  # the function name the model calls: server__tool
    server: str
    tool: str  # the server's own name for it (untrusted: shown only as `display`)
    spec: dict[str, Any]
    read_only: bool = False  # annotations.readOnlyHint
    destructive: bool = False  # annotations.destructiveHint (explicitly true)

    @property
    def display(self) -> str:
        """The server's name for the tool, safe for a terminal."""
        return sanitize(self.tool)[:100]


def first_error(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, as anyio raises them."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe_error(exc: BaseException) -> str:
    exc = first_error(exc)
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename:
        text = f"{exc.strerror or text}: {exc.filename}"
    return sanitize(one_line(redact(text)))


# How long a stop waits for the SDK's own shutdown before cancelling it: the SDK closes
# stdin, waits 2 s, sends SIGTERM to the group, waits 2 s, SIGKILLs and waits 2 s more.
# Cancelling inside that (the old 5 s) could leave a slow machine's server alive.
STOP_GRACE = 8.0


@dataclass
class McpServer:
    """One server: its state, its tools, and the task that owns its connection."""
    config: McpServerConfig
    sandbox: Sandbox | None = None  # run a stdio server inside bubblewrap
    workspace: Path | None = None
    state: State = "stopped"
    error: str | None = None
    tools: list[McpTool] = field(default_factory=list)
    session: Any = None  # mcp.ClientSession while ready
    _task: asyncio.Task[None] | None = None
    _ready: asyncio.Event = field(default_factory=asyncio.Event)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _stderr: IO[str] | None = None

    @property
    def name(self) -> str:
        return self.config.name

    def stderr_tail(self) -> str:
        """The end of what the server wrote to stderr, sanitised (it is untrusted text)."""
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0, 2)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - STDERR_TAIL * 4))
            text = self._stderr.read()
        except (OSError, ValueError):
            return ""
        return sanitize(redact(text[-STDERR_TAIL:]))

    def where(self) -> str:
        """Where the server runs, for `/mcp`: its URL, or a stdio server's sandbox."""
        if self.config.url is not None:
            return self.config.url
        if self.sandbox is None or not self.sandbox.active:
            return "no sandbox" if self.sandbox is None or self.sandbox.mode == "off" else "sandbox unavailable"
        return f"sandbox {self.sandbox.mode}" + (" + network" if self.config.network else "")

    def fail(self, why: str) -> None:
        self.state, self.error, self.session = "failed", why, None

    # ---- lifecycle ------------------------------------------------------------------

    async def start(self, taken: set[str]) -> None:
        """Connect, list the tools; within the startup timeout or marked failed."""
        self.state, self.error = "starting", None
        self._ready.clear()
        self._stop.clear()
        self._task = asyncio.create_task(self._own(taken), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.config.startup_timeout)
        except TimeoutError:
            self.fail(f"did not start within {self.config.startup_timeout:g} s (startup_timeout)")
            await self._end_task(grace=0)  # nothing to wait for: stop it now

    async def _own(self, taken: set[str]) -> None:
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self.tools = await self._list_tools(session, taken)
                self.session, self.state = session, "ready"
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # anything a server can do to us: it just failed
            if self.state != "failed":
                why = describe_error(exc)
                # A server that exits at start says why on stderr, where the SDK's
                # "Connection closed" does not: its last line goes with the error.
                last = next((line.strip() for line in reversed(self.stderr_tail().splitlines()) if line.strip()), "")
                self.fail(f"{why} (its stderr ends: {last[:160]})" if last and self.state == "starting" else why)
            log.debug("MCP server %s failed", self.name, exc_info=True)
        finally:
            self.session = None
            if self.state == "ready":
                self.state = "stopped"
            self._ready.set()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        cfg = self.config
        if cfg.command is None:
            from mcp.client.streamable_http import streamable_http_client

            from rivulet.core.compat.mcp import mcp_http_client

            assert cfg.url is not None
            return streamable_http_client(cfg.url, http_client=mcp_http_client(cfg.auth_headers()))
        from mcp.client.stdio import StdioServerParameters, stdio_client

        # The server's stderr, kept for its tail; it lives as long as the server (closed in stop()).
        if self._stderr is not None:
            self._stderr.close()
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        cwd = Path(cfg.cwd).expanduser() if cfg.cwd else self.workspace
        command, args, env = cfg.command, list(cfg.args), dict(cfg.env)
        if self.sandbox is not None and self.sandbox.active:
            # bwrap clears the environment: the server's own env goes in through `env`.
            inner = shlex.join(["env", *[f"{k}={v}" for k, v in env.items()], command, *args])
            box = Sandbox(self.sandbox.mode, self.sandbox.workspace, network=cfg.network)
            argv = box.argv(f"exec {inner}", cwd or self.sandbox.workspace, _needed_paths(command, args, cwd))
            command, args, env = argv[0], argv[1:], {}
        params = StdioServerParameters(command=command, args=args, env=env or None,
                                       cwd=str(cwd) if cwd else None, encoding_error_handler="replace")
        return stdio_client(params, errlog=self._stderr)

    async def _list_tools(self, session: Any, taken: set[str]) -> list[McpTool]:
        tools: list[McpTool] = []
        cursor: str | None = None
        for _ in range(100):  # a server that pages forever is cut off
            from mcp.types import PaginatedRequestParams

            result = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            for t in result.tools:
                if not self.config.offers(t.name):
                    continue
                if len(tools) >= MAX_TOOLS:
                    log.warning("MCP server %s lists more than %d tools; the rest are not offered",
                                self.name, MAX_TOOLS)
                    return tools
                name = tool_name(self.name, t.name, taken)
                ann = t.annotations
                tools.append(McpTool(name, self.name, t.name,
                                     function_spec(name, self.name, t.name, t.description, t.input_schema),
                                     read_only=bool(ann and ann.read_only_hint),
                                     destructive=bool(ann and ann.destructive_hint is True)))
            cursor = result.next_cursor
            if not cursor:
                break
        return tools

    async def stop(self) -> None:
        self._stop.set()
        await self._end_task()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def _end_task(self, grace: float = STOP_GRACE) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        if not task.done() and grace > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), grace)
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


class McpManager:
    """Every configured server: started together, queried for `/mcp`, stopped together."""

    def __init__(self, configs: list[McpServerConfig], *, sandbox: Sandbox | None = None,
                 workspace: Path | None = None) -> None:
        self.servers = [McpServer(c, sandbox=sandbox, workspace=workspace) for c in configs if c.enabled]
        self._taken: set[str] = set()

    def use_sandbox(self, sandbox: Sandbox) -> None:
        """Run the stdio servers in the tools' sandbox (when it is on), from its workspace."""
        for server in self.servers:
            server.sandbox = sandbox
            server.workspace = server.workspace or sandbox.workspace

    async def start(self, reserved: set[str] | None = None) -> None:
        """Start every server concurrently; returns when each is ready or has failed.
        `reserved`: names already offered (rivulet's own tools), never reused."""
        self._taken = set(reserved or ())
        await asyncio.gather(*(s.start(self._taken) for s in self.servers if s.state != "ready"))

    def tools(self) -> list[McpTool]:
        return [t for s in self.servers if s.state == "ready" for t in s.tools]

    def find(self, name: str) -> tuple[McpServer, McpTool] | None:
        for server in self.servers:
            for tool in server.tools:
                if tool.name == name:
                    return server, tool
        return None

    def status(self) -> list[dict[str, Any]]:
        """For `/mcp` and `rivulet mcp list`: each server's state, error, tools, stderr tail."""
        return [{"name": s.name, "transport": s.config.transport, "where": s.where(), "state": s.state,
                 "error": s.error,
                 "tools": [t.display for t in s.tools], "stderr": s.stderr_tail()} for s in self.servers]

    async def aclose(self) -> None:
        await asyncio.gather(*(s.stop() for s in self.servers), return_exceptions=True)


def _needed_paths(command: str, args: list[str], cwd: Path | None) -> list[Path]:
    """What a sandboxed stdio server must still see: its program (a virtualenv's python
    needs the whole virtualenv), the files its arguments name, and its directory."""
    paths: list[Path] = []
    program = shutil.which(command)
    if program is not None:
        exe = Path(program).absolute()
        venv = exe.parent.parent
        paths.append(venv if (venv / "pyvenv.cfg").exists() else exe.parent)
        real = exe.resolve()  # a virtualenv's python links to an interpreter that may lie in a hidden home
        paths.append(real.parent.parent if real.parent.name == "bin" else real.parent)
    paths += [Path(a).absolute().parent for a in args if os.path.exists(a)]
    if cwd is not None:
        paths.append(cwd)
    return paths
