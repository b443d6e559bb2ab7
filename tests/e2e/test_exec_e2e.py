"""`rivulet exec` end to end, as a real process over real HTTP, against aimock.

aimock (npm @copilotkit/aimock, pinned in scripts/setup) is a real Responses server
written by others; the fixtures it answers with are in fixtures/aimock/e2e.json.
"""

from __future__ import annotations

import json

from helpers.aimock import KEY, events, rivulet
from helpers.local_server import LocalServer, Reply, Request, json_reply


def test_plain_text(aimock):
    proc = rivulet("exec", "say-hello", "--base-url", aimock)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from aimock! This is **plain** text, streamed in small chunks.\n"


def test_plain_text_json_events(aimock):
    proc = rivulet("exec", "say-hello", "--json", "--base-url", aimock, "--model", "gpt-test")
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    types = [e["type"] for e in evs]
    assert types[0] == "turn.started" and types[-1] == "turn.completed"
    started = [e for e in evs if e["type"] == "item.started"]
    deltas = [e for e in evs if e["type"] == "item.delta"]
    done = [e for e in evs if e["type"] == "item.completed" and e["item"].get("role") != "user"]
    # We ask for reasoning.encrypted_content, so aimock sends an (empty) reasoning item first.
    assert [e["item"]["type"] for e in started] == [e["item"]["type"] for e in done] == ["reasoning", "message"]
    assert done[0]["item"]["encrypted_content"]
    assert len(deltas) > 3
    text = "".join(d["delta"] for d in deltas)
    assert done[1]["item"]["content"][0]["text"] == text
    assert types.index("item.started") < types.index("item.delta") < types.index("turn.completed")
    # item.completed comes after the last delta of its item.
    assert max(i for i, t in enumerate(types) if t == "item.delta") < max(
        i for i, e in enumerate(evs) if e["type"] == "item.completed")
    assert "usage" in evs[-1]


def test_reasoning_then_answer(aimock):
    proc = rivulet("exec", "think-first", "--json", "--base-url", aimock)
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    committed = [e["item"] for e in evs if e["type"] == "item.completed"]
    assert [i["type"] for i in committed] == ["message", "reasoning", "message"]
    summary = "".join(e["delta"] for e in evs if e["type"] == "item.delta" and e["kind"] == "reasoning_summary_text")
    assert summary == committed[1]["summary"][0]["text"] and summary.startswith("The user wants")
    assert evs[-1]["last_message"] == "The answer is 42."


def test_function_call_gets_an_output_and_a_follow_up(aimock):
    proc = rivulet("exec", "weather-tool", "--json", "--base-url", aimock)
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    committed = [e["item"] for e in evs if e["type"] == "item.completed"]
    assert [i["type"] for i in committed] == ["message", "reasoning", "function_call", "function_call_output",
                                              "reasoning", "message"]
    call, output = committed[2], committed[3]
    assert call["name"] == "get_weather" and json.loads(call["arguments"]) == {"city": "Paris"}
    assert output["call_id"] == call["call_id"]
    args = "".join(e["delta"] for e in evs if e["type"] == "item.delta" and e["kind"] == "function_call_arguments")
    assert args == call["arguments"]
    assert sum(e["type"] == "response.started" for e in evs) == 2
    assert evs[-1]["last_message"].startswith("I could not check the weather")


def test_fatal_error_exits_non_zero_with_one_line(aimock):
    proc = rivulet("exec", "quota-error", "--json", "--base-url", aimock)
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0
    assert proc.stderr.startswith("rivulet: error: quota_exceeded:")
    evs = events(proc)
    assert evs[-1]["type"] == "error" and evs[-1]["error"]["retryable"] is False
    assert not any(e["type"] == "retrying" for e in evs)


def test_server_error_is_retried_then_reported(aimock):
    proc = rivulet("exec", "server-boom", "--json", "--base-url", aimock)
    assert proc.returncode == 1
    assert "server_error" in proc.stderr
    evs = events(proc)
    assert [e["type"] for e in evs].count("retrying") == 1  # RIVULET_MAX_RETRIES=1


def test_stream_cut_mid_response(aimock):
    proc = rivulet("exec", "cut-stream", "--json", "--base-url", aimock)
    assert proc.returncode == 1
    assert "stream_error" in proc.stderr and "cut mid-response" in proc.stderr
    evs = events(proc)
    types = [e["type"] for e in evs]
    assert "item.delta" in types  # it did stream before the cut
    discarded = {e["item_id"] for e in evs if e["type"] == "item.discarded"}
    streamed = {e["item_id"] for e in evs if e["type"] == "item.delta"}
    assert streamed and streamed <= discarded  # the partial message was never committed
    committed = [e["item"] for e in evs if e["type"] == "item.completed"]
    assert not streamed & {i.get("id") for i in committed}
    assert {i["type"] for i in committed} <= {"message", "reasoning"}
    assert [i.get("role") for i in committed if i["type"] == "message"] == ["user"]
    assert types.count("retrying") == 1 and types[-1] == "error"


# ---- without aimock: a local server that checks auth and echoes the key in its error ----


def _echo_key(request: Request) -> Reply | None:
    if request.method != "POST":
        return None
    auth = request.headers.get("Authorization", "")
    return json_reply(401, {"error": {"message": f"Incorrect API key provided: {auth.removeprefix('Bearer ')}",
                                      "code": "invalid_api_key"}})


def test_the_key_is_sent_but_never_printed():
    with LocalServer(_echo_key) as server:
        proc = rivulet("exec", "hi", "--json", "--base-url", server.base_url, env={"OPENAI_API_KEY": KEY})
    assert proc.returncode == 1
    assert "authentication_error" in proc.stderr and "[redacted]" in proc.stderr
    assert KEY not in proc.stderr and KEY not in proc.stdout


def test_no_key_for_a_remote_server_is_a_config_error():
    proc = rivulet("exec", "hi", "--base-url", "https://api.example.invalid/v1")
    assert proc.returncode == 2 and "OPENAI_API_KEY is not set" in proc.stderr


def test_bad_config_is_one_clear_line():
    proc = rivulet("exec", "hi", "--base-url", "ftp://nope")
    assert proc.returncode == 2
    assert proc.stderr.startswith("rivulet: error: bad --base-url: base_url must be an http(s) URL") and proc.stderr.count("\n") == 1
