"""MCP in a real terminal: a chat against aimock whose model calls a tool of the real
stdio test server (tests/peers/mcp_server.py, in the default sandbox). The approval
dialog shows the server, the tool and the arguments; the result lands in the
transcript; /mcp lists the server and its tools; quitting leaves no server behind.
`exec` asks on the terminal the same way."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .chat_app import RIVULET, answer_approval, chat_ready

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "peers" / "mcp_server.py"


@pytest.fixture(scope="module")
def model() -> Iterator[str]:
    from helpers.aimock import start_aimock
    from helpers.peers import stop_peer

    proc, url = start_aimock(ROOT / "fixtures/aimock/mcp.json", "--validate-on-load")
    yield url
    stop_peer(proc)


def _config(home: Path) -> dict[str, str]:
    """A config.toml with the test server (and a broken one), written the way a user would:
    with `rivulet mcp add`."""
    import subprocess

    config = home / "config.toml"
    config.write_text("# my settings\n")
    env = {"RIVULET_CONFIG": str(config), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    marks = home / "work" / "marks"  # in the workspace: the sandboxed server may write there
    for argv in (["test", "--env", f"MCP_TEST_MARKS={marks}", "--startup-timeout", "60", "--", sys.executable,
                  str(SERVER)],
                 ["broken", "--", sys.executable, "-c", "import sys; print('no database here', file=sys.stderr); "
                  "sys.exit(1)"]):
        subprocess.run([*RIVULET, "mcp", "add", *argv], env=env, check=True, capture_output=True, timeout=60)
    return {"RIVULET_CONFIG": str(config)}


def servers_of(home: Path) -> set[int]:
    """Processes whose command line names this test's home (the servers and their sandbox)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if str(home).encode() in cmdline and b"mcp_server.py" in cmdline and state != "Z":
                found.add(int(entry))
    return found


def answer(term, key: str) -> None:
    answer_approval(term, key, "Call this MCP tool?")  # once the dialog takes answers


def test_a_chat_calls_an_mcp_tool_after_approval(term, model):
    env = _config(term.home)
    term.start([*RIVULET, "--base-url", model], cwd=term.home / "work", env=env)
    term.wait(chat_ready, what="the chat")
    term.wait("MCP server broken failed", what="the broken server's toast")
    term.type("mcp-echo")
    term.send("Enter")
    screen = term.wait("Call this MCP tool?", what="the approval dialog")
    assert "server test · tool echo · the server marks it read-only" in screen
    assert '"text": "hello MCP"' in screen and "Yes (y)" in screen and "Stop (s)" in screen
    assert servers_of(term.home)  # the server runs while the chat does
    answer(term, "y")
    screen = term.wait("The MCP server answered.", what="the answer after the tool's result")
    assert "⚙ test · echo" in screen and "→ echo: hello MCP" in screen
    term.send("C-p")
    term.wait("Search for commands", what="the palette")
    term.type("MCP servers")
    term.wait("their state, tools and errors", what="the command")
    term.send("Enter")
    screen = term.wait("(esc to close)", what="the MCP view")
    assert "● test  stdio · ready · sandbox workspace-write" in screen
    assert "echo, add, red_pixel" in screen
    assert "✗ broken  stdio · failed" in screen and "no database here" in screen
    term.send("Escape")
    term.wait(lambda s: "(esc to close)" not in s, what="the view closing")
    # Esc during a running call cancels it on the server.
    marks = term.home / "work" / "marks"
    term.type("mcp-hang")
    term.send("Enter")
    term.wait("Call this MCP tool?", what="the hang's approval")
    answer(term, "y")
    term.wait(lambda s: marks.exists() and "hang started" in marks.read_text(), what="the hang running")
    term.send("Escape")
    screen = term.wait("→ aborted", what="the call aborted")
    assert "Interrupted" in screen
    term.wait(lambda s: "hang cancelled" in marks.read_text(), what="the cancellation reaching the server")
    term.send("C-q")
    assert term.wait_exit() == 0
    assert not servers_of(term.home)  # nothing survives the chat
    assert "Traceback" not in term.scrollback()


def test_exec_asks_on_the_terminal_before_an_mcp_call(term, model):
    env = _config(term.home)
    term.start([*RIVULET, "--base-url", model, "exec", "--approval", "ask", "mcp-pid"], cwd=term.home / "work",
               env={**env, "RIVULET_SAVE_SESSIONS": "false"})
    screen = term.wait("Call this MCP tool (1 line of arguments)?", what="the question")
    assert "1 │ {}" in screen and "server test · tool pid" in screen  # as the chat's dialog shows it
    term.send("y", "Enter")
    assert term.wait_exit() == 0, term.screen()
    assert "That is the server's process id." in term.scrollback()
    assert not servers_of(term.home)


def test_mcp_list_in_a_terminal(term):
    env = _config(term.home)
    term.start([*RIVULET, "mcp", "list", "--probe"], cwd=term.home / "work", env=env)
    assert term.wait_exit() == 1  # the broken server did not start
    out = term.scrollback()
    assert "test    stdio  enabled" in out and "ready · sandbox workspace-write" in out
    assert "failed: Connection closed" in out and "no database here" in out
