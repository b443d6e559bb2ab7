"""End to end against OpenAI's gpt-oss reference Responses server (PyPI gpt-oss 0.0.9).

The server is OpenAI's code, events and quirks included (reasoning as `reasoning_text`,
`output_index: -1` on the first item, function calls that arrive only as
`output_item.done`); the token source is scripted (tests/peers/gptoss_scripted.py), so
the "model" calls `shell` or `apply_patch` and then answers from the tool's output.
"""

from __future__ import annotations

import os

import pytest
from helpers.aimock import events, rivulet
from helpers.paths import ROOT
from helpers.peers import free_port, start_peer, stop_peer

from rivulet.core import items as it

GPTOSS_PY = ROOT / ".ci/gptoss/bin/python"
TIKTOKEN = ROOT / ".ci/tiktoken"


@pytest.fixture(scope="module")
def gptoss():
    assert GPTOSS_PY.exists(), "the gpt-oss server is not installed: run scripts/setup --with-peers"
    port = free_port()
    env = {**os.environ, "TIKTOKEN_ENCODINGS_BASE": str(TIKTOKEN)}
    proc = start_peer([str(GPTOSS_PY), str(ROOT / "tests/peers/gptoss_scripted.py"), str(port)],
                      f"http://127.0.0.1:{port}/v1/responses", env=env)  # a GET answers 405: it is up
    yield f"http://127.0.0.1:{port}/v1"
    stop_peer(proc)


def _workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "data.txt").write_text("first line\nthe answer is 42\n")
    return ws


def _check_requests_valid(evs):
    """What rivulet committed (and so sends next) pairs every call with one output."""
    items = [e["item"] for e in evs if e["type"] == "item.completed"]
    calls = [i for i in items if it.is_call(i)]
    outputs = [i for i in items if it.is_output(i)]
    assert calls and sorted(map(it.call_id, calls)) == sorted(map(it.call_id, outputs))
    assert all(it.call_id(i) for i in calls + outputs)


def test_shell_call_then_answer(gptoss, tmp_path):
    ws = _workspace(tmp_path)
    proc = rivulet("exec", "what is in data.txt?", "--json", "--base-url", gptoss, "--approval", "never-ask",
                   "--workspace", str(ws), "--patch-tool", "function")
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    _check_requests_valid(evs)
    kinds = [e["item"]["type"] for e in evs if e["type"] == "item.completed"]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output", "reasoning", "message"]
    # The reasoning streamed as reasoning_text deltas (gpt-oss's way), shown live.
    assert any(e["type"] == "item.delta" and e["kind"] == "reasoning_text" for e in evs)
    assert evs[-1]["last_message"] == "The file ends with: the answer is 42"
    # OpenAI's own server breaks the naive contract; each deviation is reported, once per response.
    rules = [e["rule"] for e in evs if e["type"] == "protocol.deviation"]
    assert "done_without_added" in rules and "output_index_mismatch" in rules
    assert rules.count("done_without_added") == 1  # only the first response has a (done-only) call


def test_strict_mode_refuses_the_reference_servers_deviations(gptoss, tmp_path):
    proc = rivulet("exec", "what is in data.txt?", "--base-url", gptoss, "--approval", "never-ask",
                   "--workspace", str(_workspace(tmp_path)), "--patch-tool", "function", "--strict")
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "strict protocol" in proc.stderr


def test_apply_patch_then_answer(gptoss, tmp_path):
    ws = _workspace(tmp_path)
    proc = rivulet("exec", "please patch data.txt", "--json", "--base-url", gptoss, "--approval", "auto-edit",
                   "--workspace", str(ws), "--patch-tool", "function")
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    _check_requests_valid(evs)
    assert (ws / "data.txt").read_text() == "first line\nthe answer is 43\n"
    assert (ws / "made-by-gpt-oss.txt").read_text() == "written through the reference server\n"
    assert evs[-1]["last_message"] == "The file ends with: M data.txt"
