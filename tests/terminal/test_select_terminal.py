"""Issue 25: the transcript is text you can take. A mouse drag across two entries in a
real terminal (SGR mouse reports, as a terminal sends them) and Ctrl+C copy their text
through OSC 52: no borders, no wrap breaks, no continuation marks."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready

PARAGRAPH = ("This paragraph is long enough that it has to wrap at least once on an eighty column "
             "screen, and a second time too.")
CODE = "print('a line of code long enough that it is continued on the next row of the block')"
ANSWER = f"{PARAGRAPH}\n\n```python\n{CODE}\n```\n\nThe end of the answer.\n"


def sgr(button: int, x: int, y: int, release: bool = False) -> str:
    """An SGR (1006) mouse report, as hex bytes for `send-keys -H`; x and y count from 0."""
    report = f"\x1b[<{button};{x + 1};{y + 1}{'m' if release else 'M'}"
    return " ".join(f"{ord(c):02x}" for c in report)


def row_of(screen: str, text: str) -> int:
    return next(y for y, line in enumerate(screen.splitlines()) if text in line)


def drag_and_copy(term, press: tuple[int, int], release: tuple[int, int]) -> str:
    """Press at `press` (x, y), drag with button 0 held to the row above `release` and then
    to it, let go, Ctrl+C: what the app copied (OSC 52) into tmux's buffer."""
    (x0, y0), (x1, y1) = press, release
    for report in (sgr(0, x0, y0), sgr(32, 10, y1 - 1), sgr(32, x1, y1), sgr(0, x1, y1, release=True)):
        term.tmux("send-keys", "-t", "t", "-H", *report.split())
    term.send("C-c")
    term.wait(lambda s: term.tmux("list-buffers") != "", what="the copy (OSC 52) in tmux's buffer")
    return term.tmux("show-buffer")


def test_a_mouse_drag_across_entries_copies_clean_text(term, server):
    server.answer_with(lambda prompt: ANSWER)
    term.width = 80
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.tmux("set-option", "-g", "set-clipboard", "on")  # tmux keeps what OSC 52 sets as a buffer
    term.send("first question", "Enter")
    screen = term.wait(lambda s: "Done in" in s and "The end of the answer." in s, what="the answer")
    assert "↪" in screen  # the code line is wrapped on screen
    start, end = row_of(screen, "first question"), row_of(screen, "The end of the answer.")
    copied = drag_and_copy(term, (3, start), (30, end))  # pressed on the question
    lines = copied.splitlines()
    assert lines[0] == "first question" and lines[-1] == "The end of the answer."
    assert PARAGRAPH in lines and CODE in lines
    assert not any(c in copied for c in "↪▌│┌└─")


def test_a_drag_from_an_old_entry_copies_clean_text(term, server):
    """The oldest entries are lines of one block (widgets/frozen_entries.py), not widgets:
    a drag from one of them into the newest entries copies text as clean."""
    answers = iter([ANSWER] + [f"Short answer {n}." for n in range(1, 6)])
    server.answer_with(lambda prompt: next(answers))
    term.width, term.height = 80, 60
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.tmux("set-option", "-g", "set-clipboard", "on")
    for n in range(6):  # 12 entries: the first turns' are beyond the newest widgets, in the line store
        term.send(f"question {n}", "Enter")
        term.wait(lambda s, n=n: "Done in" in s and (f"Short answer {n}." in s if n else "The end of" in s),
                  what=f"answer {n}")
    screen = term.screen()
    start, end = row_of(screen, "question 0"), row_of(screen, "Short answer 5.")
    copied = drag_and_copy(term, (0, start), (40, end))  # from the margin, as users do
    lines = copied.splitlines()
    assert lines[0] == "question 0" and lines[-1] == "Short answer 5."
    assert PARAGRAPH in lines and CODE in lines
    assert not any(c in copied for c in "↪▌│┌└─")
