"""What quitting the chat leaves in the scrollback without --print (issue 38.3): the last
turns' prompts and answers as sanitised text, and a line saying how to see the rest."""

from __future__ import annotations

from pathlib import Path

from rivulet.app.transcript_out import recap_text
from rivulet.core import items as it
from rivulet.core.turn.history import History

SESSION = Path("/sessions/20261204-101500-abc123.jsonl")


def answer(text: str) -> it.Item:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def conversation(turns: int) -> History:
    """Turns as the chat records them: the prompt (key user-N), thinking, a tool call and
    its output, the answer."""
    history = History()
    for n in range(1, turns + 1):
        history.append(it.user_message(f"question {n}"), key=f"user-{n}")
        history.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": f"pondering {n}"}]})
        history.append({"type": "function_call", "call_id": f"c{n}", "name": "shell", "arguments": '{"cmd": "ls"}'})
        history.append({"type": "function_call_output", "call_id": f"c{n}", "output": f"tool said {n}"})
        history.append(answer(f"answer {n}"))
    return history


def test_a_long_conversation_is_cut_to_its_last_turns_with_a_line_saying_how_to_see_the_rest():
    text = recap_text(conversation(7), 5, SESSION, "scripts/run")
    lines = text.splitlines()
    assert lines[0] == ("(2 earlier turns not shown: scripts/run export 20261204-101500-abc123 "
                        "prints the whole conversation)")
    for n in range(3, 8):
        assert f"question {n}" in text and f"answer {n}" in text
    assert "question 2" not in text and "answer 2" not in text and "question 1" not in text
    assert text.index("question 3") < text.index("answer 3") < text.index("question 7") < text.index("answer 7")
    assert "pondering" not in text and "tool said" not in text  # `--print` is the one with everything
    assert text.endswith("answer 7\n")


def test_a_short_conversation_is_all_there_without_a_cut_line():
    text = recap_text(conversation(2), 5, SESSION, "rivulet")
    assert text.startswith("## User\n\nquestion 1") and "answer 2" in text and "not shown" not in text


def test_an_unsaved_session_says_so_and_zero_turns_or_nothing_said_prints_nothing():
    assert recap_text(conversation(3), 1, None, "rivulet").splitlines()[0] == \
        "(2 earlier turns not shown: this session was not saved)"
    assert recap_text(conversation(3), 0, SESSION, "rivulet") == ""
    assert recap_text(History(), 5, SESSION, "rivulet") == ""
    assert recap_text(None, 5, SESSION, "rivulet") == ""


def test_hostile_answers_are_text_without_control_sequences():
    history = History()
    history.append(it.user_message("hi \x1b]52;c;cGF3bmVk\x07"), key="user-1")
    history.append(answer("[bold red]not markup[/] \x1b[2J cleared?"))
    text = recap_text(history, 5, SESSION, "rivulet")
    assert "\x1b" not in text and "\x07" not in text
    assert "[bold red]not markup[/]" in text and "cleared?" in text
