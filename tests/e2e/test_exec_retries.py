"""`rivulet exec` against real local servers that fail (issue 23.4, 23.7): every retry is
one line on stderr (none with --quiet or --json), Retry-After as seconds or an HTTP
date, a wait past `max_retry_wait` said at once, and a request the server cannot take
(an image without mmproj, llama.cpp's parser refusing the output) not retried."""

from __future__ import annotations

import email.utils
import json
import time

import pytest
from helpers.aimock import rivulet
from helpers.fault_server import Answer, FaultServer
from helpers.peers import free_port
from helpers.streams import simple_text_response

ERROR_JSON = {"content-type": "application/json"}


def _stderr_lines(proc) -> list[str]:
    return proc.stderr.splitlines()


def test_a_refused_connection_shows_each_retry():
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens
    proc = rivulet("exec", "hi", "--base-url", url, env={"RIVULET_MAX_RETRIES": "2"})
    assert proc.returncode == 1
    lines = _stderr_lines(proc)
    assert len(lines) == 3, proc.stderr
    for n, line in enumerate(lines[:2], 1):
        assert line.startswith("rivulet: retrying in ") and f"s ({n}/2): stream_error: connection to " in line
    assert lines[2].startswith("rivulet: error: stream_error:")
    assert "\x1b" not in proc.stderr  # dim only on a terminal


@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_quiet_and_json_print_no_retry_lines(flag):
    url = f"http://127.0.0.1:{free_port()}/v1"
    proc = rivulet("exec", "hi", flag, "--base-url", url, env={"RIVULET_MAX_RETRIES": "1"})
    assert proc.returncode == 1
    assert [line for line in _stderr_lines(proc) if "retrying" in line] == []
    assert len(_stderr_lines(proc)) == 1
    if flag == "--json":  # the retrying event says it there
        assert [json.loads(line)["type"] for line in proc.stdout.splitlines()].count("retrying") == 1


def test_retry_after_as_an_http_date_is_waited_out():
    """On today's main an HTTP date is not understood: a 429 without a delay is fatal."""
    def answer(n: int, method: str, path: str) -> Answer:
        if n == 0:
            when = email.utils.formatdate(time.time() + 2, usegmt=True)
            return Answer(429, {**ERROR_JSON, "retry-after": when},
                          [b'{"error": {"message": "Rate limited", "code": "rate_limit_exceeded"}}'])
        return Answer(200, {"content-type": "text/event-stream"}, [simple_text_response("after the wait")])

    with FaultServer(answer) as server:
        proc = rivulet("exec", "hi", "--base-url", server.base_url)
        requests = server.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "after the wait\n" and requests == 2
    [line] = _stderr_lines(proc)
    assert line.startswith("rivulet: retrying in ") and "(1/1): rate_limited: Rate limited" in line
    delay = float(line.removeprefix("rivulet: retrying in ").split("s", 1)[0])
    assert 0.0 <= delay <= 2.0


def test_a_retry_after_past_max_retry_wait_is_said_at_once():
    """`Retry-After: 3600`: today's main sleeps 120 s per attempt, saying nothing."""
    with FaultServer(lambda n, m, p: Answer(429, {**ERROR_JSON, "retry-after": "3600"},
                                            [b'{"error": {"message": "Slow down", "code": "rate_limit_exceeded"}}'])
                     ) as server:
        proc = rivulet("exec", "hi", "--base-url", server.base_url, env={"RIVULET_MAX_RETRIES": "4"})
        requests = server.requests
    assert proc.returncode == 1 and requests == 1
    [line] = _stderr_lines(proc)
    assert line.startswith("rivulet: error: retry_wait_too_long: Slow down")
    assert "asks to wait 3600s" in line and "max_retry_wait = 60s" in line


@pytest.mark.parametrize("message", [
    "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
    "Failed to parse input at pos 13: <tool_call>{\"name\": \"shell\"",
])
def test_a_request_the_server_cannot_take_is_not_retried(message):
    """llama.cpp answers both with a 500; a retry only waits for the same refusal."""
    body = json.dumps({"error": {"code": 500, "message": message, "type": "server_error"}}).encode()
    with FaultServer(lambda n, m, p: Answer(500, ERROR_JSON, [body])) as server:
        proc = rivulet("exec", "hi", "--base-url", server.base_url, env={"RIVULET_MAX_RETRIES": "3"})
        requests = server.requests
    assert proc.returncode == 1 and requests == 1
    [line] = _stderr_lines(proc)
    assert line.startswith("rivulet: error: unsupported_input: ") and "not retried" in line
