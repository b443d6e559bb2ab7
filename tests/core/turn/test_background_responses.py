"""Background responses (issue 27) against a local server that implements them as the API
documents: a cut stream resumes with GET ?stream=true&starting_after=N (one POST, the text
byte-exact, no delta twice), a server without them gets the ordinary retry and says so,
a quit leaves the response running and resume commits it, Esc cancels it on the server."""

from __future__ import annotations

import asyncio

import pytest
from helpers.background_server import BackgroundServer, message_script
from helpers.mock_api import settings

from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn.background_turns import reattach
from rivulet.core.turn.bus import EventBus, ItemDelta, Retrying
from rivulet.core.turn.conversation import Conversation, RetryPolicy

TEXT = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu."


def _conversation(server: BackgroundServer, bus: EventBus | None = None, **kw) -> Conversation:
    s = settings(base_url=server.base_url, background=True)
    return Conversation(s, SseTransport(s), bus=bus or EventBus(),
                        retry=RetryPolicy(max_retries=2, base_delay=0.0), **kw)


def _first_delta(bus: EventBus, count: int = 1) -> asyncio.Event:
    """Set once the client has read `count` deltas: its cursor knows the response id and
    the sequence number of the last."""
    shown, seen = asyncio.Event(), []

    def saw(_event: ItemDelta) -> None:
        seen.append(_event)
        if len(seen) >= count:
            shown.set()

    bus.subscribe(saw, ItemDelta)
    return shown


def _deltas(bus: EventBus) -> list[str]:
    seen: list[str] = []
    bus.subscribe(lambda e: seen.append(e.delta), ItemDelta)
    return seen


async def test_a_cut_background_stream_resumes_from_its_sequence_number_with_one_post():
    with BackgroundServer() as server:
        server.server.script = message_script(TEXT)
        server.server.cut_after = 6  # inside the message: some words shown, the rest not yet
        bus = EventBus()
        deltas = _deltas(bus)
        retries: list[Retrying] = []
        bus.subscribe(retries.append, Retrying)
        conv = _conversation(server, bus)
        result = await conv.run_turn("hi")
        await bus.drain()
        posts, gets = server.requests("POST"), server.requests("GET")
    assert result.last_message == TEXT  # byte-exact
    assert "".join(deltas) == TEXT  # nothing shown twice, nothing lost
    assert len(posts) == 1 and posts[0][3]["background"] is True and posts[0][3]["store"] is True
    assert len(gets) == 1 and gets[0][2] == {"stream": ["true"], "starting_after": ["6"]}
    assert not retries  # not a retry: the same response, read on


async def test_a_resumed_stream_that_starts_early_or_is_cut_again_still_shows_each_delta_once():
    with BackgroundServer() as server:
        server.server.script = message_script(TEXT)
        server.server.cut_after = 6
        server.server.overlap = 3  # sequence numbers 4, 5 and 6 again: already shown
        server.server.cut_again = 10
        bus = EventBus()
        deltas = _deltas(bus)
        result = await _conversation(server, bus).run_turn("hi")
        await bus.drain()
        gets = server.requests("GET")
    assert result.last_message == TEXT and "".join(deltas) == TEXT
    assert [g[2]["starting_after"] for g in gets] == [["6"], ["10"]]  # each from the last event read
    assert len(server.requests("POST")) == 1


async def test_a_server_that_cannot_resume_gets_the_ordinary_retry_and_says_so():
    with BackgroundServer() as server:
        server.server.script = message_script(TEXT)
        server.server.cut_after = 6
        server.server.resumable = False
        bus = EventBus()
        retries: list[Retrying] = []
        bus.subscribe(retries.append, Retrying)
        conv = _conversation(server, bus)
        server_cuts_once = server.server

        first = True

        def make(request):  # the second POST is not cut
            nonlocal first
            if not first:
                server_cuts_once.cut_after = None
            first = False
            return message_script(TEXT)(request)

        server.server.script = make
        result = await conv.run_turn("hi")
        await bus.drain()
        posts = server.requests("POST")
    assert result.last_message == TEXT
    assert len(posts) == 2  # the whole request again
    assert len(retries) == 1 and "could not resume the stream" in retries[0].error.message


async def test_esc_cancels_the_background_response_on_the_server():
    with BackgroundServer() as server:
        server.server.script = message_script(TEXT)
        server.server.hold_after = 6
        bus = EventBus()
        shown = _first_delta(bus)
        conv = _conversation(server, bus)
        task = asyncio.create_task(conv.run_turn("hi"))
        await asyncio.wait_for(shown.wait(), 60)
        conv.cancel_requested = True  # what the app's interrupt sets before it cancels the turn
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        cancels = [r for r in server.requests("POST") if r[1].endswith("/cancel")]
        rid = next(iter(server.server.kept))
    assert len(cancels) == 1 and cancels[0][1] == f"/v1/responses/{rid}/cancel"
    assert server.server.kept[rid].status == "cancelled"


async def test_a_quit_leaves_the_response_running_and_resume_commits_what_it_made(tmp_path):
    with BackgroundServer() as server:
        server.server.script = message_script(TEXT)
        server.server.hold_after = 6
        server.server.running = True  # a poll sees it unfinished until the test says otherwise
        writer, _meta = SessionWriter.create(model="m", base_url=server.base_url, directory=tmp_path)
        bus = EventBus()
        shown = _first_delta(bus, 3)  # sequence numbers 4, 5 and 6: all the server sent before it held
        conv = _conversation(server, bus, session=writer)
        task = asyncio.create_task(conv.run_turn("hi"))
        await asyncio.wait_for(shown.wait(), 60)
        task.cancel()  # a quit: no cancel_requested
        with pytest.raises(asyncio.CancelledError):
            await task
        writer.close()
        assert not [r for r in server.requests("POST") if r[1].endswith("/cancel")]

        session = load_session(writer.path)
        assert session.background is not None and session.background["sequence"] == 6
        assert [i.get("role") for i in session.history.items] == ["user"]  # kept for the answer to come
        resumed = SessionWriter(writer.path)
        conv2 = _conversation(server, history=session.history, session=resumed)
        polls = 0

        async def poll_sleep(_seconds: float) -> None:
            nonlocal polls
            polls += 1
            server.server.running = False  # it finished while nobody watched

        last = await reattach(conv2, session.background, sleep=poll_sleep)
        resumed.close()
        gets = server.requests("GET")
    assert last == TEXT and polls == 1 and len(gets) == 2
    again = load_session(writer.path)
    assert again.background is None  # fetched: the next resume does not ask again
    assert [i.get("role") for i in again.history.items] == ["user", "assistant"]
