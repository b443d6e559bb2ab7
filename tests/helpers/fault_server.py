"""A real local HTTP server for fault tests: each request is answered by a function of
the test (status, headers, and a body that may be endless), over a real socket, so the
client's reading is what is tested, not a mock's. It counts the bytes it wrote."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from helpers.local_server import Reply, Request, StubServer

Answer = Reply  # (status, headers, body chunks): the body is sent with chunked transfer-encoding


class FaultServer(StubServer):
    """`answer(n, method, path) -> Answer` for the n-th request (from 0)."""

    def __init__(self, answer: Callable[[int, str, str], Answer]) -> None:
        super().__init__()
        self.answer = answer

    def reply(self, request: Request) -> Reply:
        answer = self.answer(request.n, request.method, request.path)
        return Reply(answer.status, answer.headers, answer.body, "chunked")

    @property
    def requests(self) -> int:
        return len(self.local.requests)

    @property
    def sent(self) -> int:
        """Body bytes written so far (what the client could have read)."""
        return self.local.sent


def endless(piece: bytes, limit: int = 1 << 40) -> Iterator[bytes]:
    """`piece` again and again (up to `limit` bytes: in practice, until the client leaves)."""
    sent = 0
    while sent < limit:
        yield piece
        sent += len(piece)


def gzip_bomb(inflated: int, piece: bytes = b"\0") -> Iterator[bytes]:
    """A gzip stream that inflates to `inflated` bytes of `piece`, compressed ~1000:1,
    made as it is sent (never held whole)."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = piece * (1024 * 1024 // len(piece))
    for _ in range(inflated // len(block)):
        out = z.compress(block)
        if out:
            yield out
    yield z.flush()
