"""The chat's attachments (`@path` tokens, the chip row, a pasted image path,
--image) and edit and resend (Esc Esc, the inspector's edit key), through Pilot."""

from __future__ import annotations

import json

import pytest
from helpers.images import PNG
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, until
from textual import events

from rivulet.app.tui import RivuletApp
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.core.store.session import load_session
from rivulet.core.turn.attachments import attach
from rivulet.widgets.attachment_chips import AttachmentChips
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer
from rivulet.widgets.entries import TranscriptEntry, UserEntry
from rivulet.widgets.inspector import InspectorScreen

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def answer(text: str, rid: str) -> list[str]:
    return [created(rid), *message_events(f"m_{rid}", text), completed([message(f"m_{rid}", text)], rid)]


def make(server: GatedServer, workspace, **kw) -> RivuletApp:
    s = settings(model="gpt-5.1-codex", workspace=str(workspace), attach_max_bytes=kw.pop("cap", 1000))
    return RivuletApp(s, server.transport(), remember_theme=False, **kw)


def user_parts(request: dict) -> list[dict]:
    return [m for m in request["input"] if m.get("role") == "user"][-1]["content"]


def chip_text(app) -> str:
    chips = app.query_one(AttachmentChips)
    return str(chips.render()) if chips.display else ""


async def test_an_at_token_shows_a_chip_and_is_sent_as_an_input_text_part(tmp_path):
    (tmp_path / "notes.txt").write_text("the secret word is plum\n")
    server = GatedServer(answer("ok", "r1"))
    app = make(server, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"what is in @notes.txt")
        await until(pilot, lambda: "notes.txt" in chip_text(app), "the chip")
        assert "24 B" in chip_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: server.requests and app.turn_worker and not app.turn_worker.is_running)
        parts = user_parts(server.requests[0])
        assert parts[0] == {"type": "input_text", "text": "what is in @notes.txt"}
        assert parts[1] == {"type": "input_text", "text": '<file path="notes.txt">\nthe secret word is plum\n\n</file>'}
        entry = app.query_one(UserEntry)
        lines = [str(w.render()) for w in entry.query("Static")]
        assert lines == ["what is in @notes.txt", "[file notes.txt (24 bytes)]"]
        assert not app.query_one(AttachmentChips).display  # sent: nothing held any more


async def test_a_bad_attachment_is_one_line_and_the_prompt_stays(tmp_path):
    (tmp_path / "big.txt").write_text("x" * 5000)
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2" * 10)
    (tmp_path.parent / "outside.txt").write_text("no")
    server = GatedServer(answer("ok", "r1"))
    app = make(server, tmp_path)
    cases = {"read @big.txt": "over the 1000 bytes cap", "read @blob.bin": "binary",
             "read @missing/file.py": "no such file", "read @../outside.txt": "outside the workspace"}
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        for prompt, why in cases.items():
            composer.load_text(prompt)
            await until(pilot, lambda: "✗" in chip_text(app), f"an error chip for {prompt}")
            await pilot.press("enter")
            await until(pilot, lambda: app._notifications, "the error")
            note = list(app._notifications)[-1]
            assert why in note.message and "\n" not in note.message
            app.clear_notifications()
            assert composer.text == prompt
        assert server.requests == []
        composer.load_text("mail @bob about it")  # not a path: plain text, sent as is
        await pilot.press("enter")
        await until(pilot, lambda: server.requests)
        assert user_parts(server.requests[0]) == [{"type": "input_text", "text": "mail @bob about it"}]


async def test_a_pasted_image_path_becomes_an_image_chip_and_an_input_image(tmp_path):
    (tmp_path / "shot.png").write_bytes(PNG)
    server = GatedServer(answer("a pixel", "r1"))
    app = make(server, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        app.post_message(events.Paste(f"'{tmp_path / 'shot.png'}'"))
        await until(pilot, lambda: "shot.png" in chip_text(app), "the image chip")
        assert composer.text == ""  # the path was taken, not typed
        app.post_message(events.Paste("plain words"))
        await until(pilot, lambda: composer.text == "plain words")
        await pilot.press("enter")
        await until(pilot, lambda: server.requests)
        parts = user_parts(server.requests[0])
        assert [p["type"] for p in parts] == ["input_text", "input_text", "input_image", "input_text"]
        assert parts[0]["text"] == "plain words"
        assert parts[2]["image_url"].startswith("data:image/png;base64,")
        await until(pilot, lambda: app.query(UserEntry))
        lines = [str(w.render()) for w in app.query_one(UserEntry).query("Static")]
        assert lines == ["plain words", f"[image shot.png (image/png, {len(PNG)} bytes)]"]
        assert "base64" not in "".join(lines)


async def test_the_detach_key_removes_the_last_chip(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "shot.png").write_bytes(PNG)
    server = GatedServer(answer("ok", "r1"))
    app = make(server, tmp_path, images=[attach(str(tmp_path / "shot.png"), tmp_path)])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "shot.png" in chip_text(app), "the --image chip")
        await pilot.press(*"see @a.txt")
        await until(pilot, lambda: "a.txt" in chip_text(app))
        await pilot.press("ctrl+l")  # the held image goes first
        await until(pilot, lambda: "shot.png" not in chip_text(app))
        assert "a.txt" in chip_text(app)
        await pilot.press("ctrl+l")  # then the token
        await until(pilot, lambda: not app.query_one(AttachmentChips).display)
        assert app.query_one(Composer).text == "see "


