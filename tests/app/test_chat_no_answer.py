"""The chat, when the model thinks and never answers: the Thought is opened and a
line under it says so (issue 23, part 7)."""

from __future__ import annotations

import pytest
from helpers.streams import completed, created, message, message_events
from helpers.think_streams import thinking_cut, thought_events
from helpers.tui import GatedServer, make_app, until
from textual.widgets import Collapsible, Static

from rivulet.core.protocol.recordings import sse_payloads
from rivulet.core.turn.bus import TurnCompleted
from rivulet.widgets.entries import ErrorEntry, ReasoningEntry
from rivulet.widgets.transcript import Transcript

THOUGHT = "The user wants a haiku. Five syllables first"


pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


async def test_a_reasoning_only_answer_opens_the_thought_and_says_no_answer():
    item = {"id": "rs_1", "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": THOUGHT}]}
    server = GatedServer([created(), *thought_events("rs_1", THOUGHT), completed([item])])
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"haiku", "enter")
        await until(pilot, lambda: app.query(".no-answer"), "the no-answer line")
        children = list(app.query_one(Transcript).children)
        thought = next(w for w in children if isinstance(w, ReasoningEntry))
        assert thought.query_one(Collapsible).collapsed is False
        line = app.query_one(".no-answer", Static)
        assert children.index(line) == children.index(thought) + 1  # right under the Thought
        assert "no answer: the model's output ended inside its reasoning" in str(line.render())


async def test_an_answered_turn_leaves_the_thought_folded():
    item = {"id": "rs_1", "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": THOUGHT}]}
    server = GatedServer([created(), *thought_events("rs_1", THOUGHT), *message_events("m1", "Old pond"),
                          completed([item, message("m1", "Old pond")])])
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        done = []
        app.bus.subscribe(lambda e: app.call_later(done.append, e), TurnCompleted)
        await pilot.press(*"haiku", "enter")
        await until(pilot, lambda: done, "the turn to end")
        await pilot.pause()
        assert not app.query(".no-answer")
        assert app.query_one(ReasoningEntry).query_one(Collapsible).collapsed is True


async def test_cut_inside_the_reasoning_opens_the_thought_under_the_error():
    server = GatedServer(sse_payloads(thinking_cut(THOUGHT)))
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"haiku", "enter")
        await until(pilot, lambda: app.query(ErrorEntry), "the error line")
        assert app.query_one(ReasoningEntry).query_one(Collapsible).collapsed is False
        assert "no answer: the model's output ended inside its reasoning" in app.query_one(ErrorEntry).message
