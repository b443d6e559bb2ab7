"""Typing and pasting in a real terminal: every key of a write arrives, in order."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready


def start_chat(term, server, *extra: str):
    term.start([*RIVULET, "--base-url", server.base_url, *extra], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")


def composer_lines(screen: str) -> list[str]:
    """The text rows inside the composer's rounded border (the last box on screen)."""
    rows = screen.splitlines()
    bottoms = [i for i, r in enumerate(rows) if r.lstrip().startswith("╰")]
    if not bottoms:
        return []  # no composer on screen (an editor has the terminal)
    tops = [i for i, r in enumerate(rows[:bottoms[-1]]) if r.lstrip().startswith("╭")]
    if not tops:
        return []
    top, bottom = tops[-1], bottoms[-1]
    return [r.strip().strip("│").strip() for r in rows[top + 1:bottom]]


def test_text_and_enter_in_one_write_are_all_sent(term, server):
    start_chat(term, server)
    term.send("what time is it?", "Enter")  # one send-keys: one write to the terminal
    term.wait("ECHO[what time is it?]END", what="the echoed prompt")
    assert server.prompts == ["what time is it?"]
    assert composer_lines(term.screen()) == [""]


def test_quick_messages_each_arrive_whole(term, server):
    start_chat(term, server)
    for n in range(3):
        term.send(f"message number {n}", "Enter")
        term.wait(f"ECHO[message number {n}]END", what=f"answer {n}")
    assert server.prompts == [f"message number {n}" for n in range(3)]


def test_unmarked_multiline_paste_stays_multiline(term, server):
    start_chat(term, server)
    term.paste("one\ntwo\nthree\nfour", bracketed=False)
    term.wait(lambda s: composer_lines(s)[-1:] == ["four"], what="the pasted text in the composer")
    assert composer_lines(term.screen()) == ["one", "two", "three", "four"]
    term.send("Enter")
    term.wait("ECHO[one", what="the answer")
    assert server.prompts == ["one\ntwo\nthree\nfour"]


def test_bracketed_multiline_paste_stays_multiline(term, server):
    start_chat(term, server)
    term.paste("alpha\nbeta\ngamma", bracketed=True)
    term.wait(lambda s: composer_lines(s)[-1:] == ["gamma"], what="the pasted text in the composer")
    assert composer_lines(term.screen()) == ["alpha", "beta", "gamma"]
    term.send("Enter")
    term.wait("ECHO[alpha", what="the answer")
    assert server.prompts == ["alpha\nbeta\ngamma"]


def test_typed_text_with_newline_key_then_enter(term, server):
    """ctrl+j adds a line in the same write as the text around it, in order."""
    start_chat(term, server)
    term.send("first", "C-j", "second", "Enter")
    term.wait("ECHO[first", what="the answer")
    assert server.prompts == ["first\nsecond"]


def test_a_large_unmarked_paste_arrives_exactly(term, server):
    """200 lines, 10,000 characters, pasted without paste markers: every character, in
    order, as one message."""
    text = "\n".join(f"line {n:03d} " + "x" * 40 for n in range(200))
    start_chat(term, server)
    term.paste(text, bracketed=False)
    term.wait(lambda s: composer_lines(s)[-1:] == ["line 199 " + "x" * 40], what="the paste's last line")
    term.send("Enter")
    term.wait("]END", what="the end of the answer")
    assert server.prompts == [text]


def test_a_pasted_escape_sequence_is_shown_and_sent_as_visible_text(term, server):
    """Pasted text is not trusted either: drawn raw, an OSC 2 in it would retitle the
    terminal (and worse sequences exist). The composer shows it as visible codes, and
    sends what it shows."""
    start_chat(term, server)
    title_before = term.tmux("display-message", "-p", "-t", "t", "#{pane_title}")
    term.paste("look \x1b]2;pwned\x07 here\x1b[2J", bracketed=True)
    term.wait(lambda s: any("␛]2;pwned␇ here␛[2J" in line for line in composer_lines(s)),
              what="the escape sequences as visible codes in the composer")
    assert term.tmux("display-message", "-p", "-t", "t", "#{pane_title}") == title_before
    assert "pwned" not in title_before
    term.send("Enter")
    term.wait("ECHO[look", what="the answer")
    assert server.prompts == ["look ␛]2;pwned␇ here␛[2J"]
