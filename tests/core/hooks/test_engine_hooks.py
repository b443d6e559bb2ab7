"""The engine runs the hooks for every front end: session_start before the first turn,
the turn's and tools' events in every conversation it holds (also after /new), and
session_end when it closes."""

from __future__ import annotations

import sys

from helpers.calls import answer
from helpers.mock_api import serving, settings

from rivulet.core.engine import Engine
from rivulet.core.hooks.dispatch import Hooks
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.tools.router import ToolSettings
from rivulet.core.turn.bus import EventBus

LOG = "import json,sys; e=json.load(sys.stdin); open('events','a').write(e['event']+chr(10))"


async def test_the_engine_fires_every_session_event_and_keeps_them_after_new(tmp_path):
    bus = EventBus()
    hooks = Hooks([HookSpec(e, (sys.executable, "-c", LOG)) for e in
                   ("session_start", "turn_start", "turn_end", "session_end")], tmp_path, bus)
    engine = Engine(settings(), bus=bus, transport=serving(answer("r1", "One."), answer("r2", "Two.")),
                    tool_settings=ToolSettings(workspace=tmp_path), hooks=hooks)
    engine.start()
    await engine.submit("first")
    engine.new_conversation(None)  # /new: a fresh conversation, the same hooks
    assert engine.conversation.hooks is hooks and engine.agent_tools.hooks is hooks
    await engine.submit("second")
    await engine.aclose()
    assert (tmp_path / "events").read_text().split() == [
        "session_start", "turn_start", "turn_end", "turn_start", "turn_end", "session_end"]


async def test_without_hooks_the_engine_runs_none(tmp_path):
    engine = Engine(settings(), transport=serving(answer("r1", "One.")), tool_settings=ToolSettings(workspace=tmp_path),
                    hooks=Hooks([], tmp_path))
    assert engine.hooks is None and engine.conversation.hooks is None
    result = await engine.submit("hi")
    await engine.aclose()
    assert result.last_message == "One."
