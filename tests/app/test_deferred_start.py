"""The chat draws before its settings are validated (app/boot.py): the composer takes keys
while `prepare` runs in a thread; what was sent meanwhile goes once it is done; a boot
that fails ends the app with its one line."""

from __future__ import annotations

import subprocess
import sys
import threading

from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, until

from rivulet.app.boot import BootError, Ready
from rivulet.app.tui import RivuletApp
from rivulet.core.config_sources import Peek
from rivulet.core.tools.router import tool_settings
from rivulet.widgets.composer import Composer


def answer(text: str) -> list[str]:
    return [created(), *message_events("msg_1", text), completed([message("msg_1", text)])]


class SlowBoot:
    """A boot that waits in its thread until the test lets it finish."""

    def __init__(self, tmp_path, server: GatedServer, error: Exception | None = None, prompts=None) -> None:
        self.prompts = prompts
        self.go = threading.Event()
        self.ran = threading.Event()
        self.tmp_path, self.server, self.error = tmp_path, server, error
        self.thread: str | None = None

    def __call__(self) -> Ready:
        self.thread = threading.current_thread().name
        self.ran.set()
        assert self.go.wait(30)
        if self.error is not None:
            raise self.error
        s = settings(model="boot-model", workspace=str(self.tmp_path), shell_tool=False, save_sessions=False)
        return Ready(s, self.server.transport(), tool_settings(s), prompts=self.prompts)


def booting(boot: SlowBoot, **view) -> RivuletApp:
    view.setdefault("model", "peeked-model")
    app = RivuletApp.booting(Peek(**view), boot, demo=False)
    app.remember_theme = False
    return app


async def test_keys_typed_while_the_boot_runs_are_handled_in_order_once_it_is_done(tmp_path):
    server = GatedServer(answer("hello back"))
    boot = SlowBoot(tmp_path, server)
    app = booting(boot, theme="rivulet-light")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, boot.ran.is_set, "the boot to start")
        assert boot.thread != threading.main_thread().name  # off the UI thread
        assert app.conversation is None and app.focused is app.query_one(Composer)
        assert "peeked-model" in str(app.query_one("#banner").render()) and app.theme == "rivulet-light"
        await pilot.press(*"hi there", "enter")
        await pilot.pause()
        # The characters show at once; the Enter waits for the chat.
        assert not server.requests and app.query_one(Composer).text == "hi there"
        boot.go.set()
        await until(pilot, lambda: server.requests, "the held message to be sent")
        assert server.requests[0]["input"][0]["content"][0]["text"] == "hi there"
        await until(pilot, lambda: app.conversation.turns == 1, "the turn")
        assert "boot-model" in str(app.query_one("#banner").render())  # the validated settings win
        assert app.theme == "rivulet-dark"  # the settings' theme (the default), not the peek's


async def test_an_enter_among_keys_held_while_starting_is_a_newline(tmp_path):
    """Nobody types a line, Enter and more within the start's few tenths of a second: that
    is a paste without markers or a script, and its Enter is a newline, as in any burst."""
    server = GatedServer(answer("x"))
    boot = SlowBoot(tmp_path, server)
    app = booting(boot)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, boot.ran.is_set, "the boot to start")
        await pilot.press(*"one", "enter", *"two")
        boot.go.set()
        # The newline is in the text: the Enter was resolved as one, not as a send.
        await until(pilot, lambda: app.query_one(Composer).text == "one\ntwo", "both lines in the composer")
        assert not server.requests


async def test_a_key_that_needs_the_settings_acts_as_it_would_once_they_are_there(tmp_path):
    """Up recalls from the prompt history that the boot loads: pressed before it, it still
    recalls (handled after the history is there, not lost to a race)."""
    from rivulet.core.store.prompt_history import PromptHistory

    prompts = PromptHistory(tmp_path / "prompts.jsonl")
    prompts.append("an earlier prompt")
    boot = SlowBoot(tmp_path, GatedServer(answer("x")), prompts=prompts)
    app = booting(boot)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, boot.ran.is_set, "the boot to start")
        await pilot.press("up", *" again")
        boot.go.set()
        await until(pilot, lambda: app.query_one(Composer).text == "an earlier prompt again", "the recalled prompt")


async def test_a_failed_boot_ends_the_app_with_its_line(tmp_path):
    boot = SlowBoot(tmp_path, GatedServer(answer("x")), BootError("bad 'stream_fps' in config file: too fast", 2))
    app = booting(boot)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, boot.ran.is_set, "the boot to start")
        boot.go.set()
        await until(pilot, lambda: app.boot_error is not None, "the boot to fail")
    assert app.return_code == 2 and app.boot_error.message.startswith("bad 'stream_fps'")


FIRST_FRAME = """
import sys
from rivulet.app.tui import RivuletApp
from rivulet.core.config_sources import peek
app = RivuletApp.booting(peek(), lambda: None, demo=False)
print(",".join(m for m in ("pydantic", "pydantic_settings", "httpx", "mcp", "rivulet.core.config",
                           "rivulet.core.turn.conversation", "rivulet.core.tools.router") if m in sys.modules))
"""


def test_the_first_frame_imports_no_settings_http_or_agent_stack(tmp_path):
    env = {"RIVULET_CONFIG": str(tmp_path / "none.toml"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    (tmp_path / "none.toml").write_text("")
    out = subprocess.run([sys.executable, "-c", FIRST_FRAME], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0 and out.stdout.strip() == "", out.stdout + out.stderr


async def test_the_app_keys_act_while_the_boot_runs(tmp_path):
    """ctrl+q quits at once, also while the start hangs (keys for the composer wait)."""
    boot = SlowBoot(tmp_path, GatedServer(answer("x")))
    app = booting(boot)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, boot.ran.is_set, "the boot to start")
            await pilot.press("ctrl+q")
            await until(pilot, lambda: app._exit, "the app to quit")
        assert app.conversation is None and app.boot_error is None
    finally:
        boot.go.set()


async def test_a_boot_that_breaks_is_one_line_and_an_exit(tmp_path):
    boot = SlowBoot(tmp_path, GatedServer(answer("x")), RuntimeError("disk on fire\nsecond line"))
    app = booting(boot)
    async with app.run_test(size=(100, 30)) as pilot:
        boot.go.set()
        await until(pilot, lambda: app.boot_error is not None, "the boot to fail")
    assert app.return_code == 1 and app.boot_error.message == "the chat could not start: disk on fire"  # its first line


async def test_the_chat_starts_under_a_palette_opened_while_it_was_starting(tmp_path):
    boot = SlowBoot(tmp_path, GatedServer(answer("x")))
    app = booting(boot)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, boot.ran.is_set, "the boot to start")
        await pilot.press("ctrl+p")  # the app's own key: at once
        await until(pilot, lambda: app.screen is not app.screen_stack[0], "the palette")
        boot.go.set()
        await until(pilot, lambda: app.conversation is not None and app.attachments is not None, "the chat to start")
        assert app.boot_error is None and not app._exit
        assert "boot-model" in str(app.screen_stack[0].query_one("#banner").render())
