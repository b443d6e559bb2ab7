"""`rivulet replay` of a recorded tool call, run as a user runs it: the call shows as
recorded and the replay ends cleanly (issue 23, part 7)."""

from __future__ import annotations

from helpers.paths import REAL

from .chat_app import RIVULET


def test_a_replayed_tool_call_ends_cleanly(term):
    capture = REAL / "llamacpp/llamacpp_text_then_shell_call.sse"
    term.start([*RIVULET, "replay", "--speed", "0", str(capture)], cwd=term.home / "work")
    # The status line's end is painted ahead of the last commit's layout (issue 22): wait for both.
    screen = term.wait(lambda s: "Failed" in s or (("Stopped:" in s or "Done in" in s) and "⚙ shell" in s),
                       what="the replay's end and its call")
    assert "Stopped: the" in screen  # "the recording ends here", cut to the status line's room
    assert "⚙ shell" in screen and "ls" in screen  # the call, as recorded
    assert "not run: a replay shows the recorded call" in screen
    for wrong in ("not available", "follow_up_limit", "max_follow_ups", "Failed"):
        assert wrong not in screen, wrong
