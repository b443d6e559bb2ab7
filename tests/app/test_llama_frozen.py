"""Old entries of a chat with llama-server, scrolled back to (issue 42's field run): the
first turn (a long prompt, llama.cpp's apply_patch function call, its protocol note) is
frozen into lines by the later turns, and drawn as it was live: the note in its turn,
the prompt's wrapped rows each behind the bar, the patch as its diff, not its JSON."""

from __future__ import annotations

import pytest
from helpers.recorded import recording
from helpers.tui import GatedServer, follow_up_payloads, make_app, settled, until

from rivulet.app.tui import RivuletApp
from rivulet.core.protocol.recordings import sse_payloads
from rivulet.core.tools.builtin import BuiltinTools

pytestmark = [pytest.mark.pilot, pytest.mark.usefixtures("isolated_config")]

# Long enough to wrap twice at 80 columns.
PROMPT = ("Please add a file named hello.txt that holds the single word hi, using the apply_patch tool "
          "with a proper patch, and then tell me in one short line that it was added to the workspace")
LATER = ["second question", "third question", "fourth question", "fifth question"]


def screen_lines(app: RivuletApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def scrolled_to_top() -> list[str]:
    """Turn 1 on llama-server's recorded apply_patch call, four more turns, then ctrl+home:
    the screen's lines."""
    patch_call = sse_payloads(recording("llamacpp_apply_patch_function.sse").body)
    answers = [follow_up_payloads("Added.", "r1")] + [follow_up_payloads(f"Answer {n}.", f"r{n}") for n in (2, 3, 4, 5)]
    server = GatedServer(patch_call, *answers)
    app = make_app(server, tools=BuiltinTools())
    async with app.run_test(size=(80, 24)) as pilot:
        for turn, prompt in enumerate([PROMPT, *LATER], start=1):
            await pilot.press(*prompt, "enter")
            await until(pilot, lambda turn=turn: app.conversation.turns == turn and settled(app), f"turn {turn}")
        frozen = app._transcript.frozen
        assert frozen is not None and len(frozen.entries) >= 4, "turn 1 is frozen"
        await pilot.press("ctrl+home")
        await until(pilot, lambda: any("Please add a file" in line for line in screen_lines(app)), "the first prompt")
        await pilot.pause()
        return screen_lines(app)


def row(lines: list[str], text: str) -> int:
    return next((y for y, line in enumerate(lines) if text in line), -1)


async def test_an_old_turn_scrolled_back_to_is_drawn_as_it_was_live():
    lines = await scrolled_to_top()
    shown = "\n".join(lines)
    prompt_top = row(lines, "Please add a file")
    # 1. The protocol note stays in its turn: below the first prompt, above the second.
    note = row(lines, "protocol note")
    assert note > prompt_top, f"the protocol note is not in turn 1:\n{shown}"
    second = row(lines, "second question")
    assert second == -1 or note < second, f"the protocol note is below a later turn:\n{shown}"
    # 2. Every row of the wrapped prompt is behind the bar, as the live entry's border drew it.
    prompt_rows = []
    for line in lines[prompt_top:]:
        words = line.strip().removeprefix("▌").strip()
        if not words or words not in PROMPT:
            break
        prompt_rows.append(line)
    assert len(prompt_rows) == 3, shown
    assert all(line.lstrip().startswith("▌") for line in prompt_rows), f"a wrapped row lost its bar:\n{shown}"
    # 3. The apply_patch call as its diff, not its JSON arguments.
    assert row(lines, "hello.txt  +1 -0") > prompt_top, f"the patch is not drawn as a diff:\n{shown}"
    assert '"input"' not in shown and "*** Begin Patch" not in shown, shown
