"""Issue 25: an answer's Markdown looks the same while it streams and once committed.
An ordered list kept "1" live and became "1." on commit; a table's column alignment
(`|:--|--:|:-:|`) was honoured live (Rich) and lost on commit (Textual's widget)."""

from __future__ import annotations

import json

import pytest
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.widgets.entries import AssistantEntry
from rivulet.widgets.live import LiveMessage

ANSWER = ("Steps:\n\n1. Read the stream\n2. Commit on done\n\n"
          "| name | count | mark |\n|:--|--:|:-:|\n| a | 1 | x |\n| bbbbbb | 22222 | yyyyy |\n\n"
          "And a closing line.\n")

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def screen_lines(app: RivuletApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def live_then_committed() -> tuple[GatedServer, RivuletApp]:
    payloads = [created(), *message_events("m", ANSWER, chunks=4), completed([message("m", ANSWER)])]
    done = next(i for i, p in enumerate(payloads) if json.loads(p)["type"] == "response.output_text.done")
    server = GatedServer(payloads, gate_at={0: done})  # every delta sent, the item not done
    return server, RivuletApp(settings(model="gpt-5.1-codex"), server.transport(), remember_theme=False)


async def both_screens(size: tuple[int, int]) -> tuple[list[str], list[str]]:
    """The screen with the answer live (all of it drawn), then with it committed."""
    server, app = live_then_committed()
    async with app.run_test(size=size) as pilot:
        await pilot.press(*"go", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveMessage) for p in app.live.values())
                    and any("closing line" in line for line in screen_lines(app)), "the live answer drawn")
        live = screen_lines(app)
        server.release()
        await until(pilot, lambda: app.query(AssistantEntry) and not app.live
                    and any("closing line" in line for line in screen_lines(app)), "the committed answer")
        await pilot.pause()
        return live, screen_lines(app)


FRAME = " ╏│"  # the live pane's left edge, a table's border


def list_lines(lines: list[str]) -> list[str]:
    return [line.lstrip(FRAME).rstrip() for line in lines if "Read the stream" in line or "Commit on done" in line]


async def test_an_ordered_list_is_numbered_the_same_live_and_committed():
    live, committed = await both_screens((80, 40))
    assert list_lines(live) == list_lines(committed)
    assert [line.split()[0] for line in list_lines(committed)] == ["1.", "2."]


def row(lines: list[str], first: str) -> str:
    return next(line for line in lines if line.lstrip(FRAME).startswith(first + " "))


def assert_aligned(lines: list[str]) -> None:
    header, short, wide = row(lines, "name"), row(lines, "a"), row(lines, "bbbbbb")
    # name: left -- the cells start where the header starts.
    assert short.index(" a ") + 1 == header.index("name") == wide.index("bbbbbb")
    # count: right -- the cells end where the header ends.
    end = header.index("count") + len("count")
    assert short.index(" 1 ") + 2 == end == wide.index("22222") + 5
    # mark: centred -- one-cell and five-cell values share a centre.
    centre = wide.index("yyyyy") + 2
    assert short.rindex(" x ") + 1 == centre


async def test_a_table_honours_column_alignment_live_and_committed():
    live, committed = await both_screens((80, 40))
    assert_aligned(live)
    assert_aligned(committed)
