"""`rivulet acp` as a real subprocess, driven by the SDK's client side (`acp`), against a
scripted Responses server on a real socket (the agent is another process).

The server picks its stream by the prompt's first word (see `STREAMS`; "boxed" runs the
rest of the prompt as a command), a subagent's by its task's; a follow-up
after tool outputs gets "Done." The client records every session update and answers
each permission request by what the call's title holds (`answers`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError, spawn_agent_process
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from helpers.calls import answer, custom_call_events, fn_call
from helpers.local_server import LocalServer, Reply, Request, sse_reply
from helpers.streams import (
    body,
    call_events,
    completed,
    created,
    ev,
    message,
    message_events,
    reasoning,
    reasoning_events,
)

PATCH = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-old line\n+new line\n*** End Patch"
SHELL_OK = fn_call("fc_1", "call_ok", "shell", {"command": "echo allowed-output"})
SHELL_NO = fn_call("fc_2", "call_no", "shell", {"command": "echo never-runs > ran.txt"})
SHELL_SLEEP = fn_call("fc_3", "call_sleep", "shell", {"command": "echo $$ > pid.txt; exec sleep 120"})


def _calls(*items: dict[str, Any]) -> bytes:
    events = [created("resp_c")]
    for n, item in enumerate(items):
        events += call_events(item["id"], item["call_id"], item["name"], item["arguments"], n)
    return body([*events, completed(list(items), "resp_c")])


HELLO = [created(), *reasoning_events("rs_1", "Thinking it over"), *message_events("msg_1", "Hello from rivulet", 1),
         completed([reasoning("rs_1", "Thinking it over"), message("msg_1", "Hello from rivulet")])]
FIRST_DELTA = next(n for n, e in enumerate(HELLO) if "output_text.delta" in e) + 1  # "Hello "

PLAN = fn_call("fc_p", "call_plan", "update_plan", {"explanation": None, "plan": [
    {"step": "Read the notes", "status": "completed"}, {"step": "Fix the old line", "status": "in_progress"},
    {"step": "Run the tests", "status": "pending"}]})

STREAMS: dict[str, bytes] = {
    "run": _calls(SHELL_OK, SHELL_NO),
    "plan": _calls(PLAN),
    # two subagents: one runs a command (asking first), one whose server breaks
    "agents": _calls(fn_call("fc_sa1", "call_sa1", "spawn_agent", {"task": "boxed echo sub-one", "name": "tests"}),
                     fn_call("fc_sa2", "call_sa2", "spawn_agent", {"task": "broken on purpose"})),
    "broken": b'event: error\ndata: {"type": "error", "code": "bad", "message": "the model broke"}\n\n',
    "sleepy": _calls(SHELL_SLEEP),
    "patch": body([created("resp_p"), *custom_call_events("ct_1", "call_patch", "apply_patch", PATCH),
                   completed([{"id": "ct_1", "type": "custom_tool_call", "status": "completed",
                               "call_id": "call_patch", "name": "apply_patch", "input": PATCH}], "resp_p")]),
}


class ScriptedServer:
    """The Responses server: a stream per prompt word; "slow" sends one delta, then holds
    the stream open until `release` (a cancel's test); a follow-up is answered "Done."."""

    def __init__(self) -> None:
        self.local = LocalServer(self._reply)
        self.released = threading.Event()
        self.go_on = threading.Event()  # the staged "hello" stream's second half may come
        self.prompts: list[str] = []

    def _reply(self, request: Request) -> Reply | None:
        if request.method != "POST":
            return None
        items = request.json().get("input") or []
        last = items[-1] if items else {}
        if last.get("type", "").endswith("_output"):
            return sse_reply(answer("resp_done", "Done."), "length")
        text = " ".join(p.get("text", "") for p in last.get("content") or [] if isinstance(p, dict))
        self.prompts.append(text)
        word = text.split()[0] if text.split() else ""
        if word == "boxed":  # the rest of the prompt is a command to run
            return sse_reply(_calls(fn_call("fc_b", "call_boxed", "shell", {"command": text.split(" ", 1)[1]})),
                             "length")
        if word == "slow":
            return sse_reply(self._slow(), "chunked")
        if word == "hello":  # the answer's first delta, then the rest once the test has seen it
            return sse_reply(self._staged(), "chunked")
        return sse_reply(STREAMS.get(word, answer("resp_x", f"You said: {text}")), "length")

    def _staged(self) -> Any:
        yield body(HELLO[:FIRST_DELTA])
        self.go_on.wait(30)
        yield body(HELLO[FIRST_DELTA:])

    def _slow(self) -> Any:
        yield body([created("resp_s"), ev("response.output_item.added", output_index=0, item={
            "id": "msg_s", "type": "message", "role": "assistant", "status": "in_progress", "content": []}),
            ev("response.content_part.added", item_id="msg_s", output_index=0, content_index=0,
               part={"type": "output_text", "text": ""}),
            ev("response.output_text.delta", item_id="msg_s", output_index=0, content_index=0,
               delta="Half an ans")])
        self.released.wait(30)

    def __enter__(self) -> ScriptedServer:
        self.local.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self.go_on.set()
        self.local.stop()


@dataclass
class RecordingClient:
    """The editor: every update kept; a permission request answered by its title
    ("never-runs": rejected, "stop-here": rejected always, else allowed once)."""

    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        self.changed.set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        if "slow" in (tool_call.title or ""):
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        title = tool_call.title or ""
        chosen = "reject_once" if "never-runs" in title else "reject_always" if "stop-here" in title else "allow_once"
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    buffers: dict[str, str] = field(default_factory=dict)  # the editor's unsaved text, by path
    written: list[tuple[str, str]] = field(default_factory=list)

    async def write_text_file(self, content: str, path: str, session_id: str, **kwargs: Any) -> Any:
        self.written.append((path, content))
        Path(path).write_text(content)
        return WriteTextFileResponse()

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        if path not in self.buffers and not Path(path).is_file():
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers.get(path) or Path(path).read_text())

    terminal_requests: list[str] = field(default_factory=list)  # terminal/* methods the agent called

    async def create_terminal(self, command: str, session_id: str, **kwargs: Any) -> Any:
        """An editor offering `terminal` would run `command` itself, out of rivulet's sandbox:
        recorded (a test asserts none is made) and refused."""
        self.terminal_requests.append(f"create {command}")
        raise RequestError.method_not_found("terminal/create")

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_requests.append(f"output {terminal_id}")
        raise RequestError.method_not_found("terminal/output")

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_requests.append(f"release {terminal_id}")

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_requests.append(f"wait {terminal_id}")
        raise RequestError.method_not_found("terminal/wait_for_exit")

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_requests.append(f"kill {terminal_id}")

    def kinds(self) -> list[str]:
        return [u.session_update for _, u in self.updates]

    def text(self, kind: str) -> str:
        return "".join(u.content.text for _, u in self.updates if u.session_update == kind)

    def calls(self, key: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update in ("tool_call", "tool_call_update")
                and u.tool_call_id == key]

    async def until(self, check: Any, timeout: float = 30) -> None:
        """Wait (on updates, not on time) until `check()` holds."""
        async with asyncio.timeout(timeout):
            while not check():
                self.changed.clear()
                await self.changed.wait()


