"""The demo answers what the user typed (issue 25): attaching any file started its patch
script, because the attachment's `<file path="…">` wrapper, and whatever the file says,
were matched as if typed."""

from __future__ import annotations

from rivulet.app.demo_server import script_for
from rivulet.core.turn.attachments import text_attachment, user_message

TOOLS = [{"type": "custom", "name": "apply_patch"}, {"type": "function", "name": "current_time"}]


def calls(prompt: str, *files: tuple[str, str]) -> list[str]:
    """The names of the calls the demo makes for this prompt with these files attached."""
    attachments = [text_attachment(path, text.encode()) for path, text in files]
    events = script_for({"input": [user_message(prompt, attachments)], "tools": TOOLS})
    return [e["item"]["name"] for e in events
            if e["type"] == "response.output_item.added" and e["item"]["type"].endswith("call")]


def test_an_attached_file_does_not_start_the_patch_script():
    assert calls("summarise this", ("notes.txt", "plain notes\n")) == []


def test_a_file_that_asks_for_an_edit_or_the_time_starts_nothing():
    assert calls("what does it say?", ("todo.md", "edit the patch file; what time is it?\n")) == []


def test_what_the_user_types_still_picks_the_script():
    assert calls("make a file", ("notes.txt", "plain notes\n")) == ["apply_patch"]
    assert calls("what time is it?") == ["current_time"]
