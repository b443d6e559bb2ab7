"""An incremental Server-Sent Events decoder that works on bytes, a chunk at a time.

Why not httpx-sse's decoder: it decodes every chunk to str and parses line by line
in Python, which alone costs about as much as parsing the JSON. This one splits a
chunk's complete events with `bytes.split` and hands the JSON parser the raw bytes
(pydantic parses UTF-8 itself), so no text is decoded twice. httpx-sse stays as the
reference it is tested against (tests/core/protocol/test_sse_decoder.py).

Follows the WHATWG event-stream rules the client needs: lines end in CRLF, LF or CR;
a blank line dispatches; `:` lines are comments; one space after `field:` is dropped;
several `data:` lines join with LF; an event with no data is not dispatched; a
leading BOM is skipped; an unterminated event at EOF is discarded.
"""

from __future__ import annotations

from rivulet.core.errors import LimitExceeded

_BOM = b"\xef\xbb\xbf"


class SseDecoder:
    __slots__ = ("_buf", "_cr_pending", "_max", "_started")

    def __init__(self, max_event_bytes: int | None = None) -> None:
        # An event still open past this many bytes is refused (a line that never ends
        # would otherwise grow the buffer without bound).
        self._max = max_event_bytes
        self._buf = bytearray()
        self._started = False
        self._cr_pending = False  # a chunk ended in CR: it may be the first half of CRLF

    def feed(self, chunk: bytes) -> list[bytes]:
        """The data payloads of every event completed by this chunk."""
        if not chunk:
            return []
        if self._cr_pending:
            chunk = b"\r" + chunk
            self._cr_pending = False
        if b"\r" in chunk:
            if chunk.endswith(b"\r"):
                chunk = chunk[:-1]
                self._cr_pending = True
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buf = self._buf
        scan_from = len(buf) - 1 if buf else 0
        buf += chunk
        if not self._started:
            if len(buf) < 3 and _BOM.startswith(bytes(buf)):
                return []
            if buf.startswith(_BOM):
                del buf[:3]
                scan_from = 0
            self._started = True
        end = buf.rfind(b"\n\n", max(0, scan_from))
        if end < 0:
            if self._max is not None and len(buf) > self._max:
                size = len(buf)
                buf.clear()
                raise LimitExceeded(f"one server-sent event passed {size} bytes without ending "
                                    f"(the cap is {self._max}): refused")
            return []
        region = bytes(buf[:end])
        del buf[: end + 2]
        return _payloads(region)

    def close(self) -> list[bytes]:
        """End of stream. A pending CR is a line end, but an event still without its
        blank line is discarded, as the spec says."""
        if self._cr_pending:
            self._cr_pending = False
            return self.feed(b"\n")
        return []


def _uniform(region: bytes) -> list[bytes] | None:
    """The payloads of a region whose every event is `event: Y\ndata: X` (OpenAI's shape)
    or every one `data: X` (llama.cpp's), found with C-level bytes operations only (no
    Python step per event); None for any other region, which the general path reads.

    The region's lines then repeat with a stride of 3 (event, data, blank) or 2 (data,
    blank): the blanks are checked with `any`, and the line starts by joining a stride's
    lines and counting the prefix after each newline (a line holds no newline). Joined,
    the data lines split on the prefix into the payloads."""
    lines = region.split(b"\n")
    stride = 3 if region.startswith(b"event:") else 2
    if (len(lines) + 1) % stride:
        return None
    n = (len(lines) + 1) // stride
    if any(lines[stride - 1::stride]):
        return None
    if stride == 3:
        names = b"\n".join(lines[0::3])
        if names.count(b"\nevent:") != n - 1:
            return None
    data = b"\n".join(lines[stride - 2::stride])
    if not data.startswith(b"data: ") or data.count(b"\ndata: ") != n - 1:
        return None
    return data[6:].split(b"\ndata: ")


def _payloads(region: bytes) -> list[bytes]:
    simple = _uniform(region)
    if simple is not None:
        return simple
    out: list[bytes] = []
    for block in region.split(b"\n\n"):
        # The common shape, `event: x\ndata: {...}`, takes the fast path.
        if block.startswith(b"event:"):
            nl = block.find(b"\n")
            if nl > 0 and block.startswith(b"data: ", nl + 1) and block.find(b"\n", nl + 1) < 0:
                out.append(block[nl + 7:])
                continue
        elif block.startswith(b"data: ") and b"\n" not in block:
            out.append(block[6:])
            continue
        data: list[bytes] | None = None
        for line in block.split(b"\n"):
            if not line:
                if data is not None:  # a blank line inside (from a run of newlines)
                    out.append(b"\n".join(data))
                    data = None
                continue
            if line.startswith(b"data"):
                rest = line[4:]
                if rest and rest[:1] != b":":
                    continue  # a field named e.g. "database", not "data"
                value = rest[1:]
                if value[:1] == b" ":
                    value = value[1:]
                if data is None:
                    data = []
                data.append(value)
        if data is not None:
            out.append(b"\n".join(data))
    return out
