"""The HTTP + Server-Sent Events transport (httpx, and our bytes-level SSE decoder).

`POST {base_url}/responses` with `stream: true`; each SSE `data:` field goes through
the shared payload layer (`stream.payload_event`). Reading stops at
`response.completed` (the caller closes the generator, which closes the response; what
follows the event is read first, so the connection is kept: http_client.read_rest);
an EOF before it is a StreamError raised by the state machine.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any
from urllib.parse import quote

import httpx
import msgspec

from rivulet.core.config import Settings
from rivulet.core.errors import ApiError, MalformedEventError, ServerUnreachable, StreamError, error_from_body
from rivulet.core.protocol.background import StreamCursor, sequenced_event
from rivulet.core.protocol.byte_caps import ACCEPT_ENCODING, ERROR_BODY_MAX, body_pieces, message_max_bytes, read_capped
from rivulet.core.protocol.events import Completed, Delta, ResponseEvent
from rivulet.core.protocol.http_client import new_client, read_rest
from rivulet.core.protocol.idle import IdleWatchdog
from rivulet.core.protocol.mapping import TEXT_DELTA_KIND
from rivulet.core.protocol.payloads import payload_event, wire_event
from rivulet.core.protocol.sse_decoder import SseDecoder
from rivulet.core.protocol.wire import DECODE, ENCODE_BODY, TextDeltaWire
from rivulet.core.server_endpoint import safe_url

log = logging.getLogger(__name__)
JSON_MAX = 4 * 1024 * 1024  # a whole response object (GET /responses/{id}): its output, not a stream


class SseTransport:
    name = "sse"

    def __init__(self, settings: Settings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self._own_client = client is None
        self.cursor = StreamCursor()  # the last stream's response id and sequence number (background)
        self._client = client or new_client(
            # No read timeout here: the idle watchdog measures time between *events*.
            timeout=httpx.Timeout(connect=settings.connect_timeout, read=None, write=30.0, pool=30.0),
        )

    @property
    def background(self) -> SseTransport:
        """Background responses are fetched and cancelled over plain HTTP: this transport."""
        return self

    @property
    def url(self) -> str:
        return self.settings.endpoint.url("responses", self.settings.query)

    async def aclose(self) -> None:
        if self._own_client:
            await self._client.aclose()

    def stream(self, body: dict[str, Any]) -> AsyncGenerator[ResponseEvent, None]:
        """The response's events. Use under `contextlib.aclosing`.

        A background request (`background` set) is read with its sequence numbers: when
        its stream is cut, the rest is read with `GET /responses/{id}?stream=true&
        starting_after=N` (each event once, none lost, no second POST). A server that
        cannot resume gets the cut back, said so, and the turn loop sends it again."""
        background = bool(body.get("background")) and self.settings.background
        request = {k: v for k, v in body.items() if k != "background" or background}
        request["stream"] = True
        self.cursor = cursor = StreamCursor()
        if not background:  # the reader's own generator: no generator in between, per event
            return self._read("POST", self.url, request, None)
        return self._background(request, cursor)

    async def _background(self, request: dict[str, Any], cursor: StreamCursor) -> AsyncGenerator[ResponseEvent, None]:
        try:
            async with aclosing(self._read("POST", self.url, request, cursor)) as events:
                async for event in events:
                    yield event
            return
        except StreamError as cut:
            error = cut
        while True:  # resume from the last event seen, as long as each try makes progress
            rid, seq = cursor.response_id, cursor.sequence
            if rid is None or seq is None:
                raise StreamError(f"{error.message}; the response cannot be resumed (no id or sequence number "
                                  "seen yet): sending it again") from None
            cursor.resumed += 1
            log.info("resuming background response %s after sequence %d", rid, seq)
            try:
                async with aclosing(self._read("GET", self.response_url(rid), None, cursor,
                                               {"stream": "true", "starting_after": str(seq)})) as events:
                    async for event in events:
                        yield event
                return
            except StreamError as again:
                if cursor.sequence == seq or cursor.resumed > max(1, self.settings.max_retries):
                    raise
                error = again
            except ApiError as refused:  # 404, 400: this server keeps no stream to resume
                raise StreamError(f"{error.message}; the server could not resume the stream ({refused.message}): "
                                  "sending the request again") from None

    def response_url(self, response_id: str) -> str:
        """`/responses/{id}` (below the path, before the query Azure's api-version is in)."""
        return self.settings.endpoint.url(f"responses/{quote(response_id, safe='')}", self.settings.query)

    async def retrieve(self, response_id: str) -> dict[str, Any]:
        """`GET /responses/{id}`: the response as it stands (status, output, usage)."""
        return await self._json("GET", self.response_url(response_id))

    async def cancel(self, response_id: str) -> dict[str, Any]:
        """`POST /responses/{id}/cancel`: stop a background response."""
        return await self._json("POST", self.response_url(response_id) + "/cancel")

    async def _json(self, method: str, url: str) -> dict[str, Any]:
        where = safe_url(url)
        try:
            async with (IdleWatchdog(self.settings.idle_timeout, where),
                        self._client.stream(method, url, headers=self.settings.auth_headers()) as response):
                if response.status_code >= 400:
                    await _raise_for_status(response)
                data, cut = await read_capped(response, JSON_MAX)
        except httpx.TimeoutException as exc:
            raise StreamError(f"timed out talking to {where}: {type(exc).__name__}") from None
        except httpx.TransportError as exc:
            raise StreamError(f"connection to {where} failed: {_describe(exc)}") from None
        try:
            answer = json.loads(data) if not cut else None
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise MalformedEventError(f"{where} did not answer with a JSON object")
        return answer

    async def _read(self, method: str, url: str, request: dict[str, Any] | None, cursor: StreamCursor | None,
                    params: dict[str, str] | None = None) -> AsyncGenerator[ResponseEvent, None]:
        headers = {
            **self.settings.auth_headers(),
            "Accept": "text/event-stream",
            "Cache-Control": "no-store",
            "Accept-Encoding": ACCEPT_ENCODING,  # only what byte_caps inflates, a bounded piece at a time
        }
        body = None
        if request is not None:
            body = ENCODE_BODY(request)
            headers["Content-Type"] = "application/json"
        where = safe_url(url)
        decoder = SseDecoder(max_event_bytes=message_max_bytes(self.settings))
        try:
            # The watchdog also covers the wait for response headers (read timeout is off).
            async with (IdleWatchdog(self.settings.idle_timeout, where) as watchdog,
                        self._client.stream(method, url, content=body, params=params,
                                            headers=headers) as response):
                await _raise_for_status(response)
                pieces = body_pieces(response)
                async for chunk in pieces:
                    # While the consumer handles this chunk's events no network wait
                    # happens, so its time (even awaiting approval) is not idleness.
                    watchdog.hold()
                    complete = False  # bytes alone (a comment, a trickle) are not activity
                    for data in decoder.feed(chunk):
                        if cursor is None:
                            # payload_event's string-delta case in line (>95% of a stream, and
                            # a call per event cost a tenth of the parse); the rest goes to it.
                            try:
                                wire = DECODE(data)
                            except msgspec.DecodeError:
                                if data == b"[DONE]":  # LiteLLM's dialect; the events before it decide.
                                    await read_rest(pieces)
                                    return
                                event = payload_event(data)
                            else:
                                kind = TEXT_DELTA_KIND.get(type(wire))
                                if kind is not None:
                                    complete = True
                                    d: TextDeltaWire = wire  # the class says so
                                    index = d.content_index
                                    if index is None:
                                        index = d.summary_index if d.summary_index is not None else d.command_index
                                    yield Delta(kind, d.delta, d.item_id, d.output_index, index)
                                    continue
                                event = wire_event(wire, data)
                        elif data == b"[DONE]":
                            await read_rest(pieces)
                            return
                        else:
                            event, seq = sequenced_event(data)
                            if not cursor.seen(event, seq):
                                continue
                        complete = True
                        if event is None:
                            continue
                        if type(event) is Completed:
                            # The consumer closes the stream at this event: the rest of the body
                            # is read first, so the turn's next request reuses the connection.
                            await read_rest(pieces)
                            yield event
                            return
                        yield event
                    watchdog.waiting(reset=complete)
                for data in decoder.close():
                    if cursor is None:
                        event = payload_event(data)
                    else:
                        event, seq = sequenced_event(data)
                        if not cursor.seen(event, seq):
                            continue
                    if event is not None:
                        yield event
                        if type(event) is Completed:
                            return
        except httpx.TimeoutException as exc:
            raise StreamError(f"timed out talking to {where}: {type(exc).__name__}") from None
        except httpx.ConnectError as exc:  # nobody there (yet): a local server may be restarting
            raise ServerUnreachable(f"connection to {where} failed: {_describe(exc)}") from None
        except httpx.TransportError as exc:
            raise StreamError(f"connection to {where} failed: {_describe(exc)}") from None
        if cursor is not None:  # a background stream is read to its end: an EOF before it is a cut
            raise StreamError(f"the stream from {where} ended before response.completed")


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
    if isinstance(exc, httpx.RemoteProtocolError) and "without sending a response" in text:
        return "the server closed the connection without answering"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the connection was cut mid-response ({text})"
    return text
