"""`rivulet sessions` and the resume picker show the model a resume will use: the
session's last /model switch, not the model it started with (issue 42.7)."""

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
