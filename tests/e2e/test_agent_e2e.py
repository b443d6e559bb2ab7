"""The agent end to end against aimock, a real Responses server written by others:
`rivulet exec` runs shell and apply_patch for real; the chat UI streams, asks and
applies a patch; a cut at every event index of a multi-item response retries to the
history of the uncut run. The follow-up fixtures only match when the request carries
the tool's real output (aimock's `toolResultContains`), so a pass proves the output
reached the server."""

from __future__ import annotations

import json

import httpx
from helpers.aimock import events, rivulet, start_aimock
from helpers.config_files import empty_config
from helpers.paths import ROOT
from helpers.peers import stop_peer

from rivulet.core import items as it
from rivulet.core.config import Settings
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.turn.bus import EventBus
from rivulet.core.turn.conversation import Conversation, RetryPolicy


def _workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "data.txt").write_text("the answer is 42\n")
    (ws / "notes.md").write_text("title\nold line\n")
    return ws


def _valid(items: list[dict]) -> None:
    calls = [i for i in items if it.is_call(i)]
    outputs = [i for i in items if it.is_output(i)]
    assert all(it.call_id(i) for i in calls + outputs), "an empty call id"
    assert sorted(map(it.call_id, calls)) == sorted(map(it.call_id, outputs)), "a call without exactly one output"


def test_exec_runs_shell_and_answers(aimock, tmp_path):
    ws = _workspace(tmp_path)
    proc = rivulet("exec", "agent-shell", "--json", "--base-url", aimock, "--approval", "never-ask",
                   "--workspace", str(ws))
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    outputs = [e["item"] for e in evs if e["type"] == "item.completed" and e["item"]["type"] == "function_call_output"]
    assert len(outputs) == 1 and outputs[0]["output"].startswith("Exit code: 0\n")
    assert "the answer is 42\ndone" in outputs[0]["output"]
    shown = "".join(e["text"] for e in evs if e["type"] == "tool.output")
    assert shown == "the answer is 42\ndone\n"
    assert evs[-1]["type"] == "turn.completed" and evs[-1]["last_message"] == "The file says the answer is 42."
    assert [e["type"] for e in evs].count("response.started") == 2


def test_exec_without_a_terminal_declines_and_the_model_is_told(aimock, tmp_path):
    ws = _workspace(tmp_path)
    proc = rivulet("exec", "agent-patch", "--json", "--base-url", aimock, "--workspace", str(ws),
                   "--patch-tool", "function")
    # `ask` with nobody to ask declines: nothing is written, the output says so, and the
    # follow-up (which needs a successful patch) has no fixture: aimock answers 404.
    assert (ws / "notes.md").read_text() == "title\nold line\n" and not (ws / "hello.txt").exists()
    outputs = [e["item"] for e in events(proc) if e["type"] == "item.completed" and it.is_output(e["item"])]
    assert "declined" in outputs[0]["output"]


def test_exec_applies_a_patch_through_the_function_fallback(aimock, tmp_path):
    ws = _workspace(tmp_path)
    proc = rivulet("exec", "agent-patch", "--base-url", aimock, "--approval", "auto-edit", "--workspace", str(ws),
                   "--patch-tool", "function")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "I added hello.txt and updated notes.md.\n"
    assert (ws / "hello.txt").read_text() == "hello from the patch\n"
    assert (ws / "notes.md").read_text() == "title\nnew line\n"


async def test_chat_ui_streams_asks_and_applies_a_patch(aimock, tmp_path, monkeypatch):
    from helpers.tui import settled, until

    from rivulet.app.tui import RivuletApp
    from rivulet.widgets.dialogs import ApprovalScreen
    from rivulet.widgets.entries import AssistantEntry, ToolCallEntry
    from rivulet.widgets.live import LivePatch

    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))
    ws = _workspace(tmp_path)
    s = Settings(base_url=aimock, model="gpt-test", patch_tool="function")
    app = RivuletApp(s, SseTransport(s), tool_settings=ToolSettings(workspace=ws, patch_tool="function"),
                     remember_theme=False)
    seen_live: list[str] = []  # what the live pane drew, frame by frame
    flush = LivePatch.flush

    async def recording_flush(self, force: bool = False) -> None:
        await flush(self, force)
        seen_live.append(str(self.query_one(".live-body").render()))

    monkeypatch.setattr(LivePatch, "flush", recording_flush)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"agent-patch", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
        assert app.screen.request.title == "A hello.txt, M notes.md"
        assert not (ws / "hello.txt").exists()
        await pilot.press("y")
        await until(pilot, lambda: settled(app) and app.query(AssistantEntry), "the answer")
        assert (ws / "notes.md").read_text() == "title\nnew line\n"
        assert "Success" in str(app.query_one(ToolCallEntry).query_one(".tool-output").render())
        assert "A hello.txt" in str(app.query_one(ToolCallEntry).query_one(".tool-args").render())
    # The patch was drawn as a per-file diff while it streamed, before it was committed.
    assert any("A hello.txt" in frame and "+hello from the patch" in frame for frame in seen_live), seen_live


# ---- a cut at every event index -------------------------------------------------------

FULL = {"reasoning": "Check the time, then say it.", "content": "Let me look at the clock.",
        "toolCalls": [{"name": "current_time", "arguments": {}}]}
ITEMS = ("reasoning", "content", "toolCalls")


