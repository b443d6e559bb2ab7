"""The status line's priorities (widgets/status.py): state, model and context left stay
whole at any width; tokens used, the sandbox, the heading and the Esc hint give way first,
in that order; a note that still does not fit is cut at a word, never inside one."""

from __future__ import annotations

from rivulet.widgets.status import DROP, KEEP, Part, fit_status, shorten_at_word

MODEL, CONTEXT = "gpt-5.1-codex high", "90% context left"


def parts(note: str = "Ready", working: bool = False) -> list[Part]:
    left = [Part("Working (3s", KEEP, "left"), Part(" • esc to interrupt", 2, "left", joins=True),
            Part(")", KEEP, "left", joins=True), Part("Reading the files", 3, "left")] if working else \
        [Part(note, KEEP, "left", note=note != "Ready")]
    return [*left, Part("sandbox workspace-write", 4, "right"), Part(MODEL, KEEP, "right"),
            Part("12.3k tokens used", DROP, "right"), Part(CONTEXT, KEEP, "right")]


def test_everything_fits_when_there_is_room_and_tokens_used_goes_first():
    left, right, cut = fit_status(parts(working=True), 140)
    assert left == "Working (3s • esc to interrupt) • Reading the files"
    assert right == f"sandbox workspace-write • {MODEL} • 12.3k tokens used • {CONTEXT}"
    assert cut is None
    left, right, _ = fit_status(parts(working=True), 118)  # 120 columns
    assert left == "Working (3s • esc to interrupt) • Reading the files"
    assert right == f"sandbox workspace-write • {MODEL} • {CONTEXT}"


def test_at_80_the_less_useful_parts_go_first_and_the_essentials_stay_whole():
    left, right, cut = fit_status(parts(working=True), 78)
    assert MODEL in right and CONTEXT in right and "tokens used" not in right
    assert left == "Working (3s • esc to interrupt)" and "sandbox" not in right  # heading, sandbox gone
    assert len(left) + 1 + len(right) <= 78 and cut is None
    left, right, _ = fit_status(parts(working=True), 50)
    assert right == f"{MODEL} • {CONTEXT}" and left == "Working (3s)"


def test_a_long_note_is_cut_at_a_word_and_handed_back_whole():
    note = "Interrupted before anything was committed: your message is back in the composer"
    left, right, cut = fit_status(parts(note), 78)
    assert right == f"{MODEL} • {CONTEXT}"
    assert cut == note and left.endswith("…")
    assert note.startswith(left.removesuffix("…")) and note[len(left) - 1] in " :"  # a whole word ended there
    assert fit_status(parts("Interrupted: what was committed is kept"), 78)[2] is None  # it fits at 80


def test_shorten_at_word_never_cuts_inside_a_word():
    assert shorten_at_word("one two three", 10) == "one two…"
    assert shorten_at_word("Interrupted: what", 14) == "Interrupted…"
    assert shorten_at_word("unbreakable", 5) == ""


async def test_the_turns_cost_follows_done_and_gives_way_without_a_transcript_note():
    """The cost (tokens, dollars, speed) after "Done in" gives way on a narrow line (its
    dollars last: tests/widgets/test_status_cost_parts.py); it is never what makes the note
    overflow into the transcript."""
    from textual.app import App, ComposeResult

    from rivulet.widgets.status import StatusLine

    overflowed: list[str] = []

    class Host(App):
        def compose(self) -> ComposeResult:
            yield StatusLine(MODEL, id="status")

        def on_status_line_note_overflowed(self, message: StatusLine.NoteOverflowed) -> None:
            overflowed.append(message.text)

    for width, shown in ((140, True), (40, False)):
        app = Host()
        async with app.run_test(size=(width, 5)) as pilot:
            status = app.query_one(StatusLine)
            status.note = "Done in 3s"
            status.cost = [("tokens", "900 in · 100 out"), ("dollars", "$0.0021"), ("speed", "41 tok/s")]
            status.refresh_line()
            await pilot.pause()
            line = str(status.render())
            assert line.startswith("Done in 3s") and MODEL in line
            assert ("$0.0021" in line) is shown
            status.note = "Editing"  # another note: the turn's cost is not beside it
            status.refresh_line()
            await pilot.pause()
            assert "$0.0021" not in str(status.render())
    assert overflowed == []
