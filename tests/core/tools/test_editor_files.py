"""A patch through the editor's files (core/tools/editor_files.py, an ACP client's fs):
planned on the text the editor holds (its unsaved buffer, not the disk's) and written
through it; a delete, which has no editor method, goes to the files themselves."""

from __future__ import annotations

from pathlib import Path

from helpers.calls import custom_call

from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.router import AgentTools, ToolSettings

PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch"


class Editor:
    def __init__(self, buffers: dict[Path, str], fail: bool = False) -> None:
        self.buffers, self.fail = buffers, fail
        self.written: list[tuple[Path, str]] = []

    async def read(self, path: Path) -> str | None:
        return self.buffers.get(path, path.read_text() if path.is_file() else None)

    async def write(self, path: Path, text: str) -> None:
        if self.fail:
            raise OSError("the editor refused")
        self.written.append((path, text))
        path.write_text(text)


def _tools(tmp_path: Path, editor: Editor | None) -> AgentTools:
    tools = AgentTools(ToolSettings(workspace=tmp_path), ApprovalPolicy("never-ask"))
    tools.editor_files = editor
    return tools


async def test_a_patch_applies_to_the_editors_unsaved_buffer_and_is_written_through_it(tmp_path):
    (tmp_path / "a.txt").write_text("old\n")  # the disk
    editor = Editor({tmp_path / "a.txt": "old\nunsaved line\n"})  # what the editor shows
    out = await _tools(tmp_path, editor).run(custom_call("x", "c1", "apply_patch", PATCH))
    assert out["output"].startswith("Success")
    assert editor.written == [(tmp_path / "a.txt", "new\nunsaved line\n")]


async def test_without_an_editor_the_disk_is_patched(tmp_path):
    (tmp_path / "a.txt").write_text("old\n")
    out = await _tools(tmp_path, None).run(custom_call("x", "c1", "apply_patch", PATCH))
    assert out["output"].startswith("Success") and (tmp_path / "a.txt").read_text() == "new\n"


async def test_a_delete_goes_to_the_files_and_an_editor_that_fails_is_one_line(tmp_path):
    (tmp_path / "gone.txt").write_text("x\n")
    editor = Editor({})
    delete = "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch"
    out = await _tools(tmp_path, editor).run(custom_call("x", "c1", "apply_patch", delete))
    assert out["output"].startswith("Success") and not (tmp_path / "gone.txt").exists() and editor.written == []
    (tmp_path / "a.txt").write_text("old\n")
    failed = await _tools(tmp_path, Editor({}, fail=True)).run(custom_call("y", "c2", "apply_patch", PATCH))
    assert failed["output"] == "error: the editor did not write the patch: the editor refused"
