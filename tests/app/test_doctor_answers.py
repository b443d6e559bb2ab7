"""`rivulet doctor` on servers whose plain answer has no text, and on rivulet's own
demo (issue 23, part 7): it goes on, says what it saw, and the demo passes."""

from __future__ import annotations

import json

from helpers.aimock import rivulet
from helpers.calls import fn_call, fn_call_response
from helpers.canned_server import CannedServer
from helpers.think_streams import thinking_only


def _report(proc) -> dict:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_the_demo_passes_every_probe_it_can_answer():
    report = _report(rivulet("doctor", "--demo", "--json", "--timeout", "30"))
    results = {p["name"]: p["ok"] for p in report["probes"]}
    assert False not in results.values(), report["probes"]
    assert results["custom (freeform) tool"] is True and report["recommended"]["patch_tool"] == "custom"
    ws = next(p for p in report["probes"] if p["name"] == "Responses WebSocket")
    # The demo speaks SSE only: a WebSocket it does not offer is not a failure.
    assert ws["ok"] is None and ws["detail"].startswith("not offered (HTTP 404")
    assert report["recommended"]["transport"] == "sse"


def test_a_reasoning_only_answer_is_a_chat_said_as_such_and_the_probes_go_on():
    with CannedServer(thinking_only()) as server:
        proc = rivulet("doctor", "--base-url", server.base_url, "--json", "--timeout", "20")
        text_proc = rivulet("doctor", "--base-url", server.base_url, "--timeout", "20")
        keyed = rivulet("doctor", "--base-url", server.base_url, "--timeout", "20", "--no-store",
                        env={"OPENAI_API_KEY": "sk-test-doctor-0001"})
    report = _report(proc)
    plain = report["probes"][0]
    assert (plain["name"], plain["ok"], plain["warn"]) == ("plain text", True, True)
    assert plain["detail"].startswith("reasoning only: no message text")
    assert report["can_chat"] and len(report["probes"]) == 6  # every probe ran
    reasoning = next(p for p in report["probes"] if p["name"] == "reasoning")
    assert reasoning["ok"] and reasoning["detail"] == "raw reasoning text streamed (no summaries)"
    assert any("may end without an answer" in n for n in report["notes"])
    calls = next(p for p in report["probes"] if p["name"] == "function call (tool_choice required)")
    assert calls["ok"] is False and calls["detail"] == "no function call; got reasoning"
    assert text_proc.returncode == 0 and "warn plain text" in text_proc.stdout
    # Its first line names the key only where one is sent (a local server has none: issue 42).
    assert "short requests to" in text_proc.stderr and "on your key" not in text_proc.stderr
    assert "short requests to" in keyed.stderr and "on your key" in keyed.stderr
    assert "sk-test-doctor-0001" not in keyed.stdout + keyed.stderr
    assert "cannot chat" not in text_proc.stdout


def test_a_scripted_server_that_answers_with_a_tool_call_is_said_as_such():
    with CannedServer(fn_call_response("r1", fn_call("fc1", "call_1", "current_time", {}))) as server:
        report = _report(rivulet("doctor", "--base-url", server.base_url, "--json", "--timeout", "20"))
    plain = report["probes"][0]
    assert plain["ok"] and plain["warn"]
    assert plain["detail"] == "a tool call, no text, though no tool was offered: current_time({})"
    results = {p["name"]: p["ok"] for p in report["probes"]}
    assert results["function call (tool_choice required)"] is True
