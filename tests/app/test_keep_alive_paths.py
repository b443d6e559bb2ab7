"""Every path of requests against a server that closes each connection after its answer
without `Connection: close` (llama.cpp's llama-server; issue 42.1): back-to-back requests
all succeed, none is retried. The turn's stream, background GET and cancel, model listing
and one transport's probes are in tests/core/protocol/test_keep_alive.py; here the
doctor's whole run, the capability probe of a first contact, compaction's JSON requests
and `rivulet exec` (a subprocess: its own assembly of clients)."""

from __future__ import annotations

import json

import httpx
import pytest
from helpers.aimock import rivulet
from helpers.mock_api import settings
from helpers.raw_http_server import RawServer, closes_after_one, response
from helpers.streams import body, call, call_events, completed, created, simple_text_response

from rivulet.app.capability_probe import probe_in_background
from rivulet.app.doctor import Doctor
from rivulet.core import capabilities as caps
from rivulet.core.protocol.http_client import new_client
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.turn.bus import EventBus, Retrying
from rivulet.core.turn.compaction import compact
from rivulet.core.turn.conversation import Conversation

SSE = "text/event-stream"
MODELS = json.dumps({"data": [{"id": "local-model"}]}).encode()
CONNECTION_WORDS = ("connection", "cut mid-response", "without answering", "reset")


def llama_answer(line: str, headers: dict[str, str], raw: bytes) -> bytes:
    """A function call when the request offers the time tool (once), text otherwise; the
    model list; a compaction."""
    if line.startswith("GET") and "/models" in line:
        return response(MODELS, content_type="application/json")
    sent = json.loads(raw or b"{}")
    if line.startswith("POST") and "responses/compact" in line:
        out = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "summary"}]}]
        return response(json.dumps({"id": "cmp_1", "output": out}).encode(), content_type="application/json")
    tools = [t.get("name") for t in sent.get("tools", [])]
    answered = any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in sent.get("input", []))
    if "current_time" in tools and not answered:
        events = call_events("fc_1", "call_1", "current_time", "{}")
        return response(body([created(), *events, completed([call("fc_1", "call_1", "current_time", "{}")])]),
                        content_type=SSE)
    return response(simple_text_response("hi"), content_type=SSE)


@pytest.fixture
def server():
    made = RawServer(closes_after_one(llama_answer))
    yield made
    made.close()


def _failures_of_the_connection(details: list[str]) -> list[str]:
    return [d for d in details if any(w in d.lower() for w in CONNECTION_WORDS)]


async def test_doctors_whole_run_has_no_probe_failed_by_a_closed_connection(server):
    s = settings(base_url=server.url + "/v1", model="local-model")
    report = await Doctor(s, 30.0, stored=True).run()
    sse_probes = [p for p in report.probes if p.name != "Responses WebSocket"]
    assert len(sse_probes) >= 5
    assert _failures_of_the_connection([p.detail for p in sse_probes]) == []
    by_name = {p.name: p for p in sse_probes}
    assert by_name["plain text"].ok and by_name["function call (tool_choice required)"].ok
    assert not any("agent tools will not work" in n for n in report.notes)
    # Each SSE request after the first went out on a dropped connection, and again on a new one.
    assert server.connections >= len(sse_probes) + 1


async def test_the_capability_probe_of_a_first_contact_is_not_failed_by_it(server):
    said: list[str] = []
    s = settings(base_url=server.url + "/v1", model="local-model", provider="llamacpp", probe_servers=True)
    note = await probe_in_background(s, said.append)
    assert note is not None and said == [note]  # the probes ran, and could chat
    entry = caps.lookup(s.base_url)
    assert entry is not None
    assert _failures_of_the_connection([str(p.get("detail")) for p in entry.probes if "WebSocket" not in p["name"]]) == []


async def test_compactions_json_requests_back_to_back(server):
    s = settings(base_url=server.url + "/v1", model="local-model", compaction="server")
    bus = EventBus()
    retries: list[Retrying] = []
    bus.subscribe(retries.append, Retrying)
    client = new_client(httpx.Timeout(30.0))
    transport = SseTransport(s, client)
    try:
        conv = Conversation(s, transport, bus)
        for _ in range(2):
            assert (await conv.run_turn("one")).last_message == "hi"
            done = await compact(conv, client=client)
            assert done is not None
        await bus.drain()
    finally:
        await transport.aclose()
    assert retries == []


def test_exec_turns_with_a_tool_call_have_no_retrying_line(server, tmp_path):
    env = {"RIVULET_SESSIONS_DIR": str(tmp_path / "sessions")}
    for _ in range(2):
        proc = rivulet("exec", "--base-url", server.url + "/v1", "--model", "local-model", "what time is it?",
                       env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "hi\n"
        assert "retrying" not in proc.stderr.lower(), proc.stderr
