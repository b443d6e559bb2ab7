"""llama-server's stream-shape notes (no output_index, overlapping items) are shown once per
server (issue 42.7): the first chat with it shows the two dim lines, a later chat with the
same server shows none, and /status and the inspector still list them. A note about
content (an item that is not the model's) is shown every time."""

from __future__ import annotations

import pytest
from helpers.recorded import recording
from helpers.tui import GatedServer, make_app, until

from rivulet.app.commands.status import protocol_lines
from rivulet.core.protocol.recordings import sse_payloads
from rivulet.core.server_notes import SeenNotes, notes_path

pytestmark = pytest.mark.pilot


def llama_answer() -> list[str]:
    return sse_payloads(recording("llamacpp_text.sse").body)


async def _chat_notes(*, inspector: bool = False) -> tuple[list[str], list[str], list[str]]:
    """One chat, one turn on llama-server's recorded stream: (the notes shown in the
    transcript, those the inspector holds, /status's lines about them)."""
    server = GatedServer(llama_answer())
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hi", "enter")
        await until(pilot, lambda: app.conversation.turns == 1 and not app.turn_worker.is_running, "the turn")
        await until(pilot, lambda: app.notes.protocol_notes, "the deviations")
        await pilot.pause()
        shown = [str(w.render()) for w in app.query(".protocol-note")]
        held = [n.rule for n in app.notes.protocol_notes]
        status = protocol_lines(app.services.engine)
    return shown, held, status


async def test_the_stream_shape_notes_show_in_the_first_chat_with_a_server_only():
    first, held, status = await _chat_notes()
    assert any("no_output_index" in n for n in first)
    assert "no_output_index" in held and "no_output_index" in status[0]
    again, held_again, status_again = await _chat_notes()
    assert again == []  # said before for this server
    assert "no_output_index" in held_again  # the inspector still lists them
    assert len(status_again) == 1 and "no_output_index" in status_again[0]


def test_content_notes_are_always_shown_and_the_file_is_per_server(tmp_path):
    path = tmp_path / "notes.json"
    seen = SeenNotes("http://127.0.0.1:8080/v1", path)
    assert seen.first_time("overlapping_items") and not seen.first_time("overlapping_items")
    assert seen.first_time("foreign_item") and seen.first_time("foreign_item")
    assert not SeenNotes("http://127.0.0.1:8080/v1", path).first_time("overlapping_items")
    assert SeenNotes("http://127.0.0.1:9090/v1", path).first_time("overlapping_items")  # another server
    path.write_text('{"servers": {"http://127.0.0.1:7070/v1": ["overlapping_items", "<b>x</b>", 3]}}')
    assert SeenNotes("http://127.0.0.1:7070/v1", path).known == {"overlapping_items"}  # unknown rules dropped
    path.write_text("not json")
    assert SeenNotes("http://127.0.0.1:7070/v1", path).first_time("overlapping_items")


def test_the_notes_file_is_beside_the_sessions_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "data" / "sessions"))
    assert notes_path() == tmp_path / "data" / "protocol_notes.json"