async def test_image_flag_attaches_to_the_first_message_only(tmp_path):
    (tmp_path / "shot.png").write_bytes(PNG)
    server = GatedServer(answer("one", "r1"), answer("two", "r2"))
    app = make(server, tmp_path, images=[attach(str(tmp_path / "shot.png"), tmp_path)])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"describe", "enter")
        await until(pilot, lambda: len(server.requests) == 1 and not app.turn_worker.is_running)
        await pilot.press(*"again", "enter")
        await until(pilot, lambda: len(server.requests) == 2)
        assert any(p["type"] == "input_image" for p in user_parts(server.requests[0]))
        assert user_parts(server.requests[1]) == [{"type": "input_text", "text": "again"}]


async def test_esc_esc_edits_the_last_message_and_resends_with_the_cut_history(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    (tmp_path / "a.txt").write_text("alpha")
    server = GatedServer(answer("first answer", "r1"), answer("second answer", "r2"), answer("edited answer", "r3"))
    writer = LazySessionWriter(model="gpt-5.1-codex", base_url="http://test.invalid/v1", directory=tmp_path / "s")
    app = make(server, tmp_path, session_writer=writer)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        await pilot.press(*"first", "enter")
        await until(pilot, lambda: len(server.requests) == 1 and not app.turn_worker.is_running)
        await pilot.press(*"second @a.txt", "enter")
        await until(pilot, lambda: len(server.requests) == 2 and not app.turn_worker.is_running)
        await until(pilot, lambda: len(app.query(TranscriptEntry)) == 4)
        await pilot.press("x", "escape", "escape")  # not on an empty composer: nothing
        assert len(app.conversation.history) == 4 and composer.text == "x"
        await pilot.press("backspace", "escape", "escape")
        await until(pilot, lambda: composer.text == "second @a.txt", "the draft")
        assert "a.txt" in chip_text(app)
        assert [i["role"] for i in app.conversation.history.items] == ["user", "assistant"]
        await until(pilot, lambda: len(app.query(TranscriptEntry)) == 2, "the cut entries to go")
        composer.load_text("second, edited")
        await pilot.press("enter")
        await until(pilot, lambda: len(server.requests) == 3 and not app.turn_worker.is_running)
    sent = server.requests[2]["input"]
    assert [(m["role"], m["content"][0]["text"]) for m in sent] == [
        ("user", "first"), ("assistant", "first answer"), ("user", "second, edited")]
    # The draft's attachment, held, went with the edited message as it was recorded.
    assert sent[2]["content"][1]["text"] == '<file path="a.txt">\nalpha\n</file>'
    records = [json.loads(line) for line in writer.path.read_text().splitlines()]
    cuts = [r for r in records if r.get("type") == "truncate"]
    assert len(cuts) == 1 and cuts[0]["reason"] == "edit" and cuts[0]["length"] == 2
    resumed = load_session(writer.path)
    assert [i["role"] for i in resumed.history.items] == ["user", "assistant", "user", "assistant"]
    assert len(resumed.history.branches) == 1  # the old branch is still in the file


async def test_a_single_esc_interrupts_a_running_turn_and_does_not_edit(tmp_path):
    server = GatedServer(answer("first", "r1"), answer("never", "r2"), gate_at={1: 1})
    app = make(server, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"one", "enter")
        await until(pilot, lambda: len(server.requests) == 1 and not app.turn_worker.is_running)
        await pilot.press(*"two", "enter")
        await server.reached.wait()
        await pilot.press("escape")
        await until(pilot, lambda: not app.turn_worker.is_running, "the interrupt")
        # The unsent prompt came back; the first turn is intact.
        assert app.query_one(Composer).text == "two"
        assert [i["role"] for i in app.conversation.history.items] == ["user", "assistant"]


async def test_the_inspector_edits_from_an_earlier_message(tmp_path):
    server = GatedServer(answer("A1", "r1"), answer("A2", "r2"), answer("A3", "r3"))
    app = make(server, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        for n, word in enumerate(["one", "two"], 1):
            await pilot.press(*word, "enter")
            await until(pilot, lambda n=n: len(server.requests) == n and not app.turn_worker.is_running)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        await pilot.press("down", "e")  # the row of "A1": not a message of the user's
        await until(pilot, lambda: app._notifications)
        assert isinstance(app.screen, InspectorScreen)
        await pilot.press("up", "e")  # the first message: asked first, and Esc keeps everything
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "back in the inspector")
        assert len(app.conversation.history) == 4
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question again")
        await pilot.press("down", "enter")  # "Yes: rewind"
        await until(pilot, lambda: not isinstance(app.screen, (InspectorScreen, ChoiceScreen)), "the inspector to close")
        await until(pilot, lambda: app.query_one(Composer).text == "one", "the draft")
        assert len(app.conversation.history) == 0
        await until(pilot, lambda: not app.query(TranscriptEntry))
        await pilot.press("enter")
        await until(pilot, lambda: len(server.requests) == 3)
        assert [m["content"][0]["text"] for m in server.requests[2]["input"]] == ["one"]


async def test_hostile_file_names_are_shown_sanitised_and_never_as_markup(tmp_path):
    name = "evil[bold]\x1b[31m\u202e.txt"
    (tmp_path / name).write_text("x")
    server = GatedServer(answer("ok", "r1"))
    app = make(server, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Composer).load_text(f'read @"{name}"')
        await until(pilot, lambda: "evil" in chip_text(app), "the chip")
        chip = app.query_one(AttachmentChips).render()
        assert "[bold]" in chip.plain and "\x1b" not in chip.plain and "\u202e" not in chip.plain
        await pilot.press("enter")
        await until(pilot, lambda: app.query(UserEntry))
        lines = [w.render() for w in app.query_one(UserEntry).query("Static")]
        assert "[bold]" in lines[1].plain and "\x1b" not in lines[1].plain and "\u202e" not in lines[1].plain


async def test_a_resumed_session_shows_what_was_attached(tmp_path, monkeypatch):
    from rivulet.core.store.session import open_for_resume

    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "shot.png").write_bytes(PNG)
    server = GatedServer(answer("seen", "r1"))
    writer = LazySessionWriter(model="gpt-5.1-codex", base_url="http://test.invalid/v1", directory=tmp_path / "s")
    app = make(server, tmp_path, session_writer=writer)
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Composer).load_text("look @a.txt @shot.png")
        await pilot.press("enter")
        await until(pilot, lambda: server.requests and not app.turn_worker.is_running)
    path = writer.path
    writer2, session = open_for_resume(path, load_session(path))
    app = make(GatedServer(answer("x", "r2")), tmp_path, session=session, session_writer=writer2)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.query(UserEntry), "the resumed transcript")
        lines = [str(w.render()) for w in app.query_one(UserEntry).query("Static")]
        assert lines == ["look @a.txt @shot.png", "[file a.txt (5 bytes)]",
                         f"[image shot.png (image/png, {len(PNG)} bytes)]"]