def _cut_fixtures(total: int, done_before: list[int]) -> dict:
    """For a cut after n events: the cut response, then a retry that continues with the
    items the cut one did not finish (what a model continuing from that history would
    send), then the answer to the tool's output.

    aimock drops the connection right after writing chunk `truncateAfterChunks`, which
    then never arrives (checked: with a small latency the client gets exactly one chunk
    fewer), so a cut after n events is `truncateAfterChunks: n + 1`."""
    fixtures = []
    for n in range(1, total):
        msg = f"cut[{n}]"  # brackets: aimock matches substrings, and cut-at-1 is in cut-at-15
        rest = {k: v for k, v in FULL.items() if ITEMS.index(k) >= done_before[n]}
        fixtures.append({"match": {"userMessage": msg, "hasToolResult": False, "sequenceIndex": 0},
                         "response": FULL, "truncateAfterChunks": n + 1, "latency": 5})
        if rest:
            fixtures.append({"match": {"userMessage": msg, "hasToolResult": False, "sequenceIndex": 1},
                             "response": rest})
        fixtures.append({"match": {"userMessage": msg, "hasToolResult": True}, "response": {"content": "Noon."}})
    fixtures.append({"match": {"userMessage": "uncut", "hasToolResult": False}, "response": FULL})
    fixtures.append({"match": {"userMessage": "uncut", "hasToolResult": True}, "response": {"content": "Noon."}})
    return {"fixtures": fixtures}


def _shape(items: list[dict]) -> list[tuple]:
    """History without the ids aimock makes up anew for every response."""
    out = []
    for i in items:
        text = it.message_text(i) if i.get("type") == "message" else None
        summary = [p.get("text") for p in i.get("summary") or []] if i.get("type") == "reasoning" else None
        out.append((i.get("type"), i.get("role"), text, summary, i.get("name"), i.get("arguments"),
                    (i.get("output") or "")[:5] if it.is_output(i) else None))
    return out


async def _run(base_url: str, prompt: str, requests: list[dict]) -> Conversation:
    # store=true: with store=false we ask for encrypted reasoning, and aimock then makes up a
    # reasoning item for every response (as a reasoning model would), retries included.
    settings = Settings(base_url=base_url, model="gpt-test", max_retries=2, store=True)

    async def log_request(request: httpx.Request) -> None:
        requests.append(json.loads(request.content))

    client = httpx.AsyncClient(event_hooks={"request": [log_request]})
    tools = AgentTools(ToolSettings(workspace=ROOT, shell=False, patch_tool="off"), ApprovalPolicy("never-ask"))
    conv = Conversation(settings, SseTransport(settings, client), EventBus(), tools=tools,
                        retry=RetryPolicy(max_retries=2, base_delay=0.0))
    await conv.run_turn(prompt)
    await conv.transport.aclose()
    return conv


async def test_a_cut_at_every_event_index_retries_to_the_uncut_history(tmp_path):
    # The uncut stream, as aimock sends it, tells how many events there are and how
    # many items are done before each index.
    fixture_file = tmp_path / "cuts.json"
    fixture_file.write_text(json.dumps(_cut_fixtures(2, [0, 0, 0])))
    proc, url = start_aimock(fixture_file)
    try:
        body = {"model": "gpt-test", "input": "uncut", "stream": True,
                "tools": [{"type": "function", "name": "current_time", "parameters": {"type": "object"}}]}
        raw = httpx.post(f"{url}/responses", json=body, timeout=30).text
    finally:
        stop_peer(proc)
    types = [json.loads(line[6:])["type"] for line in raw.splitlines() if line.startswith("data: ")]
    total = len(types)
    assert total > 12 and types[-1] == "response.completed"
    done_before = [types[:n].count("response.output_item.done") for n in range(total + 1)]

    fixture_file.write_text(json.dumps(_cut_fixtures(total, done_before)))
    proc, url = start_aimock(fixture_file)
    try:
        uncut_requests: list[dict] = []
        uncut = await _run(url, "uncut", uncut_requests)
        expected = _shape(uncut.history.items)
        assert [t[0] for t in expected] == ["message", "reasoning", "message", "function_call",
                                            "function_call_output", "message"]
        for n in range(1, total):
            requests: list[dict] = []
            cut = await _run(url, f"cut[{n}]", requests)
            got = _shape(cut.history.items)
            got[0] = expected[0]  # the prompts differ (cut[n] / uncut)
            assert got == expected, f"cut after {n} events ({types[n - 1]})"
            for request in requests:
                _valid(request["input"])
            # The cut, its retry, the follow-up with the tool output; when every item was
            # done before the cut, the call ran at once and the retry is that follow-up.
            assert len(requests) == (3 if done_before[n] < len(ITEMS) else 2), f"cut after {n}"
    finally:
        stop_peer(proc)


# ---- end_turn: false, over real HTTP (neither aimock nor gpt-oss sends it) -----------

def test_end_turn_false_continues_the_same_turn_over_http():
    from helpers.canned_server import CannedServer
    from helpers.streams import completed, created, message, message_events

    from rivulet.core.protocol.recordings import sse_body

    bodies = [sse_body([created("r1"), *message_events("m1", "Part one."),
                        completed([message("m1", "Part one.")], "r1", end_turn=False)]),
              sse_body([created("r2"), *message_events("m2", "Part two."),
                        completed([message("m2", "Part two.")], "r2", end_turn=True)])]
    with CannedServer(*bodies) as server:
        proc = rivulet("exec", "tell me in two parts", "--json", "--base-url", server.base_url)
    received = server.requests
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    assert [e["type"] for e in evs].count("turn.started") == 1 and len(received) == 2
    assert [i.get("role") for i in received[1]["input"]] == ["user", "assistant"]
    assert evs[-1]["type"] == "turn.completed" and evs[-1]["last_message"] == "Part two."
