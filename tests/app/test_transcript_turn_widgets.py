"""A long chat keeps about one turn of entries as widgets (issue 22's soak).

An answer's Markdown is ~90 widgets, and every layout pass (one per batch of commits,
while the reader of the stream waits) visits each of them: with 18 entry widgets kept,
four or five answers' worth of them were laid out again on every commit of a turn, and
"Done" and the next turn's CPU waited behind it. Older entries are frozen data, still
shown, in order."""

from __future__ import annotations

from helpers.mock_api import settings
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.core.turn import bus as b
from rivulet.widgets.entries import AssistantEntry, TranscriptEntry

ANSWER = ("## Heading\n\nA paragraph with **bold** text.\n\n- one\n- two\n- three\n\n"
          "| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint('x')\n```\n")


def one_turn(app: RivuletApp, n: int) -> list[str]:
    """A soak turn's commits (prompt, reasoning, a call and its output, a Markdown answer),
    as the bus carries them; returns the keys of the entries it adds."""
    pub = app.bus.publish
    pub(b.TurnStarted(n, f"turn {n}"))
    pub(b.ItemCompleted({"type": "message", "role": "user", "content": [{"type": "input_text",
                                                                            "text": f"turn {n}"}]}, f"user-{n}"))
    pub(b.ItemCompleted({"id": f"rs{n}", "type": "reasoning",
                         "summary": [{"type": "summary_text", "text": f"**Plan {n}**"}]}, f"rs{n}"))
    pub(b.ItemCompleted({"id": f"fc{n}", "type": "function_call", "call_id": f"c{n}", "name": "shell",
                         "arguments": '{"command": ["true"]}'}, f"fc{n}"))
    pub(b.ItemCompleted({"type": "function_call_output", "call_id": f"c{n}", "output": "ok"}, f"out{n}"))
    mid = f"m{n}"
    pub(b.ItemStarted({"id": mid, "type": "message", "role": "assistant", "content": []}, mid))
    pub(b.ItemDelta(mid, "output_text", f"Answer {n}. "))
    pub(b.ItemCompleted({"id": mid, "type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": f"Answer {n}. {ANSWER}"}]}, mid))
    pub(b.TurnCompleted(n, None, "done", None, None, None))
    return [f"user-{n}", f"rs{n}", f"fc{n}", mid]


def entry_widgets(app: RivuletApp) -> list[TranscriptEntry]:
    return [w for w in app._transcript.children if isinstance(w, TranscriptEntry)]


def shown_keys(app: RivuletApp) -> list[str]:
    frozen = app._transcript.frozen
    old = [key for key, _, _ in frozen.entries] if frozen is not None else []
    return old + [w.item_id for w in entry_widgets(app)]


async def test_a_long_chat_keeps_about_one_turn_of_entries_as_widgets():
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        keys: list[str] = []
        most_entries = most_answers = 0
        for n in range(1, 9):
            keys += one_turn(app, n)
            await until(pilot, lambda want=list(keys): shown_keys(app) == want, f"turn {n}'s entries")
            await pilot.pause()
            most_entries = max(most_entries, len(entry_widgets(app)))
            most_answers = max(most_answers, len([w for w in entry_widgets(app) if isinstance(w, AssistantEntry)]))
        # Every entry still shown, in order; the call's output joined its call.
        assert shown_keys(app) == keys
        assert "out8" not in keys and app._transcript.frozen is not None
        # Widgets for the newest turn or two (a turn here is 4 entries), however many
        # turns went by.
        assert most_entries <= 8, most_entries
        assert most_answers <= 2, most_answers
