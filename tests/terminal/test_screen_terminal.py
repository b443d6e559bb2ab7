"""The screen of a daily driver in a real terminal (tmux): code blocks wrap with a mark
instead of being cut, also after a resize; the status line keeps state, model and context
left whole at 80 columns, and a note too long for it is said whole in the transcript."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_slash_terminal import status_row

LONG = "result = compute(" + ", ".join(f"argument_{n}" for n in range(16)) + ")  # THE-END"


def start_chat(term, server, *extra: str):
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a", *extra], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")


def unwrapped(screen: str) -> str:
    """The screen's rows with each continued code row ("↪ …") joined to the row above."""
    rows: list[str] = []
    for row in screen.splitlines():
        text = row.strip()
        if text.startswith("↪") and rows:
            rows[-1] += text.removeprefix("↪").strip()
        else:
            rows.append(text)
    return "\n".join(rows)


def test_a_long_code_line_wraps_with_a_mark_at_120_and_after_a_resize_to_80(term, server):
    term.width, term.height = 120, 30
    server.answer_with(lambda prompt: f"Code:\n\n```python\n{LONG}\nprint(result)\n```\n\nECHO[{prompt}]END")
    start_chat(term, server)
    term.send("go", "Enter")
    screen = term.wait("ECHO[go]END", what="the answer")
    assert "↪" in screen and "THE-END" in unwrapped(screen)  # continued, not cut at the right edge
    term.resize(80, 24)
    screen = term.wait(lambda s: sum("↪" in r for r in s.splitlines()) >= 2 and "THE-END" in unwrapped(s),
                       what="the block wrapped again at 80 columns")
    rows = [r for r in screen.splitlines() if "argument_" in r or "↪" in r]
    assert all(len(r.rstrip()) <= 80 for r in rows)
    assert "".join(r.strip().removeprefix("↪").strip() for r in rows).replace(" ", "") \
        .startswith(LONG.replace(" ", "")[:60])


def test_status_line_at_80_keeps_model_and_says_a_long_note_whole_in_the_transcript(term, server):
    server.answer_with(lambda prompt: " ".join(f"word{n}" for n in range(3000)), words_per_second=20)
    term.width, term.height = 80, 24
    start_chat(term, server)
    term.send("go", "Enter")
    term.wait("word3", what="the answer streaming")
    row = status_row(term.screen())
    assert "gpt-test-a" in row and "Working" in row
    term.send("Escape")  # nothing committed yet: the message is given back
    screen = term.wait(lambda s: "message is back in the" in s.replace("▌", "").replace("\n", " ")
                       and status_row(s).strip().startswith("Interrupted"), what="the note in the transcript")
    note = " ".join(r.strip().lstrip("▌").strip() for r in screen.splitlines() if r.strip().startswith("▌"))
    assert note == "Interrupted before anything was committed: your message is back in the composer"
    row = status_row(screen)
    assert row.strip().startswith("Interrupted") and "gpt-test-a" in row
    left = row.strip().split("  ")[0]
    assert left.endswith("…") and note.startswith(left.removesuffix("…"))
    assert note[len(left) - 1] in " :"  # cut where a word ended, never inside one


def test_a_toast_stays_clear_of_the_composer_and_the_status_line_at_80x24(term, server):
    term.width, term.height = 80, 24
    start_chat(term, server)
    term.type("/frobnicate")
    term.send("Enter")
    screen = term.wait("Unknown command /frobnicate", what="the toast")
    rows = screen.splitlines()
    toast_rows = [n for n, r in enumerate(rows) if "Unknown command" in r]
    composer_top = max(n for n, r in enumerate(rows) if r.lstrip().startswith("╭"))
    assert toast_rows and max(toast_rows) < composer_top - 1  # above the status line and the composer
    assert status_row(screen).strip().startswith("Ready") and "gpt-test-a" in status_row(screen)
    assert rows[composer_top + 1].strip("│ ") == "/frobnicate"  # the draft is not covered
