"""Caps on the bytes one server answer can make rivulet hold, and the bounded reading
that enforces them.

A server is as hostile as the model: a 2 MB gzip body inflates to 2 GB, an SSE line
or a WebSocket message may never end, an error page may be endless. So every body is
read through here: decompressed a bounded piece at a time (zlib's `max_length`, never
one network chunk inflated whole, which httpx would do), counted, and refused past
its cap with one line. Only the encodings inflated here are asked for
(`ACCEPT_ENCODING`), so an installed brotli or zstd library changes nothing.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

from rivulet.core.errors import LimitExceeded, MalformedEventError

if TYPE_CHECKING:
    import httpx

    from rivulet.core.config import Settings

ACCEPT_ENCODING = "gzip, deflate"
# The part of an error body kept: enough for any real message (the rest is dropped unread).
ERROR_BODY_MAX = 1024 * 1024
# One SSE event, one WebSocket message, one JSON answer (/models, /responses/compact) may
# carry a whole item (max_item_chars characters, up to 4 bytes each in UTF-8) and never
# less than this floor.
_STREAM_FLOOR = 1024 * 1024
# The largest piece inflated at once.
_PIECE = 256 * 1024


def message_max_bytes(settings: Settings) -> int:
    """The cap on one SSE event, one WebSocket message and one JSON body."""
    return max(_STREAM_FLOOR, 4 * settings.max_item_chars)


def mib(n: int) -> str:
    return f"{n / (1024 * 1024):g} MiB"


class Inflater:
    """A body's Content-Encoding undone a bounded piece at a time."""

    def __init__(self, encoding: str | None) -> None:
        coding = (encoding or "").strip().lower()
        self._raw_deflate_tried = False
        self._z: zlib._Decompress | None
        if coding in ("", "identity"):
            self._z = None
        elif coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif coding == "deflate":
            self._z = zlib.decompressobj()
        else:
            raise MalformedEventError(f"the server answered with an unsupported content encoding {coding!r}")
        self.coding = coding

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._z is None:
            if data:
                yield data
            return
        while data:
            try:
                out = self._z.decompress(data, _PIECE)
            except zlib.error as exc:
                if self.coding == "deflate" and not self._raw_deflate_tried:
                    # "deflate" is often sent without its zlib header (as httpx also allows).
                    self._raw_deflate_tried = True
                    self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise MalformedEventError(f"the server's {self.coding} body is corrupt: {exc}") from None
            self._raw_deflate_tried = True
            data = self._z.unconsumed_tail
            if out:
                yield out


async def body_pieces(response: httpx.Response) -> AsyncIterator[bytes]:
    """The decompressed body, in pieces of at most 256 KiB (or one network chunk)."""
    if response.is_stream_consumed:  # read whole already (a response made from bytes): nothing to bound
        content = response.content
        for start in range(0, len(content), _PIECE):
            yield content[start:start + _PIECE]
        return
    inflater = Inflater(response.headers.get("content-encoding"))
    async for raw in response.aiter_raw():
        for piece in inflater.feed(raw):
            yield piece


async def read_capped(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    """At most `cap` bytes of the decompressed body, and whether there was more (left
    unread: the connection is closed with the response)."""
    out = bytearray()
    async for piece in body_pieces(response):
        room = cap - len(out)
        if len(piece) > room:
            out += piece[:room]
            return bytes(out), True
        out += piece
    return bytes(out), False


async def read_within(response: httpx.Response, cap: int, what: str) -> bytes:
    """The whole decompressed body, or LimitExceeded once it passes `cap`."""
    body, more = await read_capped(response, cap)
    if more:
        raise LimitExceeded(f"{what} is larger than {mib(cap)}: refused, not read further")
    return body
