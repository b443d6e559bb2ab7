"""The demo server never hangs the chat's quit: an accept() with nobody there (a client
gone between select() and accept(), as when the chat quits mid-connect) gives up after
ACCEPT_WAIT, so serve_forever goes on and shutdown() returns."""

from __future__ import annotations

import socket
import threading

from rivulet.app.demo_server import ACCEPT_WAIT, DemoServer


def test_an_accept_with_nobody_waiting_gives_up_and_shutdown_returns():
    demo = DemoServer()
    server = demo._server
    assert server.socket.gettimeout() == ACCEPT_WAIT
    # What serve_forever does once select() said "readable", with the client already gone.
    handled = threading.Thread(target=server._handle_request_noblock, daemon=True)
    handled.start()
    handled.join(timeout=30 * ACCEPT_WAIT)  # a hang guard only: it returns after ACCEPT_WAIT
    assert not handled.is_alive()
    demo.start()
    with socket.create_connection(("127.0.0.1", server.server_port)) as client:  # still serving
        client.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert client.recv(12).startswith(b"HTTP/1.")
    stopper = threading.Thread(target=demo.stop, daemon=True)
    stopper.start()
    stopper.join(timeout=30)
    assert not stopper.is_alive()
