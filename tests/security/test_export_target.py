"""Attack: `rivulet export -o` follows a planted symlink (issue 21, the smaller ones).

A link planted at the name the user exports to (`notes.md -> ~/.bashrc`) made the
export overwrite the link's target. The export replaces the link and never writes
through it; a name that cannot be written is one clear line, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys

from rivulet.core import items as it
from rivulet.core.store.session import SessionWriter
from rivulet.core.store.write_file import write_private
from rivulet.core.turn.history import History


def _session(tmp_path) -> tuple[str, dict]:
    writer, meta = SessionWriter.create(model="gpt-test", base_url="u", directory=tmp_path / "sessions")
    History(observers=[writer.observe]).append(it.user_message("export me"), key="user-1")
    writer.close()
    env = {**os.environ, "RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_CONFIG": os.devnull}
    return meta.id, env


def _export(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rivulet.app", "export", *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_export_replaces_a_planted_link_and_never_writes_through_it(tmp_path):
    sid, env = _session(tmp_path)
    victim = tmp_path / "home" / ".bashrc"
    victim.parent.mkdir()
    victim.write_text("# the user's shell start-up\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "notes.md").symlink_to(victim)
    done = _export(env, sid[:12], "--format", "md", "-o", str(repo / "notes.md"))
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == "# the user's shell start-up\n", "the export wrote through the planted link"
    assert not (repo / "notes.md").is_symlink() and "export me" in (repo / "notes.md").read_text()
    assert sorted(p.name for p in repo.iterdir()) == ["notes.md"]  # no temporary file left


def test_an_unwritable_target_is_one_clear_line(tmp_path):
    sid, env = _session(tmp_path)
    done = _export(env, sid[:12], "-o", str(tmp_path / "no" / "such" / "dir" / "out.md"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rivulet: error: cannot write ") and done.stderr.count("\n") == 1


def test_write_private_leaves_nothing_behind_when_the_rename_fails(tmp_path):
    (tmp_path / "adir").mkdir()
    try:
        write_private(tmp_path / "adir", "x")
    except OSError:
        pass
    else:
        raise AssertionError("a directory was replaced by a file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]
    write_private(tmp_path / "f.txt", "é")
    assert (tmp_path / "f.txt").read_text(encoding="utf-8") == "é"
    assert (tmp_path / "f.txt").stat().st_mode & 0o777 == 0o600
