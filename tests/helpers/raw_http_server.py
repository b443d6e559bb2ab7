"""A loopback TCP server whose every connection is handled by a function of the test, byte
for byte: what a client's HTTP/1.1 transport does with keep-alive, chunked bodies, cuts and
proxies is seen on a real socket, with nothing in between. Each connection runs in its own
thread; the server counts connections and requests."""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path


class Conn:
    """One accepted connection: read requests off it, write raw bytes back."""

    def __init__(self, sock: socket.socket, server: RawServer) -> None:
        self.sock, self.server = sock, server
        self.buffer = b""

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def read_request(self) -> tuple[str, dict[str, str], bytes] | None:
        """The next request (request line, lower-cased headers, body), or None at EOF."""
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill():
                return None
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        line, *lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines)}
        if headers.get("transfer-encoding") == "chunked":
            body = self._chunked_body()
        else:
            length = int(headers.get("content-length") or 0)
            while len(self.buffer) < length:
                self._fill()
            body, self.buffer = self.buffer[:length], self.buffer[length:]
        with self.server.lock:
            self.server.requests.append(line)
        return line, headers, body

    def _chunked_body(self) -> bytes:
        body = b""
        while True:
            while b"\r\n" not in self.buffer:
                self._fill()
            size_line, _, self.buffer = self.buffer.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            while len(self.buffer) < size + 2:
                self._fill()
            body, self.buffer = body + self.buffer[:size], self.buffer[size + 2:]
            if size == 0:
                return body

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)


def response(body: bytes, status: str = "200 OK", content_type: str = "text/plain", **extra: str) -> bytes:
    """A whole response with a Content-Length."""
    headers = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in extra.items())
    return (f"HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {len(body)}\r\n{headers}\r\n"
            .encode() + body)


class RawServer:
    """`handler(conn, n)` serves the n-th connection (from 0) until it returns; the socket is then closed."""

    def __init__(self, handler: Callable[[Conn, int], None]) -> None:
        self.handler = handler
        self.lock = threading.Lock()
        self.connections = 0
        self.requests: list[str] = []  # request lines, in order
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.done = threading.Event()  # set when the test ends: a handler that waits, waits for this
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:  # closed
                return
            with self.lock:
                n = self.connections
                self.connections += 1
            threading.Thread(target=self._serve, args=(sock, n), daemon=True).start()

    def _serve(self, sock: socket.socket, n: int) -> None:
        with sock:
            try:
                self.handler(Conn(sock, self), n)
            except OSError:
                pass

    def close(self) -> None:
        self.done.set()
        self.listener.close()


def serve_keep_alive(answer: Callable[[str, dict[str, str], bytes], bytes]) -> Callable[[Conn, int], None]:
    """A handler answering every request of a connection with `answer(line, headers, body)`, until EOF."""
    def handler(conn: Conn, n: int) -> None:
        while (request := conn.read_request()) is not None:
            conn.send(answer(*request))
    return handler


def closes_after_one(answer: Callable[[str, dict[str, str], bytes], bytes],
                     reset: bool = False) -> Callable[[Conn, int], None]:
    """llama-server's way: each connection answers one request and stays open without a
    word (no `Connection: close`); when the next request arrives on it, the server hangs
    up without an answer: with a FIN once it read the request, or (reset) with an RST,
    the request unread. Each request after the first reuses a connection that is gone."""
    def handler(conn: Conn, n: int) -> None:
        request = conn.read_request()
        if request is None:
            return
        conn.send(answer(*request))
        if reset:
            conn.sock.recv(1, socket.MSG_PEEK)  # the next request's first bytes are here
            conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:
            conn.read_request()
    return handler


def self_signed_cert(folder: Path) -> tuple[Path, Path] | None:
    """A certificate for 127.0.0.1 and its key, made by the openssl command (None without it)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key