def agent_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_CONFIG": os.devnull, "RIVULET_SESSIONS_DIR": str(home / "sessions"), "HOME": str(home),
                "RIVULET_CHECKPOINTS_DIR": str(home / "checkpoints")})
    return env


@dataclass
class Running:
    conn: Any
    process: asyncio.subprocess.Process
    client: RecordingClient
    stderr: Path
    raw: list[dict[str, Any]]  # every message the agent sent, as JSON

    def raw_write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)


@contextlib.asynccontextmanager
async def running_agent(home: Path, base_url: str, *flags: str) -> AsyncIterator[Running]:
    """`rivulet acp` against `base_url`, its stderr in home/stderr.txt, sessions in home/sessions."""
    client = RecordingClient()
    raw: list[dict[str, Any]] = []
    stderr_path = home / "stderr.txt"
    with stderr_path.open("wb") as stderr:
        command = [sys.executable, "-c", "from rivulet.app.cli import main; main()", "acp", "--base-url", base_url,
                   "-c", 'sandbox="off"', *flags]
        async with spawn_agent_process(client, command[0], *command[1:], env=agent_env(home), cwd=home,
                                       transport_kwargs={"stderr": stderr},
                                       observers=[lambda e: raw.append(e.message)
                                                  if e.direction.value == "incoming" else None]) as (conn, proc):
            yield Running(conn, proc, client, stderr_path, raw)


def stdout_lines_are_json(raw: list[dict[str, Any]]) -> bool:
    return all(isinstance(m, dict) and m.get("jsonrpc") == "2.0" for m in raw) and bool(json.dumps(raw))
