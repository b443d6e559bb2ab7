"""Large pastes become a chip in the composer ("[Pasted 125 lines]"); the full text is
sent; Backspace removes the chip whole, ctrl+b expands it (widgets/paste_chips.py)."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until
from textual import events

from rivulet.widgets.composer import Composer
from rivulet.widgets.paste_chips import PasteChips

BIG = "\n".join(f"line {n} of the log" for n in range(125))


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def answer() -> list[str]:
    return [created(), *message_events("m", "ok"), completed([message("m", "ok")])]


def user_text(request) -> str:
    return request["input"][-1]["content"][0]["text"]


async def paste(pilot, text: str) -> None:
    composer = pilot.app.query_one(Composer)
    before = composer.text
    pilot.app.post_message(events.Paste(text))
    await until(pilot, lambda: composer.text != before, "the paste")


async def test_a_large_paste_is_a_chip_and_its_full_text_is_sent():
    server = GatedServer(answer())
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        await pilot.press(*"look at this: ")
        await until(pilot, lambda: composer.text == "look at this: ", "typed")
        await paste(pilot, BIG)
        assert composer.text == "look at this: [Pasted 125 lines]"
        await pilot.press("enter")
        await until(pilot, lambda: server.requests, "the request")
        assert user_text(server.requests[0]) == "look at this: " + BIG


async def test_backspace_removes_a_chip_whole_and_ctrl_b_expands_it():
    app = make_app(GatedServer(answer()))
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        await paste(pilot, BIG)
        await pilot.press("backspace")
        assert composer.text == ""
        await paste(pilot, BIG)
        await pilot.press("ctrl+b")
        assert composer.text == BIG


async def test_a_small_paste_goes_in_as_it_is():
    app = make_app(GatedServer(answer()))
    async with app.run_test(size=(100, 30)) as pilot:
        await paste(pilot, "two\nlines")
        assert app.query_one(Composer).text == "two\nlines"


def test_labels_are_unique_and_an_edited_label_is_left_as_typed():
    chips = PasteChips()
    a, b = chips.add(BIG), chips.add(BIG + "\nmore")
    one_line = chips.add("x" * 1500)
    assert a == "[Pasted 125 lines]" and b == "[Pasted 126 lines]" and one_line == "[Pasted 1,500 characters]"
    assert chips.add(BIG) == "[Pasted 125 lines #2]"
    assert chips.expand(f"{a} and [Pasted 125 line]") == f"{BIG} and [Pasted 125 line]"
