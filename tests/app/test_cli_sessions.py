"""`rivulet sessions` and `resume --last` see this directory's conversations first,
and only conversations that have a message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rivulet.core import items as it
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.core.store.session import SessionWriter, list_sessions
from rivulet.core.turn.history import History


def make_session(folder: Path, cwd: Path, prompt: str | None, created: float, at: float | None = None) -> str:
    """`at`: when the prompt was saved (None: now)."""
    writer, meta = SessionWriter.create(model="m", base_url="u", cwd=str(cwd), directory=folder)
    if prompt is not None:
        History(observers=[writer.observe]).append(it.user_message(prompt), key="user-1", at=at)
    writer.close()
    # Distinct creation times, oldest first, whatever the clock's resolution.
    lines = meta.path.read_text().splitlines()
    lines[0] = lines[0].replace(f'"created":{meta.created}', f'"created":{created}')
    meta.path.write_text("\n".join(lines) + "\n")
    return meta.id


def cli(*args: str, sessions: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_SESSIONS_DIR": str(sessions), "RIVULET_CONFIG": os.devnull})
    return subprocess.run([sys.executable, "-m", "rivulet.app", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def test_sessions_lists_this_directory_with_a_header(tmp_path):
    store, here, there = tmp_path / "s", tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    mine = make_session(store, here, "asked here", 1000)
    other = make_session(store, there, "asked there", 2000)
    proc = cli("sessions", sessions=store, cwd=here)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"Sessions in {store}, started in {here}"
    assert lines[1].startswith("STARTED") and "FIRST PROMPT" in lines[1]
    assert mine in lines[2] and other not in proc.stdout
    assert lines[-1] == f"1 more from other directories: {sys.executable} -m rivulet.app sessions --all"


def test_sessions_all_lists_this_directory_first(tmp_path):
    store, here, there = tmp_path / "s", tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    mine = make_session(store, here, "asked here", 1000)
    other = make_session(store, there, "asked there", 2000)  # newer, but from elsewhere
    proc = cli("sessions", "--all", sessions=store, cwd=here)
    lines = proc.stdout.splitlines()
    assert mine in lines[2] and other in lines[3]


def test_resume_last_skips_empty_sessions_and_other_directories(tmp_path):
    from rivulet.app.boot import last_session_here

    store, here, there = tmp_path / "s", tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    wanted = make_session(store, here, "the real one", 1000)
    make_session(store, here, None, 2000)  # newer but empty (an old version wrote these)
    make_session(store, there, "elsewhere", 3000)  # newest, another directory
    found = last_session_here(list_sessions(store), str(here))
    assert found is not None and found.meta.id == wanted


def test_resume_last_picks_the_session_used_last_not_the_one_started_last(tmp_path):
    """Issue 38.5: the session started first, resumed and added to since, is the one to go on with."""
    from rivulet.app.boot import last_session_here
    from rivulet.core.store.session import find_session, load_session, open_for_resume

    store, here = tmp_path / "s", tmp_path / "here"
    here.mkdir()
    first = make_session(store, here, "started first", 1000, at=1100)
    second = make_session(store, here, "started second", 2000, at=2100)
    found = last_session_here(list_sessions(store), str(here))
    assert found is not None and found.meta.id == second
    path = find_session(first, store)  # resumed later, as the chat does: a record appended to its file
    writer, session = open_for_resume(path, load_session(path))
    session.history.observers.append(writer.observe)
    session.history.append(it.user_message("back to the first"), key="user-2", at=3000)
    writer.close()
    found = last_session_here(list_sessions(store), str(here))
    assert found is not None and found.meta.id == first and found.last_active == 3000


def test_resume_last_with_nothing_here_is_a_clear_error(tmp_path):
    store, here, there = tmp_path / "s", tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    make_session(store, here, None, 1000)
    make_session(store, there, "elsewhere", 2000)
    proc = cli("resume", "--last", sessions=store, cwd=here)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "no session with a message was started in" in proc.stderr and proc.stderr.count("\n") == 1


def test_a_session_file_appears_with_the_first_record_only(tmp_path):
    writer = LazySessionWriter(model="m", base_url="u", cwd=str(tmp_path), directory=tmp_path / "s")
    assert not (tmp_path / "s").exists() or not list((tmp_path / "s").iterdir())
    History(observers=[writer.observe]).append(it.user_message("hello"), key="user-1")
    writer.close()
    files = list((tmp_path / "s").glob("*.jsonl"))
    assert len(files) == 1 and writer.path == files[0] and "hello" in files[0].read_text()


def test_continue_is_resume_last_and_m_is_model():
    """Issue 38.4: `--continue` (long only: -c is --config's) resumes the last session here,
    the way `resume --last` does; `-m` is `--model`."""
    from rivulet.app.cli import build_parser, continued

    parser = build_parser()
    args = continued(parser, parser.parse_args(["--continue", "-m", "gpt-x", "-c", "theme=nord"]))
    assert (args.command, args.id, args.last, args.model, args.overrides) == ("resume", None, True, "gpt-x",
                                                                              ["theme=nord"])


def test_continue_with_nothing_here_says_so_as_resume_last_does(tmp_path):
    store, here, there = tmp_path / "s", tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    make_session(store, there, "elsewhere", 2000)
    proc = cli("--continue", sessions=store, cwd=here)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "no session with a message was started in" in proc.stderr and proc.stderr.count("\n") == 1
    proc = cli("--continue", "sessions", sessions=store, cwd=here)
    assert proc.returncode == 2 and "--continue starts the chat" in proc.stderr
