"""Scripted Responses servers for a conversation and its subagents (issue 41): each request
is answered from the script of the conversation it belongs to, told apart by its first user
message (the parent's prompt, or a subagent's task). `AgentServer` is in process (httpx's
MockTransport), a reply a whole body or an async function that streams one (it may wait
for the test, or for another request to arrive); `DelegatingServer` is a real HTTP server
on 127.0.0.1 for the CLI."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx

from helpers.calls import answer, fn_call, fn_call_response
from helpers.local_server import Reply as HttpReply
from helpers.local_server import Request, StubServer, sse_reply
from helpers.mock_api import transport_for
from helpers.streams import body, completed, created, message, message_events
from rivulet.core.protocol.sse_transport import SseTransport

Reply = bytes | Callable[[], AsyncIterator[bytes]]


def first_user_text(items: list[dict[str, Any]]) -> str:
    for item in items:
        if item.get("type") == "message" and item.get("role") == "user":
            return "".join(str(part.get("text") or "") for part in item.get("content") or [])
    return ""


def spawn(call_id: str, task: str, **args: str) -> dict:
    return fn_call(f"fc_{call_id}", call_id, "spawn_agent", {"task": task, **args})


def answer_parts(rid: str, text: str) -> tuple[bytes, bytes]:
    """An answer's stream in two: its start and first delta, then the rest."""
    events = [created(rid), *message_events(f"m_{rid}", text, chunks=2), completed([message(f"m_{rid}", text)], rid)]
    return body(events[:4]), body(events[4:])


class AgentServer:
    def __init__(self, scripts: dict[str, list[Reply]]) -> None:
        self.scripts = {key: list(replies) for key, replies in scripts.items()}
        self.bodies: list[dict[str, Any]] = []  # every request's JSON body, in arrival order
        self.arrived: dict[str, asyncio.Event] = {key: asyncio.Event() for key in scripts}
        self.log: list[str] = []  # what happened, in order: "request <key>", and what replies add

    def handler(self, request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)
        key = first_user_text(sent["input"])
        self.bodies.append(sent)
        self.log.append(f"request {key}")
        self.arrived.setdefault(key, asyncio.Event()).set()
        replies = self.scripts[key]
        reply = replies.pop(0) if len(replies) > 1 else replies[0]
        content: AsyncIterator[bytes] = reply() if callable(reply) else _once(reply)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    def transport(self) -> SseTransport:
        return transport_for(self.handler)

    def bodies_of(self, key: str) -> list[dict[str, Any]]:
        return [b for b in self.bodies if first_user_text(b["input"]) == key]

    def gated(self, rid: str, text: str, gate: Callable[[], Awaitable[object]], name: str) -> Reply:
        """An answer that streams its first delta, waits for `gate`, then ends (logged as `end <name>`)."""
        start, rest = answer_parts(rid, text)

        async def stream() -> AsyncIterator[bytes]:
            yield start
            await gate()
            self.log.append(f"end {name}")
            yield rest

        return stream


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


class DelegatingServer(StubServer):
    """A real HTTP server on 127.0.0.1 for the CLI: the parent's prompt (`prompt`) gets a
    spawn_agent call (the task `task`, the name `name`) and then `final`; the subagent runs
    `command` with the shell tool, then answers `said`."""

    def __init__(self, prompt: str, task: str, name: str = "lister", command: str = "ls",
                 said: str = "three files", final: str = "all done") -> None:
        super().__init__()
        self.prompt, self.task, self.name, self.command, self.said, self.final = prompt, task, name, command, said, final
        self.lock = threading.Lock()
        self.seen: dict[str, int] = {}
        self.tools: list[list[str]] = []  # the tools each request offers, by name

    def reply(self, request: Request) -> HttpReply:
        sent = request.json()
        key = first_user_text(sent["input"])
        with self.lock:
            self.tools.append([str(t.get("name")) for t in sent.get("tools", [])])
            n = self.seen[key] = self.seen.get(key, 0) + 1
        if key == self.prompt:
            body = fn_call_response("r1", spawn("call_a", self.task, name=self.name)) if n == 1 \
                else answer("r2", self.final)
        else:
            shell = fn_call("fc_s", "call_s", "shell", {"command": self.command, "workdir": None, "timeout_ms": None,
                                                       "justification": None, "outside_sandbox": None})
            body = fn_call_response("ra1", shell) if n == 1 else answer("ra2", self.said)
        return sse_reply(body, "length")
