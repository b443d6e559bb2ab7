"""MCP end to end: real MCP servers (the SDK's MCPServer in tests/peers/mcp_server.py, over
stdio and over streamable HTTP on 127.0.0.1) and a real Responses server (aimock) whose
model calls them as `server__tool`. The follow-up fixtures only match when the request
carries the tool's real output (`toolResultContains`), and the requests are recorded,
so the exact output that went back is checked."""

from __future__ import annotations

import json
import sys

import httpx
import pytest
from helpers.aimock import start_aimock
from helpers.calls import Asked
from helpers.peers import free_port, start_peer, stop_peer
from mcp_helpers import SERVER, stdio_table
from openai.types.responses import response_input_item_param as sdk
from pydantic import TypeAdapter

from rivulet.core.config import Settings
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.mcp_client import McpManager
from rivulet.core.tools.mcp_config import parse_servers
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.turn.bus import EventBus
from rivulet.core.turn.conversation import Conversation, RetryPolicy

PIXEL = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


def _fixtures() -> dict:
    def pair(prompt, name, args, contains, answer):
        first = {"match": {"userMessage": prompt, "hasToolResult": False},
                 "response": {"toolCalls": [{"name": name, "arguments": args}]}}
        then = {"match": {"userMessage": prompt, "hasToolResult": True}, "response": {"content": answer}}
        if contains:
            then["match"]["toolResultContains"] = contains
        return [first, then]

    return {"fixtures": [
        *pair("mcp-echo", "local__echo", {"text": "hello MCP"}, "echo: hello MCP", "The server said hello."),
        *pair("mcp-http-add", "remote__add", {"a": 2, "b": 40}, '"sum": 42', "2 + 40 = 42."),
        *pair("mcp-image", "local__red_pixel", {}, None, "I see a red pixel."),
        *pair("mcp-crash", "local__crash", {}, "the server stopped while running it", "The server crashed."),
        *pair("mcp-hang", "local__hang", {"seconds": 3600}, "did not answer within", "The tool timed out."),
        *pair("mcp-esc", "local__hang", {"seconds": 3600}, None, "unused"),
    ]}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    fixture = tmp_path_factory.mktemp("aimock") / "mcp.json"
    fixture.write_text(json.dumps(_fixtures()))
    proc, url = start_aimock(fixture)
    yield url
    stop_peer(proc)


@pytest.fixture(scope="module")
def http_server():
    port = free_port()
    proc = start_peer([sys.executable, str(SERVER), "--http", str(port)], f"http://127.0.0.1:{port}/mcp", timeout=30)
    yield f"http://127.0.0.1:{port}/mcp"
    stop_peer(proc)


async def _turn(model_url, prompt, tmp_path, servers: dict, approver=None, policy="ask"):
    """One turn of a real conversation; returns (follow-up request inputs, conversation, manager)."""
    requests: list[dict] = []

    async def log_request(request: httpx.Request) -> None:
        requests.append(json.loads(request.content))

    settings = Settings(base_url=model_url, model="gpt-test", max_retries=0, store=True)
    manager = McpManager(parse_servers(servers), workspace=tmp_path)
    tools = AgentTools(ToolSettings(workspace=tmp_path, shell=False, patch_tool="off"),
                       ApprovalPolicy(policy, approver or Asked()), mcp=manager)
    conv = Conversation(settings, SseTransport(settings, httpx.AsyncClient(event_hooks={"request": [log_request]})),
                        EventBus(), tools=tools, retry=RetryPolicy(max_retries=0, base_delay=0.0))
    try:
        await tools.start_mcp()
        result = await conv.run_turn(prompt)
    finally:
        await manager.aclose()
        await conv.transport.aclose()
    return requests, result, manager


def _sent_outputs(requests: list[dict]) -> list[dict]:
    return [i for i in requests[-1]["input"] if i.get("type") == "function_call_output"]


async def test_a_stdio_tool_is_offered_asked_for_and_its_output_goes_back(model, tmp_path):
    asked = Asked()
    requests, result, _ = await _turn(model, "mcp-echo", tmp_path, {"local": stdio_table(tmp_path / "m")},
                                      asked)
    offered = {t["name"]: t for t in requests[0]["tools"]}
    assert offered["local__echo"] == {
        "type": "function", "name": "local__echo", "description": "[MCP server local, tool echo] Say the text back.",
        "parameters": {"type": "object", "title": "echoArguments", "required": ["text"],
                       "properties": {"text": {"title": "Text", "type": "string"}}}}
    assert "strict" not in offered["local__echo"]
    assert [(r.kind, r.server, r.tool, r.title, r.detail) for r in asked.requests] == [
        ("mcp", "local", "echo", "local · echo", '{\n  "text": "hello MCP"\n}')]
    outputs = _sent_outputs(requests)
    assert [o["output"] for o in outputs] == ["echo: hello MCP"]
    assert result.last_message == "The server said hello." and len(requests) == 2


async def test_a_streamable_http_tool_with_structured_content(model, tmp_path, http_server):
    requests, result, _ = await _turn(model, "mcp-http-add", tmp_path, {"remote": {"url": http_server}})
    # The server's text is its structured content as JSON: kept once, not twice.
    assert [o["output"] for o in _sent_outputs(requests)] == ['{\n  "sum": 42\n}']
    assert result.last_message == "2 + 40 = 42."


