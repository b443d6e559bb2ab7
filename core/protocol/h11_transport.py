"""httpx's transport for rivulet's own requests: HTTP/1.1 by h11 on asyncio's streams.

httpx's default transport is httpcore's pool, which under asyncio runs on anyio: importing
the two cost ~64 ms of CPU at every `exec` start (issue 22), for a client that carries one
request at a time. This transport keeps httpx above it (Request, Response, Timeout, the
exceptions the retry taxonomy and every caller read, MockTransport in tests) and speaks
HTTP/1.1 with h11, the protocol machine httpcore itself uses, over `asyncio.open_connection`.

What it keeps of httpcore's behaviour: a connection is reused when the response before it
was read to its end (keep-alive across a turn's follow-up requests); TLS verifies with the
context httpx would make (certifi, or SSL_CERT_FILE/SSL_CERT_DIR), made at the first https
request; connect, read and write timeouts from the request's `timeout` extension; bodies
framed by Content-Length or chunked both ways; a connection cut before or in the middle of
the response is `httpx.RemoteProtocolError`, as it was. Proxies are not its job: the client
(http_client.py) mounts httpx's own transport for a proxied URL, as httpx always did.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from typing import Any

import h11
import httpx

from rivulet.core.protocol.keep_alive import HEAD_MAX  # httpcore's limit on a response head (h11's own is 16 KiB)

READ_SIZE = 64 * 1024  # what httpcore reads at a time
DEFAULT_PORTS = {b"http": 80, b"https": 443}
Key = tuple[bytes, bytes, int]


class _Connection:
    __slots__ = ("h11", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=HEAD_MAX)

    def idle_and_open(self) -> bool:
        # A server that closed a kept-alive connection has its EOF read by the loop by now.
        return (self.h11.our_state is h11.IDLE and self.h11.their_state is h11.IDLE
                and not self.reader.at_eof() and not self.writer.is_closing())

    def close(self) -> None:
        self.writer.close()


class H11Transport(httpx.AsyncBaseTransport):
    def __init__(self, verify: ssl.SSLContext | str | bool = True, cert: Any = None, trust_env: bool = True) -> None:
        self._tls_options = (verify, cert, trust_env)
        self._tls: ssl.SSLContext | None = None
        self._idle: dict[Key, list[_Connection]] = {}

    @property
    def tls_context(self) -> ssl.SSLContext | None:
        """The TLS context, once an https request has needed it (None before)."""
        return self._tls

    def _tls_for_connect(self) -> ssl.SSLContext:
        if self._tls is None:  # certifi's ~140 roots parsed: ~40 ms a plain-http run never pays
            verify, cert, trust_env = self._tls_options
            self._tls = httpx.create_ssl_context(verify=verify, cert=cert, trust_env=trust_env)
            self._tls.set_alpn_protocols(["http/1.1"])  # as httpcore offers it without HTTP/2
        return self._tls

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        key = (url.raw_scheme, url.raw_host, url.port or DEFAULT_PORTS.get(url.raw_scheme, 80))
        timeouts = request.extensions.get("timeout", {})
        conn = self._checkout(key) or await self._connect(request, key, timeouts.get("connect"))
        try:
            await _send(conn, request, timeouts.get("write"))
            head = await _next_event(conn, request, timeouts.get("read"))
            while isinstance(head, h11.InformationalResponse):  # 100 Continue and the like
                head = await _next_event(conn, request, timeouts.get("read"))
            if not isinstance(head, h11.Response):
                raise httpx.RemoteProtocolError(f"unexpected {type(head).__name__} before the response",
                                                request=request)
        except BaseException:
            conn.close()
            raise
        return httpx.Response(head.status_code, headers=head.headers.raw_items(),
                              stream=_Body(self, conn, key, request, timeouts.get("read")),
                              extensions={"http_version": b"HTTP/1.1", "reason_phrase": bytes(head.reason)})

    def _checkout(self, key: Key) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.idle_and_open():
                return conn
            conn.close()
        return None

    def _checkin(self, key: Key, conn: _Connection) -> None:
        self._idle.setdefault(key, []).append(conn)

    async def _connect(self, request: httpx.Request, key: Key, timeout: float | None) -> _Connection:
        scheme, host, port = key
        tls = self._tls_for_connect() if scheme == b"https" else None
        name = host.decode("ascii")
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(name, port, ssl=tls, limit=READ_SIZE,
                                                               server_hostname=name if tls else None)
        except TimeoutError:
            raise httpx.ConnectTimeout("timed out connecting", request=request) from None
        except OSError as exc:  # refused, unreachable, a name that does not resolve, a certificate refused
            raise httpx.ConnectError(str(exc) or type(exc).__name__, request=request) from None
        return _Connection(reader, writer)

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for conn in conns:
                conn.close()
        self._idle.clear()


class _Body(httpx.AsyncByteStream):
    """The response body as h11 frames it; the connection goes back to the pool when it was read to its end."""

    def __init__(self, transport: H11Transport, conn: _Connection, key: Key, request: httpx.Request,
                 timeout: float | None) -> None:
        self.transport, self.conn, self.key, self.request, self.timeout = transport, conn, key, request, timeout
        self.ended = False
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn, request, timeout = self.conn, self.request, self.timeout
        while not self.ended:
            event = await _next_event(conn, request, timeout)
            if type(event) is h11.Data:
                yield bytes(event.data)
            elif type(event) is h11.EndOfMessage:
                self.ended = True
            elif type(event) is h11.ConnectionClosed:
                raise httpx.RemoteProtocolError("peer closed connection without sending complete message body",
                                                request=request)

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        conn = self.conn
        # A reader that stopped at its last event (response.completed) often has the end of the
        # message already received: take it from h11's buffer, without waiting on the network.
        try:
            while not self.ended and conn.h11.their_state is h11.SEND_BODY:
                event = conn.h11.next_event()
                if event is h11.NEED_DATA or type(event) is h11.ConnectionClosed:
                    break
                if type(event) is h11.EndOfMessage:
                    self.ended = True
        except h11.RemoteProtocolError:
            pass
        if self.ended and conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE:
            conn.h11.start_next_cycle()
            self.transport._checkin(self.key, conn)
        else:  # read in part, cut, or the server said Connection: close
            conn.close()


async def _send(conn: _Connection, request: httpx.Request, timeout: float | None) -> None:
    machine, writer = conn.h11, conn.writer
    try:
        writer.write(machine.send(h11.Request(method=request.method, target=request.url.raw_path,
                                              headers=request.headers.raw)) or b"")
        async for piece in request.stream:  # type: ignore[union-attr]  # an async request's stream
            writer.write(machine.send(h11.Data(data=piece)) or b"")
            await _drain(writer, request, timeout)
        writer.write(machine.send(h11.EndOfMessage()) or b"")
        await _drain(writer, request, timeout)
    except h11.LocalProtocolError as exc:  # a body longer or shorter than its Content-Length
        raise httpx.LocalProtocolError(str(exc), request=request) from None


async def _drain(writer: asyncio.StreamWriter, request: httpx.Request, timeout: float | None) -> None:
    try:
        async with asyncio.timeout(timeout):
            await writer.drain()
    except TimeoutError:
        raise httpx.WriteTimeout("timed out sending the request", request=request) from None
    except OSError as exc:
        raise httpx.WriteError(str(exc) or type(exc).__name__, request=request) from None


async def _next_event(conn: _Connection, request: httpx.Request, timeout: float | None) -> Any:
    machine = conn.h11
    while True:
        try:
            event = machine.next_event()
        except h11.RemoteProtocolError as exc:  # a malformed response, or a body cut short
            raise httpx.RemoteProtocolError(str(exc), request=request) from None
        if event is not h11.NEED_DATA:
            return event
        try:
            if timeout is None:  # the stream: the idle watchdog times events, not reads
                data = await conn.reader.read(READ_SIZE)
            else:
                async with asyncio.timeout(timeout):
                    data = await conn.reader.read(READ_SIZE)
        except TimeoutError:
            raise httpx.ReadTimeout("timed out reading the response", request=request) from None
        except OSError as exc:  # reset, TLS torn down
            raise httpx.ReadError(str(exc) or type(exc).__name__, request=request) from None
        if not data and machine.their_state is h11.SEND_RESPONSE:  # as httpcore says it
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
        machine.receive_data(data)  # b"" is the EOF
