"""Starting the real servers the end-to-end tests talk to (aimock, gpt-oss)."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_peer(cmd: list[str], probe: str, *, env: dict | None = None, timeout: float = 60) -> subprocess.Popen:
    """Start a server and wait until `probe` answers over HTTP (any status counts)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(probe, timeout=1).read()
            return proc
        except urllib.error.HTTPError:
            return proc  # it answered: up
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                output = proc.stdout.read().decode(errors="replace")[-3000:] if proc.stdout else ""
                raise RuntimeError(f"{cmd[0]} did not start: {output}") from None
            time.sleep(0.1)


def stop_peer(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
