"""Terminal notifications (cleaned model text), code blocks for copying, and the
per-workspace prompt history."""

from __future__ import annotations

import re

import pytest

from rivulet.core.store.prompt_history import KEEP, PromptHistory, history_file
from rivulet.core.terminal.clipboard import code_blocks, system_copy
from rivulet.core.terminal.notify import clean, sequence


def test_notification_sequences():
    assert sequence("bell", "t", "b") == "\a"
    assert sequence("off", "t", "b") == ""
    assert sequence("osc9", "rivulet", "done") == "\x1b]9;rivulet: done\a"
    assert sequence("osc777", "rivulet", "done") == "\x1b]777;notify;rivulet;done\a"
    assert sequence("auto", "rivulet", "done", term_program="WezTerm").startswith("\x1b]9;")
    assert sequence("auto", "rivulet", "done", term_program="xterm") == "\a"


@pytest.mark.parametrize("mode", ["osc9", "osc777"])
def test_model_text_cannot_break_out_of_the_notification(mode):
    hostile = "rm -rf x\x1b]0;pwned\x07\x9d8;;http://evil\x9c;more\nlines\u202e"
    seq = sequence(mode, "rivulet: approval needed", hostile)
    inner = seq[len("\x1b]"):-1]
    assert seq.endswith("\a") and seq.count("\a") == 1 and seq.count("\x1b") == 1
    assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in inner)
    assert "\u202e" not in inner
    assert inner.count(";") == (1 if mode == "osc9" else 3)  # only the sequence's own separators


def test_clean_limits_length():
    assert len(clean("x" * 500)) == 120


def test_code_blocks_in_order_with_their_language():
    text = "Intro\n\n```python\nprint(1)\n```\n\nthen\n\n````\nraw ``` inside\n````\n\n~~~sh\nls\n~~~\n"
    assert code_blocks(text) == [("python", "print(1)\n"), ("", "raw ``` inside\n"), ("sh", "ls\n")]


def test_no_clipboard_tool_without_a_display(monkeypatch):
    for var in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    assert system_copy("text") is None  # the app falls back to OSC 52 and says so


def test_prompt_history_per_workspace(tmp_path):
    a = PromptHistory(history_file(tmp_path / "a", tmp_path / "store"))
    b = PromptHistory(history_file(tmp_path / "b", tmp_path / "store"))
    a.append("first\nwith a newline")
    a.append("second")
    assert a.load() == ["first\nwith a newline", "second"]
    assert b.load() == []
    with open(a.path, "a") as f:
        f.write("{not json\n")
    a.append("third")
    assert a.load() == ["first\nwith a newline", "second", "third"]


def test_prompt_history_keeps_the_newest(tmp_path):
    store = PromptHistory(tmp_path / "h.jsonl")
    for n in range(KEEP + 20):
        store.append(f"p{n}")
    loaded = store.load()
    assert len(loaded) == KEEP and loaded[-1] == f"p{KEEP + 19}" and loaded[0] == "p20"


async def _turn_with_focus(monkeypatch, focused: bool) -> list[str]:
    """Run one turn with the terminal focused or not; what the app wrote to it."""
    from helpers.streams import completed, created, message, message_events
    from helpers.tui import GatedServer, make_app, settled, until

    server = GatedServer([created(), *message_events("m1", "hi"), completed([message("m1", "hi")])],
                         gate_at={0: 1})
    app = make_app(server)
    app.settings.notify = "osc9"
    written: list[str] = []
    async with app.run_test() as pilot:
        driver = app._driver
        monkeypatch.setattr(type(driver), "is_headless", property(lambda self: False))
        monkeypatch.setattr(driver, "write", written.append)
        await pilot.press(*"hello", "enter")
        await server.reached.wait()
        app.app_focus = focused  # set after the keys: a key press means the terminal has focus
        server.release()
        await until(pilot, lambda: settled(app) and app.conversation.turns == 1, "the turn's end")
        await pilot.pause()
        monkeypatch.undo()
    return [w for w in written if w.startswith("\x1b]")]


async def test_a_finished_turn_alerts_an_unfocused_terminal(monkeypatch):
    written = await _turn_with_focus(monkeypatch, focused=False)
    # The seconds are the turn's own (a loaded machine takes longer): one OSC 9 alert.
    assert len(written) == 1 and re.fullmatch(r"\x1b\]9;rivulet: turn finished: Done in \d+s\a", written[0])


async def test_a_focused_terminal_is_not_alerted(monkeypatch):
    assert await _turn_with_focus(monkeypatch, focused=True) == []


async def test_code_block_language_cannot_inject_palette_markup():
    """The palette parses command labels as markup; a fence's info string is model text."""
    from helpers.streams import completed, created, message, message_events
    from helpers.tui import GatedServer, make_app, until

    from rivulet.app.tui_palette import RivuletCommands

    text = "```py[/]thon [b]x[/b]\nprint(1)\n```\n"
    server = GatedServer([created(), *message_events("m1", text), completed([message("m1", text)])])
    app = make_app(server)
    async with app.run_test() as pilot:
        await pilot.press(*"hi", "enter")
        await until(pilot, lambda: app.last_answer() == text, "the answer")
        provider = RivuletCommands(app.screen)
        names = [cmd.title for cmd, _ in provider._commands()]
    assert "Copy code block 1 (python)" in names
