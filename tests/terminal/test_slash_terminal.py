"""Slash commands in a real terminal (tmux): the `/` popup opens, narrows and is
driven by keys; picking a model or an effort changes the status line and the next
request's body; /compact makes the next request smaller; an unknown command is not
sent; `//x` sends `/x`. The server is a real local one that records every body."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines


def start_chat(term, server, *extra: str):
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a", *extra], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")


def status_row(screen: str) -> str:
    """The status line: the row right above the composer's box."""
    rows = screen.splitlines()
    tops = [i for i, r in enumerate(rows) if r.lstrip().startswith("╭")]
    return rows[tops[-1] - 1] if tops else ""


def test_slash_popup_narrows_and_picks_a_model_for_the_next_request(term, server):
    server.list_models("gpt-test-a", "gpt-test-b")
    start_chat(term, server)
    term.type("/")
    screen = term.wait(lambda s: "/model [NAME]" in s and "/effort" in s, what="the popup with the commands")
    assert "/model [NAME]" in screen and "/effort [LEVEL]" in screen and "/new" in screen
    term.type("mo")
    screen = term.wait(lambda s: "/model" in s and "/new" not in s and "/effort" not in s,
                       what="the list narrowed to /model")
    assert "Pick the model" in screen and "/new" not in screen
    term.send("Enter")
    screen = term.wait("Model for the next requests", what="the model picker")
    assert "gpt-test-b" in screen and "2 models from the server" in screen
    term.send("Down")
    term.send("Enter")
    term.wait(lambda s: "gpt-test-b" in status_row(s), what="the new model in the status line")
    term.send("hello", "Enter")
    term.wait("ECHO[hello]END", what="the answer")
    assert [b["model"] for b in server.bodies] == ["gpt-test-b"]
    assert server.prompts == ["hello"]


def test_effort_with_an_argument_and_escape_closes_the_popup(term, server):
    start_chat(term, server)
    term.type("/eff")
    term.wait("/effort", what="the popup")
    term.send("Escape")
    term.wait(lambda s: "/effort [LEVEL]" not in s, what="the popup to close")
    assert composer_lines(term.screen()) == ["/eff"]  # Esc closed the list, nothing else
    term.type("ort high")
    term.send("Enter")
    term.wait(lambda s: "gpt-test-a high" in status_row(s), what="the effort in the status line")
    term.send("hi", "Enter")
    term.wait("ECHO[hi]END", what="the answer")
    assert server.bodies[-1]["reasoning"]["effort"] == "high"
    assert server.bodies[-1]["model"] == "gpt-test-a"


def test_unknown_command_is_not_sent_and_double_slash_is(term, server):
    start_chat(term, server)
    term.type("/frobnicate")
    term.send("Enter")
    term.wait("Unknown command /frobnicate", what="the one-line refusal")
    assert server.bodies == []
    assert [r.split()[0] for r in composer_lines(term.screen())] == ["/frobnicate"]  # (a toast may overlap)
    term.send("C-a")  # home: the slash doubled in front
    term.type("/")
    term.send("Enter")
    term.wait("ECHO[/frobnicate]END", what="the literal text sent")
    assert server.prompts == ["/frobnicate"]


def test_compact_makes_the_next_request_smaller_and_valid(term, server):
    def answer(prompt: str) -> str:  # long answers; a short summary when asked for one
        return "SHORT SUMMARY" if prompt.startswith("Compact this conversation") else \
            "filler " * 300 + f"ECHO[{prompt}]END"

    server.answer_with(answer)
    start_chat(term, server)
    for n in range(4):
        term.send(f"question {n}", "Enter")
        term.wait(f"ECHO[question {n}]END", what=f"answer {n}")
        term.wait(lambda s: "Done in" in status_row(s), what="the turn to end")
    before = server.bodies[-1]
    term.type("/compact")
    term.send("Enter")
    term.wait("Compacted", what="the compaction's result")
    term.send("after", "Enter")
    term.wait("ECHO[after]END", what="the answer after compaction")
    summary_request, after = server.bodies[-2], server.bodies[-1]
    assert summary_request["input"][-1]["content"][0]["text"].startswith("Compact this conversation")
    assert len(str(after["input"])) < len(str(before["input"])) - 1500  # one long answer fewer, at least
    # Valid: a summary message first, then whole turns, each a user message and its answer.
    roles = [(i["type"], i["role"]) for i in after["input"]]
    assert roles == [("message", "user")] + [("message", "user"), ("message", "assistant")] * 2 + [("message", "user")]
    assert after["input"][0]["content"][0]["text"].startswith("<conversation_summary>")
    assert all(isinstance(i["content"], list) and i["content"] for i in after["input"])


def test_after_new_quitting_names_the_new_session_and_the_old_one_stays(term, server):
    start_chat(term, server)
    term.send("old talk", "Enter")
    term.wait("ECHO[old talk]END", what="the first answer")
    term.type("/new")
    term.send("Enter")
    term.wait("New conversation. The previous one is saved", what="the note")
    term.send("new talk", "Enter")
    term.wait("ECHO[new talk]END", what="the second answer")
    term.send("C-q")
    assert term.wait_exit() == 0
    saved = sorted((term.home / ".local" / "share" / "rivulet" / "sessions").glob("*.jsonl"))
    assert len(saved) == 2
    newer = next(p for p in saved if "new talk" in p.read_text())
    assert "old talk" not in newer.read_text()
    assert f"To resume this session: rivulet resume {newer.stem}" in term.scrollback()
