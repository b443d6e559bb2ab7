"""A call as the editor sees it (app/acp/tool_calls.py): a patch's diff is the whole file
before and after, whether it is read before the patch runs or after (the relay's
subscriber may see the committed call either side of the tool), and a command's status
comes from its output."""

from __future__ import annotations

from rivulet.app.acp.tool_calls import output_status, patch_diffs, title_of, tool_kind

PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch"
BEFORE, AFTER = "zero\none\ntwo\nthree\n", "zero\none\nTWO\nthree\n"


def _diffs(tmp_path):
    return [(d.path, d.old_text, d.new_text) for d in patch_diffs(PATCH, tmp_path)]


def test_a_patch_diff_is_the_whole_file_before_and_after_it_runs(tmp_path):
    (tmp_path / "a.txt").write_text(BEFORE)
    expected = [(str(tmp_path / "a.txt"), BEFORE, AFTER)]
    assert _diffs(tmp_path) == expected
    (tmp_path / "a.txt").write_text(AFTER)  # the patch ran before the relay read it
    assert _diffs(tmp_path) == expected
    (tmp_path / "a.txt").write_text("rewritten since\n")  # neither: the hunks' own lines
    assert _diffs(tmp_path) == [(str(tmp_path / "a.txt"), "one\ntwo", "one\nTWO")]


def test_an_added_file_has_no_old_text(tmp_path):
    added = "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch"
    assert [(d.old_text, d.new_text) for d in patch_diffs(added, tmp_path)] == [(None, "hello\n")]


def test_a_command_title_kind_and_status():
    call = {"type": "function_call", "name": "shell", "call_id": "c", "arguments": '{"command": "ls -l"}'}
    assert (title_of(call), tool_kind(call)) == ("ls -l", "execute")
    out = {"type": "function_call_output", "call_id": "c"}
    assert output_status({**out, "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"}) == "completed"
    assert output_status({**out, "output": "Exit code: 2\nWall time: 0.1 seconds\nOutput:\n"}) == "failed"
    assert output_status({**out, "output": "The user declined to run this command; it did not run."}) == "failed"
    assert output_status({**out, "output": "aborted: the user interrupted the turn"}) == "failed"


def test_text_the_editor_must_not_read_as_markdown_is_fenced_past_its_own_backticks():
    from rivulet.app.acp.permission import tool_call
    from rivulet.app.acp.tool_calls import code_content, output_content
    from rivulet.core.tools.approval import ApprovalRequest

    assert code_content("# not a heading\n*x*\n")[0].content.text == "```\n# not a heading\n*x*\n```"
    assert code_content("a ``` b ```` c")[0].content.text == "`````\na ``` b ```` c\n`````"
    assert code_content("") == []
    assert output_content("The user declined to run this command")[0].content.text.startswith("The user")
    patch = ApprovalRequest("patch", "c", "A new.txt", detail="--- /dev/null\n+++ b/new.txt\n+hi",
                            reason="because")
    texts = [c.content.text for c in tool_call(patch).content]
    assert texts == ["```diff\n--- /dev/null\n+++ b/new.txt\n+hi\n```", "Why: because"]
