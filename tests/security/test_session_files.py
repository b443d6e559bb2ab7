"""Attack 8 of issue 11: two processes resuming one session interleaved their writes
into one file, and the sessions directory followed the umask (0777 under umask 000)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from helpers.mock_api import settings

from rivulet.app.boot import session_for
from rivulet.app.cli_args import complete
from rivulet.core import items as it
from rivulet.core.store.session import SessionWriter, load_session, sessions_dir
from rivulet.core.turn.history import History

HOLDER = """
import sys
from pathlib import Path
from rivulet.core.store.session import SessionWriter
writer = SessionWriter(Path(sys.argv[1]))
print("holding", flush=True)
sys.stdin.readline()
writer.close()
"""


def _session_with(tmp_path, text: str):
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path / "s")
    history = History(observers=[writer.observe])
    history.append(it.user_message(text), key="user-1")
    writer.close()
    return meta.path


def test_the_data_and_sessions_directories_are_private_whatever_the_umask(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "data" / "rivulet" / "sessions"))
    old = os.umask(0)
    try:
        writer, meta = SessionWriter.create(model="m", base_url="u")
        writer.close()
    finally:
        os.umask(old)
    assert sessions_dir().stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "data" / "rivulet").stat().st_mode & 0o777 == 0o700
    assert meta.path.stat().st_mode & 0o777 == 0o600


def test_an_existing_open_sessions_directory_is_tightened(tmp_path, monkeypatch):
    folder = tmp_path / "sessions"
    folder.mkdir()
    os.chmod(folder, 0o777)
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(folder))
    SessionWriter.create(model="m", base_url="u")[0].close()
    assert folder.stat().st_mode & 0o777 == 0o700


def test_a_second_process_resuming_a_session_forks_it_instead_of_interleaving(tmp_path):
    path = _session_with(tmp_path, "first")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        before = path.read_bytes()
        # What `rivulet resume <id>` does.
        args = complete(argparse.Namespace(command="resume", id=str(path), last=False))
        session, writer, _, _ = session_for(args, settings())
        try:
            session.history.observers.append(writer.observe)
            session.history.append(it.user_message("second"), key="user-2")
        finally:
            writer.close()
    finally:
        holder.communicate("\n", timeout=10)
    assert path.read_bytes() == before  # the original belongs to the other process
    assert writer.path != path and session.meta.path == writer.path
    assert any("open in another rivulet process" in w and session.meta.id in w for w in session.warnings)
    fork = load_session(writer.path)
    assert [it.message_text(i) for i in fork.history] == ["first", "second"]


def test_a_session_file_has_one_writer_at_a_time(tmp_path):
    from rivulet.core.store.session import SessionLocked

    path = _session_with(tmp_path, "x")
    first = SessionWriter(path)
    try:
        try:
            SessionWriter(path)
        except SessionLocked as exc:
            assert "open in another rivulet process" in exc.message
        else:
            raise AssertionError("a second writer opened the same session file")
    finally:
        first.close()
    SessionWriter(path).close()  # free again once the first is closed