async def test_a_token_being_typed_gets_no_error_chip_until_the_cursor_leaves_it(tmp_path):
    (tmp_path / "notes.txt").write_text("n")
    app = make(GatedServer(answer("ok", "r1")), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"read @notes.t")
        await pilot.pause()
        assert chip_text(app) == ""  # not a file yet, but not an error either: still typing
        await pilot.press("x", "t")
        await until(pilot, lambda: "notes.txt · 1 B" in chip_text(app), "the chip")
        await pilot.press("backspace", "backspace", "space")
        await until(pilot, lambda: "✗ notes.t · no such file" in chip_text(app), "the error chip once past it")


async def test_editing_a_message_that_was_frozen_rebuilds_the_transcript(tmp_path):
    from rivulet.widgets.frozen_entries import FrozenEntries

    turns = 26  # 52 entries: the oldest are frozen lines, no longer widgets
    server = GatedServer(*[answer(f"A{n}", f"r{n}") for n in range(1, turns + 2)])
    app = make(server, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        for n in range(1, turns + 1):
            app.query_one(Composer).load_text(f"Q{n}")
            await pilot.press("enter")
            await until(pilot, lambda n=n: len(server.requests) == n and not app.turn_worker.is_running, f"turn {n}")
        await until(pilot, lambda: app.query(FrozenEntries), "the frozen block")
        assert not [e for e in app.query(UserEntry) if e.item_id == "user-2"]  # frozen
        await app.run_action("inspect")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        await pilot.press("down", "down", "e")  # rows: Q1, A1, Q2
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
        await pilot.press("down", "enter")  # "Yes: rewind"
        await until(pilot, lambda: app.query_one(Composer).text == "Q2", "the draft")
        await until(pilot, lambda: [e.item_id for e in app.query(TranscriptEntry)] == ["user-1", "m_r1"],
                    "the rebuilt transcript")
        assert not app.query(FrozenEntries)
        await pilot.press("enter")
        await until(pilot, lambda: len(server.requests) == turns + 1)
        assert [m["content"][0]["text"] for m in server.requests[-1]["input"]] == ["Q1", "A1", "Q2"]
