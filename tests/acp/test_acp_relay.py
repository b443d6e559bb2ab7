"""The relay (app/acp/relay.py) on the bus's events, in process: deltas held and sent in
order as one chunk per turn of the loop; the server's own tools (web search) and MCP calls
as tool calls; a call the stream cut, or one a turn left open, failed, never completed."""

from __future__ import annotations

from pathlib import Path

from rivulet.app.acp.relay import Relay
from rivulet.core.turn.bus import ItemCompleted, ItemDelta, ItemDiscarded, ItemStarted


def _relay() -> tuple[Relay, list]:
    sent: list = []

    async def send(update) -> None:
        sent.append(update)

    return Relay(send, Path("/tmp")), sent


async def _feed(relay: Relay, *events) -> None:
    for event in events:
        result = relay(event)
        if result is not None:
            await result
    await relay.flush()


def _summary(sent: list) -> list[tuple]:
    out = []
    for u in sent:
        if u.session_update in ("agent_message_chunk", "agent_thought_chunk"):
            out.append((u.session_update, u.content.text))
        else:
            out.append((u.session_update, u.tool_call_id, u.status))
    return out


async def test_deltas_go_in_order_as_one_chunk_per_burst_before_the_next_update():
    relay, sent = _relay()
    search = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    thought = "reasoning_summary_text"
    await _feed(relay, ItemDelta("rs", thought, "Think"), ItemDelta("rs", thought, "ing"),
                ItemDelta("m", "output_text", "Hel"), ItemDelta("m", "output_text", "lo"),
                ItemStarted(search, "ws_1"), ItemDelta("m", "output_text", "!"))
    assert _summary(sent) == [("agent_thought_chunk", "Thinking"), ("agent_message_chunk", "Hello"),
                              ("tool_call", "ws_1", "pending"), ("agent_message_chunk", "!")]
    assert sent[2].kind == "search"


async def test_hosted_and_mcp_calls_end_as_committed_and_a_cut_call_fails():
    relay, sent = _relay()
    search = {"id": "ws_1", "type": "web_search_call", "status": "completed",
              "action": {"type": "search", "query": "rivulet acp"}}
    mcp = {"id": "fc_1", "type": "function_call", "call_id": "call_m", "name": "docs__lookup",
           "arguments": '{"q": "x"}', "status": "completed"}
    cut = {"id": "fc_2", "type": "function_call", "call_id": "call_cut", "name": "shell", "arguments": ""}
    await _feed(relay, ItemStarted({**search, "status": "in_progress"}, "ws_1"), ItemCompleted(search, "ws_1"),
                ItemStarted({**mcp, "arguments": ""}, "fc_1"), ItemCompleted(mcp, "fc_1"),
                ItemCompleted({"type": "function_call_output", "call_id": "call_m", "output": "found it"}, "o1"),
                ItemStarted(cut, "fc_2"), ItemDiscarded("fc_2", "stream cut"))
    assert [s for s in _summary(sent) if s[0] != "tool_call"] == [
        ("tool_call_update", "ws_1", "completed"), ("tool_call_update", "call_m", "in_progress"),
        ("tool_call_update", "call_m", "completed"), ("tool_call_update", "call_cut", "failed")]
    assert sent[3].title == "docs__lookup" and sent[4].content[0].content.text == "found it"


async def test_a_call_the_turn_left_open_is_failed_at_the_turns_end():
    relay, sent = _relay()
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "shell",
            "arguments": '{"command": "ls"}', "status": "completed"}
    await _feed(relay, ItemStarted({**call, "arguments": ""}, "fc_1"), ItemCompleted(call, "fc_1"))
    await relay.settle("cancelled")
    await relay.settle("cancelled")  # (a second end says nothing more)
    assert _summary(sent) == [("tool_call", "call_1", "pending"), ("tool_call_update", "call_1", "in_progress"),
                              ("tool_call_update", "call_1", "failed")]
