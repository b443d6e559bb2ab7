"""Messages typed while a turn runs (issue 25): Enter queues them above the composer,
where they can be edited or dropped before they are sent; the steer key sends the draft
into the running turn, after the tool outputs; an interrupt gives everything back."""

from __future__ import annotations

from helpers.calls import HeldTool
from helpers.streams import call_events, completed, created, message, message_events
from helpers.tui import GatedServer, follow_up_payloads, make_app, until

from rivulet.widgets.composer import IDLE_STEER_NOTE, Composer
from rivulet.widgets.entries import UserEntry
from rivulet.widgets.queue_view import QueueView, row_text
from rivulet.widgets.status import StatusLine


def answer_payloads(text: str, rid: str = "r1") -> list[str]:
    return [created(rid), *message_events(f"m_{rid}", text), completed([message(f"m_{rid}", text)], rid)]


def call_payloads(rid: str = "r1") -> list[str]:
    events = call_events("fc_1", "call_1", "look", '{"what": "logs"}')
    return [created(rid), *events, completed([], rid)]



def user_texts(request: dict) -> list[str]:
    return [i["content"][0]["text"] for i in request["input"] if i.get("role") == "user"]


def shown(app) -> str:
    return str(app.query_one(QueueView).render())


async def test_enter_during_a_turn_queues_and_the_queue_can_be_dropped_from_and_drains_in_order():
    server = GatedServer(answer_payloads("first answer"), follow_up_payloads("second answer"),
                         follow_up_payloads("third answer", "r3"), gate_at={0: 2})
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"first", "enter")
        await server.reached.wait()
        for text in ("keep me", "drop me", "me too"):
            await pilot.press(*text, "enter")
        view = app.query_one(QueueView)
        await until(pilot, lambda: view.display and view.queued == ["keep me", "drop me", "me too"], "the queue")
        assert "queued 1 keep me" in shown(app) and "queued 3 me too" in shown(app)
        assert "alt+up: edit the queue" in shown(app) and "tab: steer" in shown(app)
        assert app.query_one(Composer).text == ""  # queued, not given back
        await pilot.press("alt+up")
        assert app.focused is view and view.index == 2  # the newest first
        await until(pilot, lambda: "▸ queued 3 me too" in shown(app), "the newest entry chosen")
        assert "d/del: drop" in shown(app)  # the keys of the list, while it has them
        await pilot.press("up", "d")  # "drop me" goes
        assert view.queued == ["keep me", "me too"]
        await pilot.press("escape")  # back to typing; the turn goes on
        assert app.focused is app.query_one(Composer) and app.turn_worker.is_running
        server.release()
        await until(pilot, lambda: len(server.requests) == 3 and not app.turn_worker.is_running
                    and not app.queue.entries, "the queue to drain")
        assert user_texts(server.requests[1])[-1] == "keep me"  # each its own turn, in order
        assert user_texts(server.requests[2])[-1] == "me too"
        assert "drop me" not in str(server.requests)
        await until(pilot, lambda: not view.display, "the queue to hide")


async def test_a_queued_entry_goes_back_to_the_composer_to_edit():
    server = GatedServer(answer_payloads("first answer"), gate_at={0: 2})
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"first", "enter")
        await server.reached.wait()
        await pilot.press(*"fix the typo", "enter")
        await until(pilot, lambda: app.queue.entries, "the queue")
        await pilot.press("alt+up", "e")
        composer = app.query_one(Composer)
        assert composer.text == "fix the typo" and not app.queue.entries
        assert app.focused is composer  # nothing left in the list: typing goes on
        server.release()
        await until(pilot, lambda: not app.turn_worker.is_running, "the turn")
        assert len(server.requests) == 1  # nothing queued was sent


async def test_tab_steers_the_draft_into_the_running_turn_after_the_tool_output():
    tool = HeldTool()
    server = GatedServer(call_payloads(), follow_up_payloads("done, with the tests"))
    app = make_app(server, tools=tool)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"check the logs", "enter")
        await tool.started.wait()
        await pilot.press(*"and the tests")
        status = app.query_one(StatusLine)
        status.refresh_line()
        assert "tab to steer" in str(status.render())
        await pilot.press("tab")
        view = app.query_one(QueueView)
        await until(pilot, lambda: view.steering == ["and the tests"], "the steered row")
        assert "steering and the tests" in shown(app)
        assert app.query_one(Composer).text == ""
        tool.release.set()
        await until(pilot, lambda: len(server.requests) == 2 and not app.turn_worker.is_running, "the follow-up")
        sent = server.requests[1]["input"]
        assert [i.get("type") for i in sent[-2:]] == ["function_call_output", "message"]
        assert sent[-1]["role"] == "user" and sent[-1]["content"][0]["text"] == "and the tests"
        await until(pilot, lambda: not view.display, "the steered row to go")
        users = [e.item["content"][0]["text"] for e in app.query(UserEntry)]
        assert users == ["check the logs", "and the tests"]  # in the transcript like any message


