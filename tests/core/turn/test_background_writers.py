"""Issue 36: a quit *new* chat lost its background response, because the lazy session
writer had no `background_left` and a `getattr` skipped the call. Every writer is now a
whole `SessionFile` (core/turn/recorder.py), and quit-then-resume works from a new chat
and from a resumed one."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from helpers.background_server import BackgroundServer, message_script
from helpers.mock_api import settings

from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn.background_turns import reattach
from rivulet.core.turn.bus import EventBus, ItemDelta
from rivulet.core.turn.conversation import Conversation, RetryPolicy
from rivulet.core.turn.recorder import SessionFile, SessionRecorder

TEXT = "One two three four five six seven eight nine ten eleven twelve."


def _members(protocol: type) -> set[str]:
    return {n for cls in protocol.__mro__ if cls.__name__ in {"SessionRecorder", "SessionFile"}
            for n in vars(cls) if not n.startswith("_")}


@pytest.mark.parametrize("writer", [SessionWriter, LazySessionWriter])
def test_every_writer_class_has_every_member_of_the_protocol(writer: type):
    members = _members(SessionFile)
    assert members >= {"background_left", "reattached", "session_id", "observe", "turn_ended", "path", "close"}
    missing = sorted(n for n in members if not hasattr(writer, n) and n not in inspect.signature(writer).parameters)
    assert not missing, f"{writer.__name__} lacks {missing}"
    assert _members(SessionRecorder) <= members


def _conversation(server: BackgroundServer, bus: EventBus | None = None, **kw) -> Conversation:
    s = settings(base_url=server.base_url, background=True)
    return Conversation(s, SseTransport(s), bus=bus or EventBus(), retry=RetryPolicy(max_retries=2, base_delay=0.0),
                        **kw)


async def _quit_mid_answer(server: BackgroundServer, conv: Conversation, bus: EventBus) -> None:
    shown, seen = asyncio.Event(), []

    def saw(event: ItemDelta) -> None:
        seen.append(event)
        if len(seen) >= 3:
            shown.set()

    bus.subscribe(saw, ItemDelta)
    task = asyncio.create_task(conv.run_turn("hi again" if conv.turns else "hi"))
    await asyncio.wait_for(shown.wait(), 60)
    task.cancel()  # a quit: no cancel_requested
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("chat", ["new", "resumed"])
async def test_quit_then_resume_fetches_the_background_answer(tmp_path, chat: str):
    with BackgroundServer() as server:
        server.server.script = message_script(TEXT)
        if chat == "resumed":  # one finished turn on file, resumed, then the quit
            first, _ = SessionWriter.create(model="m", base_url=server.base_url, directory=tmp_path, frontend="chat")
            await _conversation(server, session=first).run_turn("hello")
            first.close()
            path = first.path
            writer: SessionFile = SessionWriter(path)
            history = load_session(path).history
        else:  # a new chat's writer: its file appears with the first record
            writer = LazySessionWriter(model="m", base_url=server.base_url, directory=tmp_path, frontend="chat")
            history = None
        server.server.hold_after = 6
        server.server.running = True
        bus = EventBus()
        conv = _conversation(server, bus, session=writer, history=history)
        await _quit_mid_answer(server, conv, bus)
        writer.close()
        assert writer.path is not None
        session = load_session(writer.path)
        assert session.background is not None and session.background["response_id"]
        resumed = SessionWriter(writer.path)
        conv2 = _conversation(server, history=session.history, session=resumed)

        async def finished(_seconds: float) -> None:
            server.server.running = False

        last = await reattach(conv2, session.background, sleep=finished)
        resumed.close()
        gets = [r for r in server.requests("GET") if session.background["response_id"] in r[1]]
    assert last == TEXT and gets
    again = load_session(writer.path)
    assert again.background is None
    assert [i.get("role") for i in again.history.items][-2:] == ["user", "assistant"]
