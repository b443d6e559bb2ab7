"""Plain mode's output: Markdown cut into finished blocks (never one printed twice),
hostile text shown as text (no escape reaches the terminal, no Rich markup is parsed),
no padding, and what each kind of item prints."""

from __future__ import annotations

import io
import subprocess
import sys

from rivulet.app.plain.blocks import LONG_BLOCK, BlockCutter
from rivulet.app.plain.printer import PlainPrinter
from rivulet.core.errors import StreamError
from rivulet.core.turn import bus as b


def cut(text: str, step: int = 3) -> list[str]:
    cutter = BlockCutter()
    out = []
    for n in range(0, len(text), step):
        out += cutter.feed(text[n:n + step])
    return [*out, cutter.finish()]


def test_blocks_end_at_blank_lines_and_fences_and_nothing_is_lost():
    text = "Intro line\nsecond line\n\n```py\nx = 1\n\nY = 2\n```\nafter\n\n- a\n- b\n"
    blocks = cut(text)
    assert "".join(blocks) == text  # every character exactly once
    assert blocks[0] == "Intro line\nsecond line\n\n"
    assert blocks[1] == "```py\nx = 1\n\nY = 2\n```\n"  # a blank line inside a fence does not cut it
    assert blocks[-1] == "- a\n- b\n"


def test_text_above_a_fence_is_its_own_block():
    assert cut("See:\n```\ncode\n```\n")[:2] == ["See:\n", "```\ncode\n```\n"]


def test_a_long_paragraph_is_let_out_at_a_line_end():
    cutter = BlockCutter()
    out = cutter.feed(("word " * 30 + "\n") * (LONG_BLOCK // 150 + 2))
    assert out and all(block.endswith("\n") for block in out)


def printed(*events: b.BusEvent) -> str:
    out = io.StringIO()
    printer = PlainPrinter(out)
    for event in events:
        printer(event)
    return out.getvalue()


def test_hostile_text_is_shown_not_obeyed():
    evil = "[bold red]not markup[/] \x1b]52;c;cGF3bmVk\x07 \x1b[2J done\n\n"
    text = printed(b.ItemDelta("m1", "output_text", evil),
                   b.ItemCompleted({"type": "message", "role": "assistant", "content": []}, "m1"),
                   b.Notice("server says \x1b[31mhi"), b.ItemCompleted(
                       {"type": "function_call", "call_id": "c", "name": "shell",
                        "arguments": '{"command": "echo \\u001b[2J"}'}, "c"))
    assert "\x1b" not in text and "\x07" not in text
    assert "[bold red]not markup[/]" in text
    assert "→ shell: echo" in text and "note: server says" in text


def test_lines_carry_no_padding_and_an_answer_prints_once():
    text = printed(b.ItemDelta("m1", "output_text", "Short answer.\n\nSecond paragraph"),
                   b.ItemCompleted({"type": "message", "role": "assistant",
                                    "content": [{"type": "output_text", "text": "Short answer.\n\nSecond paragraph"}]},
                                   "m1"))
    assert text.count("Short answer.") == 1 and text.count("Second paragraph") == 1
    assert all(line == line.rstrip() for line in text.splitlines())


def test_an_answer_committed_without_deltas_is_printed_and_user_messages_are_not():
    text = printed(b.ItemCompleted({"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": "my question"}]}, "user-1"),
                   b.ItemCompleted({"type": "message", "role": "assistant",
                                    "content": [{"type": "output_text", "text": "Whole answer."}]}, "m2"))
    assert "my question" not in text and "Whole answer." in text


def test_reasoning_is_one_short_dim_line_and_errors_one_line():
    text = printed(b.ItemCompleted({"type": "reasoning", "summary": [{"type": "summary_text",
                                                                      "text": "step " * 200}]}, "r"),
                   b.ErrorOccurred(StreamError("the stream was cut")))
    lines = text.splitlines()
    assert lines[0].startswith("thinking: step step") and lines[0].endswith("…") and len(lines[0]) <= 160
    assert lines[1].startswith("error: ") and "the stream was cut" in lines[1]


def test_a_pipe_gets_plain_mode_and_exec_is_unchanged(tmp_path):
    env = {"RIVULET_CONFIG": "/dev/null", "RIVULET_SESSIONS_DIR": str(tmp_path), "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path)}
    chat = subprocess.run([sys.executable, "-m", "rivulet.app", "--demo"], input="hello\n", capture_output=True,
                          text=True, env=env, timeout=120, cwd=tmp_path)
    assert chat.returncode == 0, chat.stderr
    assert 'You asked: "hello"' in chat.stdout
    # The hint names the command as it was started (issue 38.2): here `python -m rivulet.app`.
    assert f"To resume this session: {sys.executable} -m rivulet.app resume " in chat.stdout
    assert "\x1b[?1049h" not in chat.stdout + chat.stderr  # never the alternate screen
    one = subprocess.run([sys.executable, "-m", "rivulet.app", "exec", "--demo", "hello"], capture_output=True,
                         text=True, env=env, timeout=120, cwd=tmp_path)
    assert one.returncode == 0 and one.stdout.startswith("Here is how rivulet") and "you>" not in one.stdout