async def test_an_interrupt_gives_the_queue_back():
    server = GatedServer(answer_payloads("never"), gate_at={0: 2})
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        await pilot.press(*"first", "enter")
        await server.reached.wait()
        await pilot.press(*"waiting", "enter")
        await until(pilot, lambda: app.queue.entries, "the queue")
        await pilot.press(*"a draft")
        await pilot.press("escape")
        await until(pilot, lambda: not app.turn_worker.is_running and not app.queue.entries, "the interrupt")
        # The unanswered prompt, the draft and the queued message: nothing typed is lost, nothing more sent.
        await until(pilot, lambda: composer.text == "first\n\na draft\n\nwaiting", "all of it in the composer")
        assert len(server.requests) == 1


def test_a_row_is_one_sanitised_line():
    assert row_text("line one\nline two\nthree") == "line one (+2 lines)"
    assert "\x1b" not in row_text("\x1b[31mred\x1b[0m") and row_text("  a \t b ") == "a b"


async def test_s_steers_a_queued_entry_into_the_running_turn():
    tool = HeldTool()
    server = GatedServer(call_payloads(), follow_up_payloads("both done"))
    app = make_app(server, tools=tool)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"check the logs", "enter")
        await tool.started.wait()
        await pilot.press(*"later, maybe now", "enter")
        await until(pilot, lambda: app.queue.entries, "the queue")
        await pilot.press("alt+up", "s")
        view = app.query_one(QueueView)
        await until(pilot, lambda: view.steering == ["later, maybe now"] and not view.queued, "steered")
        assert app.focused is app.query_one(Composer)  # the list is empty: typing goes on
        tool.release.set()
        await until(pilot, lambda: len(server.requests) == 2 and not app.turn_worker.is_running, "the follow-up")
        assert user_texts(server.requests[1]) == ["check the logs", "later, maybe now"]


async def test_a_failed_turn_gives_the_queue_back_to_the_composer():
    from helpers.streams import ev

    server = GatedServer([ev("response.created", response={"id": "r"}),
                          ev("error", code="context_length_exceeded", message="Your input is too long")],
                         gate_at={0: 1})
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"first", "enter")
        await server.reached.wait()
        await pilot.press(*"queued after it", "enter")
        await until(pilot, lambda: app.queue.entries, "the queue")
        server.release()
        composer = app.query_one(Composer)
        await until(pilot, lambda: not app.turn_worker.is_running and composer.text == "queued after it",
                    "the queued message back")
        assert len(server.requests) == 1 and not app.queue.entries  # not sent into a failing server


async def test_the_steer_key_can_be_remapped():
    from helpers.mock_api import settings

    from rivulet.app.tui import RivuletApp

    tool = HeldTool()
    server = GatedServer(call_payloads(), follow_up_payloads("ok"))
    app = RivuletApp(settings(model="gpt-5.1-codex", keymap={"composer.steer": "ctrl+y"}), server.transport(),
                     tools=tool, remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"check the logs", "enter")
        await tool.started.wait()
        await pilot.press(*"queued", "enter", *"steered", "ctrl+y")
        view = app.query_one(QueueView)
        await until(pilot, lambda: view.steering == ["steered"], "steered with ctrl+y")
        assert "ctrl+y: steer" in shown(app)  # the hint names the user's key
        tool.release.set()
        await until(pilot, lambda: len(server.requests) == 3 and not app.turn_worker.is_running, "the queue")
        assert user_texts(server.requests[1])[-1] == "steered" and user_texts(server.requests[2])[-1] == "queued"


async def test_tab_with_no_turn_sends_nothing_and_keeps_the_draft():
    """Issue 38.4: an idle Tab sent the draft (accidental sends). It is kept, a note says
    Enter sends, and Enter then sends it."""
    server = GatedServer(answer_payloads("sent"))
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        await pilot.press("tab")  # nothing to send: the focus stays with typing (ChatScreen.focus_next)
        assert not server.requests and app.focused is composer
        await pilot.press(*"half typed", "tab")
        await until(pilot, lambda: any(n.message == IDLE_STEER_NOTE for n in app._notifications), "the note")
        assert not server.requests and composer.text == "half typed" and app.focused is composer
        await pilot.press("enter")
        await until(pilot, lambda: server.requests and not app.turn_worker.is_running, "the turn")
        assert user_texts(server.requests[0]) == ["half typed"] and composer.text == ""
