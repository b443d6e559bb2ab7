"""Issue 37, item 1: every front end (the chat, plain mode, exec, the doctor) gets its engine
from the one assembly, core/assembly.py's `open_conversation`, handing it its `FrontEnd`.
The line front ends are stopped right there (no server is needed); the chat runs on."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.tui import until

import rivulet.core.assembly as assembly
from rivulet.app.cli import build_parser
from rivulet.app.doctor_run import run_doctor
from rivulet.app.exec_run import run_exec
from rivulet.app.plain.chat import run_plain
from rivulet.app.tui import RivuletApp
from rivulet.core.assembly import FrontEnd, Ground
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.tools.router import ToolSettings

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py

LOCAL = "http://127.0.0.1:9/v1"  # this machine: no key needed, and never reached here


class Opened(Exception):
    """The line front end reached the assembly: the test stops it there."""


@pytest.fixture
def fronts(monkeypatch, tmp_path) -> list[FrontEnd]:
    real, opened = assembly.open_conversation, []

    def spy(ground: Ground, front: FrontEnd):
        opened.append(front)
        if front.name != "chat":
            raise Opened
        return real(ground, front)

    monkeypatch.setattr(assembly, "open_conversation", spy)
    monkeypatch.chdir(tmp_path)  # the workspace
    return opened


@pytest.mark.parametrize("argv, run, name", [
    (["exec", "--base-url", LOCAL, "hi"], run_exec, "exec"),
    (["--plain", "--base-url", LOCAL], run_plain, "plain"),
    (["doctor", "--base-url", LOCAL], run_doctor, "doctor"),
])
async def test_each_line_front_end_is_built_by_the_one_assembly(fronts, argv, run, name):
    with pytest.raises(Opened):
        await run(build_parser().parse_args(argv))
    assert [f.name for f in fronts] == [name]


async def test_the_chat_is_built_by_the_one_assembly_and_asks_its_questions(fronts, tmp_path):
    chat_settings = settings(save_sessions=False)
    app = RivuletApp(chat_settings, SseTransport(chat_settings), tool_settings=ToolSettings(workspace=tmp_path),
                     remember_theme=False)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.engine is not None, "the engine")
        assert [f.name for f in fronts] == ["chat"]
        assert app.engine is not None and app.engine.approvals.attached  # its dialog answers, never a decline
