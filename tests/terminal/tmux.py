"""A real pseudo-terminal for tests: the app runs inside tmux, keys go in with
`send-keys`, the screen comes back with `capture-pane`.

Every test gets its own tmux server (a private `-L` socket), killed afterwards even
when the test fails. Waits are bounded polls on what the screen shows, never sleeps:
the machine running the suite may be busy, so the bounds are generous.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

WAIT = 45.0  # seconds: generous, a busy 2-core machine may start the app slowly


class Timeout(AssertionError):
    pass


def _new_socket() -> str:
    return f"rivulet-test-{uuid.uuid4().hex[:12]}"


class Terminal:
    def __init__(self, home: Path, width: int = 100, height: int = 30) -> None:
        self.socket = _new_socket()
        self.width, self.height = width, height
        self.home = home
        self.started = False

    # ---- tmux plumbing ----------------------------------------------------------------

    def tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, timeout=30)
        if check and proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def start(self, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Terminal:
        """Run argv in a new tmux session of the terminal's size. The pane stays after
        the program ends, so its last screen and exit status can be read."""
        full_env = {**base_env(self.home), **(env or {})}
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in full_env.items())
        # The exit status goes to a file: tmux's own #{pane_dead_status} is not always set.
        self.status_file = self.home / f".exit-{self.socket}"
        command = f"env -i {exports} {shlex.join(argv)}; echo $? > {shlex.quote(str(self.status_file))}"
        self.tmux("new-session", "-d", "-s", "t", "-x", str(self.width), "-y", str(self.height),
                  "-c", str(cwd or self.home), command)
        self.started = True
        self.tmux("set-option", "-t", "t", "remain-on-exit", "on")
        return self

    def kill(self) -> None:
        """Stop the tmux server. A later `start` gets a server of its own on a new socket
        (and a new exit-status file): kill-server returns before the old server has gone,
        and a start on the same socket could reach the dying one, or read its exit file."""
        if self.started:
            self.tmux("kill-server", check=False)
            self.started = False
            self.socket = _new_socket()

    # ---- input --------------------------------------------------------------------------

    def send(self, *keys: str) -> None:
        """tmux key names (Enter, PageUp, C-f, ...) and text, as one write where tmux can."""
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        """Literal text, one write (no key-name lookup)."""
        self.tmux("send-keys", "-t", "t", "-l", text)

    def paste(self, text: str, bracketed: bool) -> None:
        """A paste as a terminal does it: newlines become CR; with `bracketed`, marked
        as a paste (ESC[200~ ... ESC[201~) when the app asked for that."""
        self.tmux("set-buffer", "-b", "p", text)
        self.tmux("paste-buffer", "-b", "p", "-t", "t", *(["-p"] if bracketed else []))

    def resize(self, width: int, height: int) -> None:
        self.tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))
        self.width, self.height = width, height

    # ---- output -------------------------------------------------------------------------

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def scrollback(self) -> str:
        """The screen and the lines scrolled off it (what a program printed on exit)."""
        return self.tmux("capture-pane", "-p", "-t", "t", "-S", "-1000")

    def lines(self) -> list[str]:
        return self.screen().splitlines()

    def dead(self) -> bool:
        return self.status_file.exists() and self.status_file.read_text().endswith("\n")

    def exit_status(self) -> int | None:
        return int(self.status_file.read_text()) if self.dead() else None

    def wait(self, condition: Callable[[str], bool] | str, timeout: float = WAIT, what: str = "") -> str:
        """Poll the screen until condition(screen) holds (or the text shows); return it."""
        test = (lambda s: condition in s) if isinstance(condition, str) else condition
        deadline = time.monotonic() + timeout
        delay = 0.05
        screen = ""
        while True:
            screen = self.screen()
            if test(screen):
                return screen
            if time.monotonic() > deadline:
                raise Timeout(f"waited {timeout:.0f}s for {what or condition!r}; the screen:\n{screen}")
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def wait_exit(self, timeout: float = WAIT) -> int:
        deadline = time.monotonic() + timeout
        while not self.dead():
            if time.monotonic() > deadline:
                raise Timeout(f"the program did not exit in {timeout:.0f}s; the screen:\n{self.screen()}")
            time.sleep(0.1)
        status = self.exit_status()
        assert status is not None
        return status


def base_env(home: Path) -> dict[str, str]:
    """A clean environment: no API key, config and data under the test's own home."""
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "tmux-256color",
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "RIVULET_PROBE_SERVERS": "false",  # no background probes adding requests to a test's server
        # The tests start `python -m rivulet.app`; hints name the command a user types. A test
        # of the name itself sets its own (tests/core/test_command_name.py has the rules).
        "RIVULET_COMMAND": "rivulet",
    }
    return env


