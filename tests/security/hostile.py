"""Shared material of the security tests: hostile text, a hostile local server, and
ways to look at what reached the screen and the terminal."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers.local_server import Reply, Request, StubServer

ROOT = Path(__file__).resolve().parents[2]

# Markup a Rich/Textual string would act on.
MARKUP = ["[/b]", "[@click=app.screenshot('x.svg','/tmp')]", "[link=https://evil.example]L[/link]"]
# Terminal escapes: every one would do something if it reached the terminal intact.
ESCAPES = {
    "osc52": "\x1b]52;c;cHduZWQ=\x07",  # write the clipboard
    "osc8": "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",  # hyperlink
    "osc2": "\x1b]2;PWNED-TITLE\x07",  # set the window title
    "csi": "\x1b[2J\x1b[31m",  # clear screen, red
    "c1": "\x9b31m\x9d0;T\x9c",  # C1 CSI and OSC
    "dcs": "\x1bPq#0;2;0;0;0\x1b\\",  # device control string (sixel)
    "bidi": "\u202eevil\u202c\u2066x\u2069",
    "zero_width": "a\u200bb\u2060c\ufeff",
    "tags": "\U000e0041\U000e0042",  # invisible "AB" (ASCII smuggling)
}
HOSTILE = " ".join(MARKUP) + " " + "".join(ESCAPES.values())
FORBIDDEN = ["\x1b", "\x9b", "\x9c", "\x9d", "\x90", "\u202e", "\u2066", "\u200b", "\u2060", "\ufeff", "\U000e0041"]


_OWN_CSI = re.compile(r"\x1b\[[0-9;]*[mH]")  # what a screen render itself emits: colours, cursor moves


def assert_clean(text: str, where: str) -> None:
    """Nothing in `text` that a terminal would act on or hide. In a rendered screen only
    the renderer's own colour and cursor sequences may use ESC (the hostile CSI is `J`)."""
    text = _OWN_CSI.sub("", text)
    for bad in FORBIDDEN:
        assert bad not in text, f"{where}: {bad!r} got through"


def screen_output(app: Any) -> tuple[str, str]:
    """(the bytes a terminal would receive for the whole screen, its plain text)."""
    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens,
                                                        simplify=True))
    return console.file.getvalue(), console.export_text(styles=False)


class HostileServer(StubServer):
    """A local Responses server: `respond(request_json, headers)` returns
    (status, content-type, body bytes) for each POST, and for each GET with an empty
    request (a WebSocket upgrade attempt lands there). It answers in HTTP/1.0, as it
    always did: the websockets client refuses that status line (it wants HTTP/1.1), so
    a test of the WebSocket transport meets the fallback it was written for."""

    def __init__(self, respond: Callable[[dict, dict], tuple[int, str, bytes]]) -> None:
        super().__init__(protocol="HTTP/1.0")
        self.respond = respond
        self.requests: list[dict] = []

    def reply(self, request: Request) -> Reply:
        data = request.json() if request.method == "POST" else {}
        if request.method == "POST":
            self.requests.append(data)
        status, ctype, body = self.respond(data, dict(request.headers))
        return Reply(status, {"content-type": ctype}, body)


def rivulet_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    config = tmp / "config.toml"
    config.touch()  # $RIVULET_CONFIG must name an existing file
    env.update({"RIVULET_CONFIG": str(config), "RIVULET_SESSIONS_DIR": str(tmp / "sessions"),
                "HOME": str(tmp)})
    env.update(extra)
    return env


class Tmux:
    """A real pseudo-terminal: rivulet runs in a detached tmux session; everything the
    program writes to the terminal is also piped, raw, into a file."""

    def __init__(self, tmp: Path, command: list[str], env: dict[str, str], size: tuple[int, int] = (100, 30),
                 stderr_to_file: bool = False) -> None:
        assert shutil.which("tmux"), "tmux is needed (scripts/setup installs it)"
        self.name = f"rivulet-sec-{os.getpid()}-{time.monotonic_ns()}"
        self.raw = tmp / "raw.out"
        self.status = tmp / "exit.status"
        self.stderr = tmp / "stderr.txt"
        script = tmp / "run.sh"
        exports = "".join(f"export {k}={_sh(v)}\n" for k, v in env.items())
        # Textual draws on stderr: only a test of what is printed after it exits sends it to a file.
        redirect = f" 2>{_sh(str(self.stderr))}" if stderr_to_file else ""
        go = tmp / "go"  # the program starts once the pipe is in place: no output is missed
        script.write_text(f"{exports}cd {_sh(str(tmp))}\nwhile [ ! -e {_sh(str(go))} ]; do sleep 0.05; done\n"
                          f"{' '.join(_sh(c) for c in command)}{redirect}\n"
                          f"echo $? > {_sh(str(self.status))}\nsleep 600\n")
        subprocess.run(["tmux", "-L", self.name, "new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]),
                        f"bash --norc --noprofile {_sh(str(script))}"],
                       check=True, env={**os.environ, "TERM": "xterm-256color"})
        subprocess.run(["tmux", "-L", self.name, "pipe-pane", "-t", "t", "-o", f"cat >> {_sh(str(self.raw))}"],
                       check=True)
        go.touch()

    def screen(self) -> str:
        return subprocess.run(["tmux", "-L", self.name, "capture-pane", "-p", "-t", "t"], capture_output=True,
                              text=True).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "-L", self.name, "send-keys", "-t", "t", *keys], check=True)

    def wait_for(self, predicate: Callable[[], bool], what: str, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")

    def exit_status(self) -> int | None:
        text = self.status.read_text().strip() if self.status.exists() else ""
        return int(text) if text else None

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True)


def _sh(text: str) -> str:
    import shlex

    return shlex.quote(text)


RIVULET = [sys.executable, "-m", "rivulet.app"]
