"""apply_patch: the parser (whole and streamed), verification, confinement, all-or-nothing."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rivulet.core.tools.patch_apply import apply_plan, confine, plan_patch
from rivulet.core.tools.patch_format import JsonStringField, OpKind, PatchError, PatchParser, parse_patch

PATCH = """*** Begin Patch
*** Add File: docs/new.md
+# New
+
+text
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    return "hi"
+    return "hello"
@@
 def other():
-    pass
+    return 1
*** Delete File: old.txt
*** End Patch
"""

APP = 'import os\n\ndef greet():\n    return "hi"\n\n\ndef other():\n    pass\n'


def workspace(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text(APP)
    (tmp_path / "old.txt").write_text("bye\n")
    return tmp_path


def snapshot(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_parse_every_operation():
    ops = parse_patch(PATCH)
    assert [(o.kind, o.path, o.move_to) for o in ops] == [
        (OpKind.ADD, "docs/new.md", None), (OpKind.UPDATE, "src/app.py", "src/main.py"),
        (OpKind.DELETE, "old.txt", None)]
    assert ops[0].added == ["# New", "", "text"]
    assert [h.anchor for h in ops[1].hunks] == ["def greet():", None]
    assert ops[1].hunks[1].old == ["def other():", "    pass"]
    assert ops[1].counts() == (2, 2)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=60))
def test_streamed_in_any_pieces_parses_the_same(sizes):
    parser = PatchParser()
    pos = 0
    seen_files = 0
    for size in sizes * (len(PATCH) // sum(sizes) + 1):
        if pos >= len(PATCH):
            break
        parser.feed(PATCH[pos:pos + size])
        pos += size
        assert len(parser.ops) >= seen_files  # the live view only ever grows
        seen_files = len(parser.ops)
    parser.feed(PATCH[pos:])
    assert parser.finish() == parse_patch(PATCH)


@pytest.mark.parametrize("bad, message", [
    ("*** Update File: a.py\n-x\n+y\n*** End Patch\n", "must start"),
    ("*** Begin Patch\n*** Update File: a.py\n-x\n+y\n", "does not end"),
    ("*** Begin Patch\n*** Add File: a.py\nno plus\n*** End Patch\n", "must start with '+'"),
    ("*** Begin Patch\n*** Update File: a.py\n x\n*** End Patch\n", "changes nothing"),
    ("*** Begin Patch\n*** End Patch\n", "changes no file"),
    ("*** Begin Patch\n*** Update File: a.py\n?x\n*** End Patch\n", "must start with ' ', '-' or '+'"),
])
def test_malformed_patches_are_refused_with_a_reason(bad, message):
    with pytest.raises(PatchError, match=re.escape(message)):
        parse_patch(bad)


def test_plan_and_apply(tmp_path):
    root = workspace(tmp_path)
    apply_plan(plan_patch(parse_patch(PATCH), root))
    assert (root / "docs/new.md").read_text() == "# New\n\ntext\n"
    assert not (root / "src/app.py").exists() and not (root / "old.txt").exists()
    assert (root / "src/main.py").read_text() == APP.replace('"hi"', '"hello"').replace("pass", "return 1")


def test_whitespace_drift_in_context_still_matches(tmp_path):
    (tmp_path / "f.py").write_text("def f():\n    x = 1   \n    return x\n")
    patch = "*** Begin Patch\n*** Update File: f.py\n@@\n     x = 1\n-    return x\n+    return x + 1\n*** End Patch"
    apply_plan(plan_patch(parse_patch(patch), tmp_path))
    assert (tmp_path / "f.py").read_text() == "def f():\n    x = 1   \n    return x + 1\n"


def test_end_of_file_hunk_and_no_trailing_newline(tmp_path):
    (tmp_path / "f.txt").write_text("a\nb\na")
    patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+z\n*** End of File\n*** End Patch"
    apply_plan(plan_patch(parse_patch(patch), tmp_path))
    assert (tmp_path / "f.txt").read_text() == "a\nb\nz"  # the last "a", not the first


@pytest.mark.parametrize("patch, why", [
    ("*** Begin Patch\n*** Update File: src/app.py\n-nothing like this\n+x\n*** End Patch", "does not match"),
    ("*** Begin Patch\n*** Update File: missing.py\n-a\n+b\n*** End Patch", "no such file"),
    ("*** Begin Patch\n*** Add File: old.txt\n+x\n*** End Patch", "already exists"),
    ("*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch", "no such file"),
])
def test_a_patch_that_does_not_fit_changes_no_file(tmp_path, patch, why):
    root = workspace(tmp_path)
    # A good first file operation, then the bad one: nothing at all may be written.
    full = patch.replace("*** Begin Patch\n", "*** Begin Patch\n*** Add File: first.txt\n+ok\n")
    before = snapshot(root)
    with pytest.raises(PatchError, match=why):
        apply_plan(plan_patch(parse_patch(full), root))
    assert snapshot(root) == before


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", "a/../../outside.txt", "~/x", "C:\\x.txt",
                                  "link/escaped.txt", "linkfile"])
@pytest.mark.parametrize("op", ["Add", "Update", "Delete"])
def test_paths_outside_the_workspace_are_refused_and_nothing_is_written(tmp_path, path, op):
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "escaped.txt").write_text("secret\n")
    (outside / "target.txt").write_text("secret\n")
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "linkfile").symlink_to(outside / "target.txt")
    body = {"Add": "+pwned", "Update": "-secret\n+pwned", "Delete": ""}[op]
    patch = f"*** Begin Patch\n*** Add File: inside.txt\n+fine\n*** {op} File: {path}\n{body}\n*** End Patch"
    before_out, before_in = snapshot(outside), snapshot(root)
    with pytest.raises(PatchError, match="not allowed|outside the workspace"):
        apply_plan(plan_patch(parse_patch(patch), root))
    assert snapshot(outside) == before_out and snapshot(root) == before_in
    assert not (tmp_path / "outside.txt").exists()


def test_move_to_outside_is_refused(tmp_path):
    root = workspace(tmp_path)
    patch = "*** Begin Patch\n*** Update File: old.txt\n*** Move to: ../stolen.txt\n*** End Patch"
    with pytest.raises(PatchError, match="not allowed"):
        plan_patch(parse_patch(patch), root)


def test_confine_accepts_plain_relative_paths(tmp_path):
    assert confine(tmp_path, "a/b.txt") == tmp_path.resolve() / "a/b.txt"


def test_a_failure_while_renaming_restores_every_file(tmp_path, monkeypatch):
    root = workspace(tmp_path)
    before = snapshot(root)
    changes = plan_patch(parse_patch(PATCH), root)
    real_replace = os.replace
    calls = []

    def failing_replace(src, dst, **kw):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst, **kw)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(PatchError, match="no file was changed"):
        apply_plan(changes)
    assert snapshot(root) == before
    assert not [p for p in root.rglob(".rivulet-*")]  # no temporary file left behind


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40))
def test_json_string_field_decodes_split_escapes(sizes):
    value = 'line "one"\n\ttab \\ back é 😀 \u2028 end'
    doc = json.dumps({"other": "input", "input": value, "z": 1})
    field = JsonStringField("input")
    out, pos = [], 0
    for size in sizes * (len(doc) // sum(sizes) + 1):
        if pos >= len(doc):
            break
        out.append(field.feed(doc[pos:pos + size]))
        pos += size
    out.append(field.feed(doc[pos:]))
    assert "".join(out) == value
