"""The Responses WebSocket transport: the same events as SSE, over one reused socket.

`wss://…/responses` (the base URL with its scheme changed; `ws://` for plain http) with
bearer auth. A request is one text frame `{"type": "response.create", ...}` carrying
the HTTP body minus `stream`/`background`; every frame back is one JSON event, mapped
by the same `payload_event` as an SSE `data:` field, so a top-level `error` frame goes
through the same error taxonomy as an HTTP error.

* One response in flight per socket; the socket is kept for the next request (a
  follow-up or the next turn).
* Incremental requests: when every field but `input` is unchanged and the new input is
  the previous input plus the items the server returned plus new items, only the new
  items go, with `previous_response_id`. A fresh socket always gets a full request.
* Liveness: the idle timeout counts only complete events, as over SSE. Pings and pongs
  prove the socket is open, not that the response moves: a server that stalls
  mid-response while its socket still answers rivulet's own pings is idle. The clock
  stops while the consumer holds an event.
* One message is capped (`byte_caps.message_max_bytes`, also after permessage-deflate):
  a larger one ends the response with one LimitExceeded line.
* Any error, and any response abandoned before `response.completed`, drops the socket
  at once (no closing handshake to wait for); the next request reconnects.
* HTTP 426 at the handshake raises `WebSocketUnsupported`, which `FallbackTransport`
  turns into SSE for the rest of the session.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from rivulet.core.config import Settings
from rivulet.core.errors import (
    LimitExceeded,
    MalformedEventError,
    RivuletError,
    ServerUnreachable,
    StreamError,
    error_from_body,
)
from rivulet.core.protocol.byte_caps import message_max_bytes, mib
from rivulet.core.protocol.events import Completed, ResponseEvent
from rivulet.core.protocol.idle import IdleWatchdog
from rivulet.core.protocol.payloads import payload_event
from rivulet.core.protocol.wire import ENCODE_BODY
from rivulet.core.server_endpoint import safe_url

log = logging.getLogger(__name__)


class WebSocketUnsupported(RivuletError):
    """The server does not speak the Responses WebSocket (HTTP 426 at the handshake)."""

    kind = "websocket_unsupported"


def _strip_id(item: Any) -> Any:
    return {k: v for k, v in item.items() if k != "id"} if isinstance(item, dict) else item


def _same_item(sent: Any, seen: Any) -> bool:
    # History hands out the very objects it sent last time for its settled part, so
    # most of a long chat's input is matched by identity, not copied and compared.
    return sent is seen or _strip_id(sent) == _strip_id(seen)


class WebSocketTransport:
    name = "ws"
    background = None  # background responses go over SSE (transports.wants_websocket)

    def __init__(self, settings: Settings, *, url: str | None = None, incremental: bool = True,
                 ping_interval: float | None = 20.0) -> None:
        self.settings = settings
        self.url = url or settings.endpoint.ws_url("responses", settings.query)
        self.incremental = incremental
        self.ping_interval = ping_interval
        self.handshakes = 0  # sockets opened (tests and diagnostics)
        self._ws: ClientConnection | None = None
        self._lock = asyncio.Lock()
        # What the next request may build on: the last request's fields (no input),
        # the input the server has seen plus what it returned, and its response id.
        self._prev: tuple[dict[str, Any], list[Any], str] | None = None

    @property
    def where(self) -> str:
        """The endpoint for messages: http(s) form, no credentials."""
        return safe_url(self.url.replace("ws", "http", 1))

    async def aclose(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close()

    def _drop(self) -> None:
        """Forget the socket at once: abort it rather than wait for a closing handshake."""
        ws, self._ws = self._ws, None
        self._prev = None
        if ws is not None:
            ws.transport.abort()

    async def _connect(self) -> ClientConnection:
        where = self.where
        try:
            ws = await connect(self.url, additional_headers=self.settings.auth_headers(),
                               open_timeout=self.settings.connect_timeout,
                               max_size=message_max_bytes(self.settings),
                               ping_interval=self.ping_interval, ping_timeout=None, user_agent_header="rivulet")
        except InvalidStatus as exc:
            response = exc.response
            if response.status_code == 426:
                raise WebSocketUnsupported(f"{where} does not accept WebSocket requests (HTTP 426)") from None
            raise error_from_body(response.status_code, response.body or b"",
                                  response.headers.get("retry-after")) from None
        except ConnectionRefusedError as exc:  # nobody there (yet): a local server may be restarting
            raise ServerUnreachable(f"cannot open a WebSocket to {where}: {exc or type(exc).__name__}") from None
        except (TimeoutError, OSError, InvalidHandshake) as exc:
            raise StreamError(f"cannot open a WebSocket to {where}: {exc or type(exc).__name__}") from None
        self.handshakes += 1
        return ws

    def _frame(self, body: dict[str, Any], fresh: bool) -> dict[str, Any]:
        request = {k: v for k, v in body.items() if k not in ("stream", "background")}
        fields = {k: v for k, v in request.items() if k != "input"}
        full = {"type": "response.create", **request}
        if fresh or not self.incremental or self._prev is None:
            return full
        prev_fields, seen, response_id = self._prev
        items = request.get("input")
        if fields != prev_fields or not isinstance(items, list) or len(items) < len(seen):
            return full
        if not all(map(_same_item, items, seen)):
            return full
        return {"type": "response.create", **fields, "input": items[len(seen):], "previous_response_id": response_id}

    def _remember(self, body: dict[str, Any], completed: Completed) -> None:
        items = body.get("input")
        output = completed.response.get("output")
        if not isinstance(items, list) or not isinstance(output, list) or not completed.response_id:
            self._prev = None
            return
        fields = {k: v for k, v in body.items() if k not in ("stream", "background", "input")}
        self._prev = (fields, [*items, *output], completed.response_id)

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[ResponseEvent, None]:
        """Yield the response's events. Use under `contextlib.aclosing`."""
        async with self._lock:
            fresh = self._ws is None
            if fresh:
                self._prev = None
                self._ws = await self._connect()
            ws = self._ws
            assert ws is not None
            frame = self._frame(body, fresh)
            where = self.where
            finished = False
            try:
                async with IdleWatchdog(self.settings.idle_timeout, where) as watchdog:
                    await ws.send(ENCODE_BODY(frame).decode())  # str: a text frame
                    while True:
                        data = await ws.recv()
                        watchdog.hold()
                        if isinstance(data, bytes):
                            raise MalformedEventError("a binary WebSocket frame where a JSON event was expected")
                        event = payload_event(data)
                        if type(event) is Completed:
                            # Done before the yield: the consumer stops at Completed and
                            # closes this generator at the yield; the socket stays good.
                            self._remember(body, event)
                            finished = True
                            yield event
                            return
                        if event is not None:
                            yield event
                        watchdog.waiting()
            except ConnectionClosed as exc:
                if exc.sent is not None and exc.sent.code == 1009:  # websockets refused a message over max_size
                    raise LimitExceeded(f"a WebSocket message from {where} was larger than "
                                        f"{mib(message_max_bytes(self.settings))}: refused") from None
                raise StreamError(f"the WebSocket to {where} closed mid-response ({exc})") from None
            finally:
                if not finished:
                    self._drop()  # an error, or a response abandoned mid-way: never reuse this socket


