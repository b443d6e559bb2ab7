"""The HTTP + Server-Sent Events transport (httpx, and our bytes-level SSE decoder).

`POST {base_url}/responses` with `stream: true`; each SSE `data:` field goes through
the shared payload layer (`stream.payload_event`). Reading stops at
`response.completed` (the caller closes the generator, which closes the response);
an EOF before it is a StreamError raised by the state machine.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from typing import Any

import httpx

from rivulet.core.config import Settings
from rivulet.core.config_sources import safe_url
from rivulet.core.errors import MalformedEventError, StreamError, error_from_body
from rivulet.core.protocol.byte_caps import ACCEPT_ENCODING, ERROR_BODY_MAX, body_pieces, message_max_bytes, read_capped
from rivulet.core.protocol.endpoint import endpoint
from rivulet.core.protocol.events import Completed, ResponseEvent
from rivulet.core.protocol.http_client import new_client
from rivulet.core.protocol.idle import IdleWatchdog
from rivulet.core.protocol.payloads import payload_event
from rivulet.core.protocol.sse_decoder import SseDecoder

log = logging.getLogger(__name__)


class SseTransport:
    name = "sse"

    def __init__(self, settings: Settings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self._own_client = client is None
        self._client = client or new_client(
            # No read timeout here: the idle watchdog measures time between *events*.
            timeout=httpx.Timeout(connect=settings.connect_timeout, read=None, write=30.0, pool=30.0),
        )

    @property
    def url(self) -> str:
        return endpoint(self.settings.base_url, "responses", self.settings.query)

    async def aclose(self) -> None:
        if self._own_client:
            await self._client.aclose()

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[ResponseEvent, None]:
        """Yield the response's events. Use under `contextlib.aclosing`."""
        headers = {
            **self.settings.auth_headers(),
            "Accept": "text/event-stream",
            "Cache-Control": "no-store",
            "Accept-Encoding": ACCEPT_ENCODING,  # only what byte_caps inflates, a bounded piece at a time
        }
        request = {k: v for k, v in body.items() if k != "background"}
        request["stream"] = True
        where = safe_url(self.url)
        decoder = SseDecoder(max_event_bytes=message_max_bytes(self.settings))
        try:
            # The watchdog also covers the wait for response headers (read timeout is off).
            async with (IdleWatchdog(self.settings.idle_timeout, where) as watchdog,
                        self._client.stream("POST", self.url, json=request, headers=headers) as response):
                await _raise_for_status(response)
                async for chunk in body_pieces(response):
                    # While the consumer handles this chunk's events no network wait
                    # happens, so its time (even awaiting approval) is not idleness.
                    watchdog.hold()
                    complete = False  # bytes alone (a comment, a trickle) are not activity
                    for data in decoder.feed(chunk):
                        if data == b"[DONE]":  # LiteLLM's dialect; the events before it decide.
                            return
                        complete = True
                        event = payload_event(data)
                        if event is None:
                            continue
                        yield event
                        if type(event) is Completed:
                            return
                    watchdog.waiting(reset=complete)
                for data in decoder.close():
                    event = payload_event(data)
                    if event is not None:
                        yield event
        except httpx.TimeoutException as exc:
            raise StreamError(f"timed out talking to {where}: {type(exc).__name__}") from None
        except httpx.TransportError as exc:
            raise StreamError(f"connection to {where} failed: {_describe(exc)}") from None


async def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code >= 400:
        body, cut = await read_capped(response, ERROR_BODY_MAX)
        if cut:
            log.debug("HTTP %s error body cut at %d bytes", response.status_code, ERROR_BODY_MAX)
        retry = response.headers.get("retry-after")
        retry_ms = response.headers.get("retry-after-ms")
        if retry_ms:
            try:
                retry = str(float(retry_ms) / 1000)
            except ValueError:
                pass
        error = error_from_body(response.status_code, body, retry)
        # The one-line message summarises; the whole body is here (and in the inspector).
        log.debug("HTTP %s from %s, whole body: %s", response.status_code, safe_url(str(response.url)), error.body)
        raise error
    ctype = response.headers.get("content-type", "").partition(";")[0].strip().lower()
    if ctype != "text/event-stream":
        body, _ = await read_capped(response, 300)
        raise MalformedEventError(
            f"expected text/event-stream from the server, got {ctype or 'no content type'}: "
            f"{body.decode('utf-8', 'replace')!r}"
        )


def _describe(exc: httpx.TransportError) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the connection was cut mid-response ({text})"
    return text
