"""`rivulet resume` goes on with the session's model, unless --model names another (issue 23.7)."""

from __future__ import annotations

import os

import pytest
from helpers.config_files import empty_config

from rivulet.app.boot import prepare
from rivulet.app.cli import build_parser
from rivulet.core import items as it
from rivulet.core.store.session import SessionWriter
from rivulet.core.turn.history import History


@pytest.fixture
def saved(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))
    monkeypatch.delenv("RIVULET_MODEL", raising=False)
    writer, meta = SessionWriter.create(model="qwen-session", base_url="u", cwd=os.getcwd(),
                                        directory=tmp_path / "sessions")
    History(observers=[writer.observe]).append(it.user_message("hi"), key="user-1")
    writer.close()
    return meta


def _ready(*argv: str):
    args = build_parser().parse_args(["resume", *argv, "--base-url", "http://127.0.0.1:9/v1"])
    ready = prepare(args)
    ready.stop()
    if ready.writer is not None:
        ready.writer.close()
    return ready


def test_resume_uses_the_sessions_model(saved):
    assert _ready(saved.id).settings.model == "qwen-session"  # main: the config's default model


def test_resume_with_model_uses_that_one(saved):
    assert _ready(saved.id, "--model", "other").settings.model == "other"


def test_resume_last_uses_the_sessions_model_too(saved):
    assert _ready("--last").settings.model == "qwen-session"