class FallbackTransport:
    """WebSocket first, SSE for the rest of the session once the WebSocket is refused
    (HTTP 426) or keeps failing (`max_failures` retryable errors in a row)."""

    def __init__(self, primary: WebSocketTransport, fallback: Any, *, max_failures: int = 3,
                 on_fallback: Callable[[str], None] | None = None) -> None:
        self.primary = primary
        self.fallback = fallback
        self.max_failures = max(1, max_failures)
        self.on_fallback = on_fallback
        self.failures = 0
        self.active: Any = primary

    @property
    def name(self) -> str:
        return str(self.active.name)

    @property
    def background(self) -> None:
        """Never used for background responses (transports.wants_websocket): none to fetch."""
        return None

    def _fall_back(self, why: str) -> None:
        self.active = self.fallback
        log.warning("falling back to SSE: %s", why)
        if self.on_fallback is not None:
            self.on_fallback(f"WebSocket unavailable ({why}); using HTTP streaming (SSE) for this session")

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[ResponseEvent, None]:
        if self.active is self.primary:
            events = self.primary.stream(body)
            try:
                async for event in events:
                    if type(event) is Completed:
                        # A success: counted here, because the consumer closes this
                        # generator at Completed (code after the loop never runs).
                        self.failures = 0
                    yield event
                return
            except WebSocketUnsupported as exc:
                self._fall_back(exc.message)  # nothing was sent: go on over SSE at once
            except RivuletError as exc:
                if exc.retryable:
                    self.failures += 1
                    if self.failures >= self.max_failures:
                        self._fall_back(f"{self.failures} failures in a row, the last: {exc.message}")
                raise
            finally:
                await events.aclose()
        async for event in self.fallback.stream(body):
            yield event

    async def aclose(self) -> None:
        await self.primary.aclose()
        await self.fallback.aclose()
