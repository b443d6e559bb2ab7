"""`exec --json` against a local server (issue 42.3): a model named like an OpenAI one
has `dollars: null`, and a turn that fails after a completed request ends with its
`error` event carrying the tokens it used. The server behaves as llama-server does:
closes after each answer, sends its bare error frame."""

from __future__ import annotations

import json

from helpers.aimock import events, rivulet
from helpers.raw_http_server import RawServer, closes_after_one, response
from helpers.streams import body, call, call_events, completed, created

USAGE = {"input_tokens": 1_000, "output_tokens": 50, "total_tokens": 1_050}
ERROR_FRAME = b'data: {"error":{"code":400,"message":"the prompt is too long","type":"invalid_request_error"}}\n\n'


def test_a_failed_local_turn_ends_with_its_tokens_and_no_dollars(tmp_path):
    answers = [body([created(), *call_events("fc_1", "call_1", "current_time", "{}"),
                     completed([call("fc_1", "call_1", "current_time", "{}")], usage=USAGE)]), ERROR_FRAME]

    def answer(line: str, headers: dict[str, str], raw: bytes) -> bytes:
        return response(answers.pop(0) if len(answers) > 1 else answers[0], content_type="text/event-stream")

    server = RawServer(closes_after_one(answer))
    try:
        proc = rivulet("exec", "--json", "--base-url", server.url + "/v1", "--model", "gpt-4o-mini",
                       "what time is it?", env={"RIVULET_SESSIONS_DIR": str(tmp_path / "sessions")})
    finally:
        server.close()
    assert proc.returncode != 0
    last = events(proc)[-1]
    assert last["type"] == "error" and "too long" in json.dumps(last["error"])
    assert (last["cost"]["input"], last["cost"]["output"], last["cost"]["dollars"]) == (1_000, 50, None)
    assert last["usage"]["input_tokens"] == 1_000
