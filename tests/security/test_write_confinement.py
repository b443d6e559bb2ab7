"""Attack 5 of issue 11: confinement was checked when a patch was planned, not when it
was written, so a directory swapped for a symlink in between let writes escape. And
the details of writing: modes, line endings, temporary files."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from rivulet.core.tools.patch_apply import apply_plan, plan_patch
from rivulet.core.tools.patch_format import PatchError, parse_patch


def _apply(ws, patch: str) -> None:
    apply_plan(plan_patch(parse_patch(patch), ws))


def test_a_directory_swapped_for_a_symlink_while_patches_apply_writes_nothing_outside(tmp_path):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "d").mkdir(parents=True)
    outside.mkdir()
    stop = threading.Event()
    swaps = [0]

    def swapper() -> None:
        d, real = str(ws / "d"), str(ws / "d.real")
        while not stop.is_set():
            try:
                os.rename(d, real)
                os.symlink(str(outside), d)
                swaps[0] += 1
                time.sleep(0)  # let the patch run while the symlink is there
                os.unlink(d)
                os.rename(real, d)
                time.sleep(0)  # ... and while the real directory is back
            except OSError:
                if os.path.islink(d):
                    os.unlink(d)
                if os.path.isdir(real) and not os.path.exists(d):
                    os.rename(real, d)

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: the race is the point
    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    refused = 0
    other: list[OSError] = []
    try:
        for n in range(300):
            try:
                _apply(ws, f"*** Begin Patch\n*** Add File: d/f{n}.txt\n+{n}\n*** End Patch\n")
            except PatchError:
                refused += 1
            except OSError as exc:  # anything but a clear PatchError is a failure too, after the count
                other.append(exc)
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old_interval)
    assert swaps[0] > 0
    assert list(outside.iterdir()) == [], f"{len(list(outside.iterdir()))} files escaped the workspace"
    assert not other, f"not a clear error: {other[0]!r}"
    assert refused < 300


def test_new_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        _apply(tmp_path, "*** Begin Patch\n*** Add File: new/a.txt\n+x\n*** End Patch\n")
    finally:
        os.umask(old)
    assert (tmp_path / "new" / "a.txt").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o755


def test_a_crlf_file_stays_crlf(tmp_path):
    (tmp_path / "w.bat").write_bytes(b"@echo off\r\necho one\r\necho two\r\n")
    _apply(tmp_path, "*** Begin Patch\n*** Update File: w.bat\n@@\n echo one\n-echo two\n+echo 2\n+echo 3\n"
                     "*** End Patch\n")
    assert (tmp_path / "w.bat").read_bytes() == b"@echo off\r\necho one\r\necho 2\r\necho 3\r\n"


def test_a_move_keeps_the_mode(tmp_path):
    (tmp_path / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(tmp_path / "run.sh", 0o750)
    _apply(tmp_path, "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo hi\n+echo ho\n"
                     "*** End Patch\n")
    assert not (tmp_path / "run.sh").exists()
    assert (tmp_path / "bin" / "run.sh").read_text() == "#!/bin/sh\necho ho\n"
    assert (tmp_path / "bin" / "run.sh").stat().st_mode & 0o777 == 0o750


def test_no_temporary_file_is_left_behind_when_a_write_fails(tmp_path):
    (tmp_path / "keep.txt").write_text("old\n")
    patch = ("*** Begin Patch\n*** Update File: keep.txt\n@@\n-old\n+new\n"
             "*** Add File: bad.txt\n+lone surrogate \ud800 here\n*** End Patch\n")
    with pytest.raises(PatchError):
        _apply(tmp_path, patch)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    assert (tmp_path / "keep.txt").read_text() == "old\n"
