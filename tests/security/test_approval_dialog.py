"""Attack 3 of issue 11: the approval dialog hid what it asked about (a command whose
first line looked harmless and whose 81st line did the work). The dialog now shows
the whole command, numbered and scrollable, with hidden characters made visible, its
directory and time limit, and for a patch every file and the full diff; the buttons
stay on screen at 80x24."""

from __future__ import annotations

import pytest
from agent_helpers import agent_app, answer, patch_turn, shell_turn
from helpers.tui import GatedServer, settled, until
from hostile import screen_output

from rivulet.widgets.dialogs import ApprovalScreen

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


async def _ask(app, pilot) -> ApprovalScreen:
    await pilot.press(*"go", "enter")
    await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
    await pilot.pause()
    return app.screen


def _buttons_fully_visible(screen) -> bool:
    from textual.widgets import Button

    region = screen.region
    buttons = list(screen.query(Button))
    return len(buttons) == 4 and all(region.contains_region(b.region) and b.region.area > 0 for b in buttons)


async def test_a_hidden_81st_line_is_shown_and_counted(tmp_path):
    command = "git status" + "\n" * 80 + "touch HIDDEN"  # runs in the workspace, tmp_path
    server = GatedServer(shell_turn(command), answer())
    app = agent_app(server, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _ask(app, pilot)
        _, first = screen_output(app)
        assert "81 lines" in first
        detail = screen.query_one("#approval-detail")
        assert detail.max_scroll_y > 0  # it scrolls
        detail.scroll_end(animate=False)
        await pilot.pause()
        _, plain = screen_output(app)
        assert "81 │ touch HIDDEN" in plain
        assert _buttons_fully_visible(screen)
        await pilot.press("n")
        await until(pilot, lambda: settled(app), "the turn")
    assert not (tmp_path / "HIDDEN").exists()


async def test_control_bidi_and_invisible_characters_are_shown_with_a_warning(tmp_path):
    command = "echo ok\r# \u202eharmless\u202c\u200b \x1b[8mconcealed"
    server = GatedServer(shell_turn(command), answer())
    app = agent_app(server, tmp_path)
    async with app.run_test(size=(220, 30)) as pilot:
        await _ask(app, pilot)
        _, plain = screen_output(app)
        await pilot.press("n")
    assert "control characters and bidirectional-text controls and invisible characters" in plain
    assert "echo ok␍# \\u202eharmless\\u202c\\u200b ␛[8mconcealed" in plain


async def test_the_directory_and_the_time_limit_are_shown(tmp_path):
    (tmp_path / "sub").mkdir()
    server = GatedServer(shell_turn("make", workdir="sub", timeout_ms=5000, justification="build it"), answer())
    app = agent_app(server, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _ask(app, pilot)
        _, plain = screen_output(app)
        assert _buttons_fully_visible(screen)
        await pilot.press("n")
    assert "in sub · time limit 5 s" in plain and "why: build it" in plain


async def test_a_patch_shows_every_file_and_the_whole_diff(tmp_path):
    files = [f"pkg/module_{n:02d}.py" for n in range(30)]
    big = [f"+line {n} " + "x" * 90 for n in range(3000)]  # ~300 kB of diff: past any display cut
    patch = "*** Begin Patch\n" + "".join(f"*** Add File: {f}\n+print({n})\n" for n, f in enumerate(files))
    patch += "*** Add File: big.txt\n" + "\n".join(big) + "\n+THE LAST LINE\n*** End Patch\n"
    server = GatedServer(patch_turn(patch), answer())
    app = agent_app(server, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _ask(app, pilot)
        shown = str(screen.query_one("#approval-detail Static").render())
        _, plain = screen_output(app)
        assert "31 files" in plain
        assert _buttons_fully_visible(screen)
        await pilot.press("n")
    for f in files:
        assert f"A {f}  (+1 -0)" in shown
    assert "A big.txt  (+3001 -0)" in shown
    assert "+THE LAST LINE" in shown
    assert not (tmp_path / "big.txt").exists()


async def test_hidden_characters_in_a_patch_are_flagged(tmp_path):
    patch = ("*** Begin Patch\n*** Add File: a\u200bccess.py\n"
             "+if user != \"admin\u202e \u2066// check\u2069 \u2066\":  # Trojan Source\n*** End Patch\n")
    server = GatedServer(patch_turn(patch), answer())
    app = agent_app(server, tmp_path)
    async with app.run_test(size=(200, 30)) as pilot:
        await _ask(app, pilot)
        _, plain = screen_output(app)
        await pilot.press("n")
    assert "⚠ The list of files holds invisible characters" in plain
    assert "⚠ The patch's content holds bidirectional-text controls" in plain
    assert "a\\u200bccess.py" in plain