async def test_an_image_result_reaches_the_model_as_input_image(model, tmp_path):
    requests, result, _ = await _turn(model, "mcp-image", tmp_path, {"local": stdio_table(tmp_path / "m")},
                                      policy="auto-edit")  # red_pixel is read-only: not asked
    [output] = _sent_outputs(requests)
    assert output["output"] == [{"type": "input_text", "text": "a red pixel"},
                                {"type": "input_image", "image_url": f"data:image/png;base64,{PIXEL}",
                                 "detail": "auto"}]
    TypeAdapter(sdk.FunctionCallOutput).validate_python(output)  # the shape the API takes
    assert result.last_message == "I see a red pixel."


async def test_a_crashed_server_is_told_to_the_model_and_the_others_go_on(model, tmp_path, http_server):
    requests, result, manager = await _turn(model, "mcp-crash", tmp_path,
                                            {"local": stdio_table(tmp_path / "m"), "remote": {"url": http_server}})
    [output] = _sent_outputs(requests)
    assert output["output"].startswith("error: tool crash of MCP server local: the server stopped while running it ")
    assert "Its last stderr:\n" in output["output"] and "about to crash: goodbye" in output["output"]
    assert result.last_message == "The server crashed."
    states = {s["name"]: (s["state"], s["error"] or "") for s in manager.status()}
    assert states["local"][0] == "failed" and states["local"][1].startswith("stopped while running a tool")
    assert states["remote"][0] == "stopped"  # it was ready until aclose


async def test_a_hung_tool_times_out_and_is_cancelled_on_the_server(model, tmp_path):
    from mcp_helpers import marks, wait_for

    mark_file = tmp_path / "m"
    requests, result, _ = await _turn(model, "mcp-hang", tmp_path,
                                      {"local": stdio_table(mark_file, tool_timeout=1.5)})
    [output] = _sent_outputs(requests)
    assert output["output"] == ("error: tool hang of MCP server local did not answer within 1.5 s (tool_timeout); "
                                "the call was cancelled. Try something smaller, or tell the user.")
    assert result.last_message == "The tool timed out."
    # notifications/cancelled reached the server: its handler was cancelled (or it was stopped).
    wait_for(lambda: "hang cancelled" in marks(mark_file), "the server to see the cancellation")


async def test_esc_during_an_mcp_call_cancels_it_on_the_server_and_aborts_the_call(model, tmp_path):
    import asyncio

    from mcp_helpers import marks, wait_for

    from rivulet.core import items as it

    mark_file = tmp_path / "m"
    settings = Settings(base_url=model, model="gpt-test", max_retries=0, store=True)
    manager = McpManager(parse_servers({"local": stdio_table(mark_file)}), workspace=tmp_path)
    tools = AgentTools(ToolSettings(workspace=tmp_path, shell=False, patch_tool="off"),
                       ApprovalPolicy("never-ask"), mcp=manager)
    conv = Conversation(settings, SseTransport(settings), EventBus(), tools=tools,
                        retry=RetryPolicy(max_retries=0, base_delay=0.0))
    try:
        await tools.start_mcp()
        turn = asyncio.create_task(conv.run_turn("mcp-esc"))
        await asyncio.to_thread(wait_for, lambda: any(m.startswith("hang started") for m in marks(mark_file)),
                                "the tool to start")
        turn.cancel()  # the user's Esc
        with pytest.raises(asyncio.CancelledError):
            await turn
        await asyncio.to_thread(wait_for, lambda: "hang cancelled" in marks(mark_file), "the server's cancellation")
        outputs = [i for i in conv.history.items if it.is_output(i)]
        assert len(outputs) == 1 and outputs[0]["output"].startswith("aborted")
        assert manager.status()[0]["state"] == "ready"  # the server lives on for the next turn
    finally:
        await manager.aclose()
        await conv.transport.aclose()


async def test_a_streamable_http_server_gets_the_headers_and_the_bearer_token(tmp_path, monkeypatch):
    import os

    port = free_port()
    env = {**os.environ, "MCP_TEST_TOKEN": "tok-e2e-987654321"}
    proc = start_peer([sys.executable, str(SERVER), "--http", str(port)], f"http://127.0.0.1:{port}/mcp", env=env,
                      timeout=30)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        monkeypatch.setenv("TEAM_TOKEN", "tok-e2e-987654321")
        good = {"url": url, "headers": {"X-Team": "tools"}, "bearer_token_env": "TEAM_TOKEN"}
        manager = McpManager(parse_servers({"ok": good, "nokey": {"url": url, "headers": {"X-Team": "tools"}},
                                            "unset": {**good, "bearer_token_env": "NO_SUCH_VAR"}}))
        try:
            await manager.start()
            status = {s["name"]: s for s in manager.status()}
        finally:
            await manager.aclose()
    finally:
        stop_peer(proc)
    assert status["ok"]["state"] == "ready" and "echo" in status["ok"]["tools"]
    assert status["nokey"]["state"] == "failed" and status["nokey"]["error"]  # the server said 401
    assert status["unset"]["state"] == "failed" and "NO_SUCH_VAR" in status["unset"]["error"]
    assert not any("tok-e2e-987654321" in (s["error"] or "") for s in status.values())
