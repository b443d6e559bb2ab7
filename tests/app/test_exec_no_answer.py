"""`rivulet exec` against a model that thinks and never answers: one line on stderr
and exit status 1, never a silent exit 0 (issue 23, part 7)."""

from __future__ import annotations

import json

from helpers.aimock import rivulet
from helpers.canned_server import CannedServer
from helpers.paths import ROOT
from helpers.think_streams import thinking_cut, thinking_only, thought_then_answer

LINE = "rivulet: no answer: the model's output ended inside its reasoning"


def test_a_reasoning_only_answer_is_said_on_stderr_and_exits_1(tmp_path):
    with CannedServer(thinking_only()) as server:
        proc = rivulet("exec", "--base-url", server.base_url, "write a haiku",
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path)})
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""  # stdout stays the answer: there is none
    assert proc.stderr.strip().splitlines() == [LINE]


def test_json_carries_it_in_turn_completed(tmp_path):
    with CannedServer(thinking_only()) as server:
        proc = rivulet("exec", "--json", "--base-url", server.base_url, "write a haiku",
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path)})
    assert proc.returncode == 1
    done = [json.loads(line) for line in proc.stdout.splitlines()][-1]
    assert done["type"] == "turn.completed"
    assert done["no_answer"] == "no answer: the model's output ended inside its reasoning"
    assert LINE in proc.stderr


def test_reasoning_then_an_answer_prints_the_answer(tmp_path):
    with CannedServer(thought_then_answer("Five, seven, five.", "Old pond, a frog")) as server:
        proc = rivulet("exec", "--base-url", server.base_url, "write a haiku",
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Old pond, a frog\n"
    assert "no answer" not in proc.stderr


def test_the_real_llamacpp_capture_of_a_think_block_never_closed(tmp_path):
    capture = (ROOT / "fixtures/real/llamacpp/llamacpp_reasoning_never_closed.sse").read_bytes()
    with CannedServer(capture) as server:
        proc = rivulet("exec", "--base-url", server.base_url, "what is 17*23?",
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path)})
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.strip().splitlines() == [LINE]


def test_cut_inside_the_reasoning_says_no_answer_not_a_cut_answer(tmp_path):
    with CannedServer(thinking_cut()) as server:
        proc = rivulet("exec", "--base-url", server.base_url, "write a haiku",
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path)})
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.strip().splitlines() == [
        "rivulet: error: response_incomplete: no answer: the model's output ended inside its reasoning: "
        "it reached the output token limit (max_output_tokens); its reasoning is kept"]


def test_a_malformed_message_is_named_on_stderr_as_text(tmp_path):
    from helpers.streams import body, completed, created, ev

    bad = {"id": "msg_\x1b[2J\x1b]52;c;aGk=\x07", "type": "message", "role": "assistant", "content": {"text": "hi"}}
    stream = body([created(), ev("response.output_item.done", output_index=0, item=bad), completed([bad])])
    with CannedServer(stream) as server:
        proc = rivulet("exec", "--base-url", server.base_url, "hi", env={"RIVULET_SESSIONS_DIR": str(tmp_path)})
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "rivulet: no answer: the server's message msg_" in proc.stderr and "was dropped" in proc.stderr
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
