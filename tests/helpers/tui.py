"""Driving the app in tests: a server whose stream pauses at a gate, and waiting helpers."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from helpers.mock_api import settings, transport_for
from rivulet.app.tui import RivuletApp
from rivulet.core.protocol.recordings import sse_body


class GatedServer:
    """Serves scripted responses (lists of payloads); a response may stop at `gate_at`
    until `release()`, so a test can look at the screen mid-stream."""

    def __init__(self, *responses: list[str], gate_at: dict[int, int] | None = None) -> None:
        self.responses = list(responses)
        self.gate_at = gate_at or {}
        self.requests: list[dict[str, Any]] = []
        self.reached = asyncio.Event()
        self.gate = asyncio.Event()

    def release(self) -> None:
        self.gate.set()

    def handler(self, request: httpx.Request) -> httpx.Response:
        import json

        n = len(self.requests)
        self.requests.append(json.loads(request.content))
        payloads = self.responses[min(n, len(self.responses) - 1)]
        cut = self.gate_at.get(n)

        async def body():
            if cut is None:
                yield sse_body(payloads)
                return
            yield sse_body(payloads[:cut])
            self.reached.set()
            await self.gate.wait()
            if payloads[cut:]:
                yield sse_body(payloads[cut:])

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    def transport(self, **kw: Any):
        return transport_for(self.handler, **kw)


def make_app(server: GatedServer, **kw: Any) -> RivuletApp:
    kw.setdefault("remember_theme", False)
    s = settings(model="gpt-5.1-codex")
    return RivuletApp(s, server.transport(), **kw)


def settled(app: RivuletApp) -> bool:
    """The turn is over and the bridge has handled every event it published. "Done" shows
    the moment the turn ends (the bridge's at-once handlers), ahead of the batch that
    draws the turn's last entries and outputs: a test that then reads them waits for both."""
    return app._status.state == "idle" and app.bridge.quiet


UNTIL = 60.0  # seconds: generous, a loaded 2-core machine may take a while; a test that passes never waits it


async def until(pilot, predicate, what: str = "condition", timeout: float = UNTIL) -> None:
    """Let the app run until `predicate()` holds. It waits on the condition, not on a
    count of frames: under load a frame takes longer, so only a deadline far beyond any
    healthy wait fails the test."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f}s for {what}")
        await pilot.pause(0.01)


def follow_up_payloads(text: str, rid: str = "r2") -> list[str]:
    """A second response that only answers with `text`."""
    from helpers.streams import completed, created, message, message_events

    return [created(rid), *message_events(f"m_{rid}", text), completed([message(f"m_{rid}", text)], rid)]


def shown_entries(app: RivuletApp) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """Every entry the transcript shows, oldest first, as (key, item, its call's output):
    the frozen block's (drawn as lines) and then the entry widgets'. Which entries are
    widgets is a cost decision (widgets/frozen_entries.py), not something a user sees."""
    from rivulet.widgets.entries import TranscriptEntry

    transcript = app._transcript
    frozen = transcript.frozen
    shown = list(frozen.entries) if frozen is not None else []
    shown += [(w.item_id, w.item, getattr(w, "output", None))
              for w in transcript.children if isinstance(w, TranscriptEntry)]
    return shown


def shown_kinds(app: RivuletApp) -> list[str]:
    """The kind of each shown entry, oldest first: 'user', 'assistant' or the item type."""
    return [item.get("role", "message") if item.get("type") == "message" else str(item.get("type"))
            for _, item, _ in shown_entries(app)]
