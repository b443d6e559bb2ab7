"""`rivulet sessions` and the resume picker show the model a resume will use: the
session's last /model switch, not the model it started with; `resume --last` in the
chat's workspace goes on with the last chat, not a later exec run (issue 42.7)."""

from __future__ import annotations

import os

from rivulet.app.picker import session_choice, session_line
from rivulet.core import items as it
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn.history import History


def test_the_list_shows_the_model_a_resume_goes_on_with(tmp_path):
    writer, _ = SessionWriter.create(model="gpt-5.1-codex", base_url="u", cwd=os.getcwd(),
                                     directory=tmp_path / "sessions")
    history = History(observers=[writer.observe])
    history.append(it.user_message("hi"), key="user-1")
    history.set_model("qwen2.5-coder-1.5b")  # /model, after the first turn
    history.append(it.user_message("again"), key="user-2")
    writer.close()
    session = load_session(next((tmp_path / "sessions").glob("*.jsonl")))
    assert session.model == "qwen2.5-coder-1.5b"
    assert "  qwen2.5-coder-1.5b  " in session_line(session) and "gpt-5.1-codex" not in session_line(session)
    assert " · qwen2.5-coder-1.5b · " in session_choice(session)[1]


def test_resume_last_prefers_the_last_chat_to_a_later_exec_run(tmp_path):
    from rivulet.app.boot import last_session_here
    from rivulet.core.store.session import list_sessions

    folder = tmp_path / "sessions"
    made = {}
    for frontend, at in (("chat", 1000.0), ("exec", 2000.0)):
        writer, meta = SessionWriter.create(model="m", base_url="u", cwd=str(tmp_path), directory=folder,
                                            frontend=frontend)
        History(observers=[writer.observe]).append(it.user_message(frontend), key="user-1", at=at)
        writer.close()
        made[frontend] = meta.id
    found = last_session_here(list_sessions(folder), str(tmp_path))
    assert found is not None and found.meta.id == made["chat"]
    # Only exec runs here: the last of them, as before.
    only = [s for s in list_sessions(folder) if s.meta.frontend == "exec"]
    found = last_session_here(only, str(tmp_path))
    assert found is not None and found.meta.id == made["exec"]
