"""Issue 27's commands in the chat: /tools switches a hosted tool off for the next
request, /verbosity and /tier reach the request, /cost shows the turn's dollars, and
Esc during a background response cancels it on the server."""

from __future__ import annotations

import asyncio

import pytest
from helpers.background_server import BackgroundServer, message_script
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.tui import GatedServer, until
from test_slash_commands import answer, command, notes, send

from rivulet.app.tui import RivuletApp
from rivulet.core.protocol.sse_transport import SseTransport


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def _app(server: GatedServer, **kw) -> RivuletApp:
    return RivuletApp(settings(model="gpt-5.1-codex", **kw), server.transport(), remember_theme=False)


async def test_tools_switches_a_hosted_tool_off_for_the_next_request():
    server = GatedServer(answer("one"), answer("two", "r2"))
    app = _app(server, hosted_tools=["web_search", "code_interpreter"])
    async with app.run_test() as pilot:
        await send(pilot, "first", server)
        await command(pilot, "/tools web_search")
        await until(pilot, lambda: any("off  web_search" in n for n in notes(app)), "the tools note")
        await send(pilot, "second", server)
    first, second = ([t["type"] for t in r.get("tools", [])] for r in server.requests)
    assert "web_search" in first and "code_interpreter" in first
    assert "web_search" not in second and "code_interpreter" in second


async def test_tools_switches_on_a_hosted_tool_the_config_does_not_name():
    """Issue 38.6: a tool that needs no options is switched on by its name alone; one that
    needs options (file_search's vector stores) says so and is not sent."""
    server = GatedServer(answer("one"), answer("two", "r2"))
    app = _app(server)
    async with app.run_test() as pilot:
        await send(pilot, "first", server)
        await command(pilot, "/tools web_search")
        await until(pilot, lambda: any("on   web_search" in n for n in notes(app)), "the tools note")
        note = next(n for n in notes(app) if "on   web_search" in n)
        assert "off  code_interpreter" in note and "file_search and mcp need their options" in note
        await command(pilot, "/tools file_search")
        await until(pilot, lambda: any("file_search" in str(n.message) and "vector_store_ids" in str(n.message)
                                       for n in app._notifications), "file_search's options asked for")
        await send(pilot, "second", server)
    first, second = server.requests
    assert "tools" not in first or not [t for t in first["tools"] if t["type"] == "web_search"]
    assert [t for t in second["tools"] if t["type"] in ("web_search", "file_search")] == [{"type": "web_search"}]
    assert "web_search_call.action.sources" in second["include"]


async def test_verbosity_and_tier_reach_the_next_request_and_cost_shows_dollars():
    usage = {"input_tokens": 2_000, "output_tokens": 100, "total_tokens": 2_100}
    server = GatedServer(answer("one", usage=usage))
    app = _app(server)
    async with app.run_test() as pilot:
        await command(pilot, "/verbosity low")
        await command(pilot, "/tier flex")
        await send(pilot, "hi", server)
        await command(pilot, "/cost")
        await until(pilot, lambda: any("last turn" in n for n in notes(app)), "the cost note")
        cost = next(n for n in notes(app) if "last turn" in n)
    assert server.requests[0]["text"] == {"verbosity": "low"} and server.requests[0]["service_tier"] == "flex"
    assert "2,000 in · 100 out · $0.0035" in cost  # 2,000 x $1.25 + 100 x $10, per million
    assert "list prices of" in cost


async def test_esc_during_a_background_response_cancels_it_on_the_server():
    with BackgroundServer() as server:
        server.server.script = message_script("Alpha beta gamma delta epsilon zeta eta theta.")
        server.server.hold_after = 6
        s = settings(base_url=server.base_url, background=True, model="gpt-5.1-codex")
        app = RivuletApp(s, SseTransport(s), remember_theme=False)
        async with app.run_test() as pilot:
            app.query_one("Composer").load_text("hi")
            await pilot.press("enter")
            await asyncio.to_thread(server.server.held.wait, 60)
            await until(pilot, lambda: app.conversation.transport.cursor.sequence == 6, "the held events read")
            await pilot.press("escape")
            await until(pilot, lambda: not app.turn_worker.is_running, "the turn to stop")
        cancels = [r for r in server.requests("POST") if r[1].endswith("/cancel")]
    assert len(cancels) == 1


@pytest.mark.parametrize(("argv", "env", "expected"), [
    (["--background", "exec", "hi"], {}, True),
    (["exec", "hi", "--background"], {}, True),
    (["exec", "hi"], {"RIVULET_BACKGROUND": "true"}, True),
    (["exec", "hi"], {}, False),
])
def test_background_comes_from_the_flag_or_the_environment(monkeypatch, argv, env, expected):
    from rivulet.app.boot import settings_for
    from rivulet.app.cli import build_parser
    from rivulet.core.protocol.transports import make_transport

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    s, _ = settings_for(build_parser().parse_args(argv), headless=True)
    assert s.background is expected
    if expected:  # resuming, fetching and cancelling are HTTP: never the WebSocket
        assert make_transport(s).name == "sse"


async def test_resume_re_attaches_to_a_response_left_running_and_shows_what_it_made(tmp_path):
    from rivulet.core.store.session import SessionWriter, load_session
    from rivulet.core.turn.conversation import Conversation, RetryPolicy
    from rivulet.widgets.entries import AssistantEntry

    text = "Alpha beta gamma delta epsilon zeta eta theta iota."
    with BackgroundServer() as server:
        server.server.script = message_script(text)
        server.server.hold_after = 6
        server.server.running = True
        s = settings(base_url=server.base_url, background=True, model="gpt-5.1-codex")
        writer, _ = SessionWriter.create(model=s.model, base_url=s.base_url, directory=tmp_path)
        conv = Conversation(s, SseTransport(s), session=writer, retry=RetryPolicy(max_retries=0))
        task = asyncio.create_task(conv.run_turn("hi"))

        async def held_read() -> None:  # the held events read: the cursor knows where it is
            while conv.transport.cursor.sequence != 6:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(held_read(), 60)
        task.cancel()  # the chat quits
        with pytest.raises(asyncio.CancelledError):
            await task
        writer.close()
        server.server.running = False  # it finished meanwhile

        session = load_session(writer.path)
        app = RivuletApp(s, SseTransport(s), remember_theme=False, session=session,
                         session_writer=SessionWriter(writer.path))
        async with app.run_test() as pilot:
            await until(pilot, lambda: any(text in str(e.item) for e in app.query(AssistantEntry)),
                        "the answer made while nobody watched")
    assert load_session(writer.path).background is None
    assert len(server.requests("POST")) == 1  # fetched, never asked again
