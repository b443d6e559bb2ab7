"""The protocol's messages on stdin and stdout, one JSON object a line (the SDK's
`Transport`). Unlike the SDK's own framing, a line that is no JSON is answered with a
JSON-RPC parse error, and one that is no request object with an invalid-request error
(JSON-RPC 2.0, section 5), instead of a logged traceback; `run.py` keeps every other
write off the protocol's descriptor."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

log = logging.getLogger("rivulet.acp")
LINE_MAX = 50 * 1024 * 1024  # a prompt's pasted images are large; a line past this is refused


class LineTransport:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        async with self._lock:
            self.writer.write(data)
            await self.writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self.reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial  # the last line, without its newline (or nothing: the end)
                if not line.strip():
                    return None
            except asyncio.LimitOverrunError:
                await self._skip_long_line()
                await self._error(None, -32600, f"a message longer than {LINE_MAX:,} bytes")
                continue
            if not line.strip():
                continue
            message = self._parse(line)
            if isinstance(message, dict):
                return message
            await self._error(*message)

    def _parse(self, line: bytes) -> dict[str, Any] | tuple[Any, int, str]:
        try:
            message = json.loads(line)
        except ValueError:
            return None, -32700, "Parse error"
        if not isinstance(message, dict):
            return None, -32600, "Invalid Request: not a JSON object"
        method = message.get("method")
        if "method" in message and not isinstance(method, str):
            return message.get("id"), -32600, "Invalid Request: method is not a string"
        if method is None and "id" not in message:
            return None, -32600, "Invalid Request: neither a method nor an id"
        return message

    async def _error(self, request_id: Any, code: int, text: str) -> None:
        log.warning("bad JSON-RPC input: %s", text)
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}})

    async def _skip_long_line(self) -> None:
        while True:
            try:
                await self.reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:
                await self.reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return

    async def close(self) -> None:
        self.writer.close()


async def open_stdio(protocol_out: int) -> LineTransport:
    """Stdin, and the protocol's own descriptor for writing (stdout's, moved aside by run.py)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_MAX)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(0, "rb", buffering=0,
                                                                                         closefd=False))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        os.fdopen(protocol_out, "wb", buffering=0))
    return LineTransport(reader, asyncio.StreamWriter(transport, protocol, None, loop))
