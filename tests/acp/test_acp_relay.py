"""The relay (app/acp/relay.py) on the bus's events, in process: deltas held and sent in
order as one chunk per turn of the loop; the server's own tools (web search) and MCP calls
as tool calls; a call the stream cut, or one a turn left open, failed, never completed."""

from __future__ import annotations

from pathlib import Path

from rivulet.app.acp.relay import Relay
from rivulet.core.turn.bus import ItemCompleted, ItemDelta, ItemDiscarded, ItemStarted, ToolOutputDelta


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
    assert sent[3].title == "docs__lookup" and sent[4].content[0].content.text == "```\nfound it\n```"


async def test_a_call_the_turn_left_open_is_failed_at_the_turns_end():
    relay, sent = _relay()
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "shell",
            "arguments": '{"command": "ls"}', "status": "completed"}
    await _feed(relay, ItemStarted({**call, "arguments": ""}, "fc_1"), ItemCompleted(call, "fc_1"))
    await relay.settle("cancelled")
    await relay.settle("cancelled")  # (a second end says nothing more)
    assert _summary(sent) == [("tool_call", "call_1", "pending"), ("tool_call_update", "call_1", "in_progress"),
                              ("tool_call_update", "call_1", "failed")]


async def test_a_command_shown_in_the_clients_terminal_streams_there_and_ends_with_its_exit():
    sent: list = []

    async def send(update) -> None:
        sent.append(update)

    relay = Relay(send, Path("/work"), terminal=True)
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "shell",
            "arguments": '{"command": "make", "workdir": "src"}', "status": "completed"}
    quiet = {**call, "id": "fc_2", "call_id": "call_2", "arguments": '{"command": "true"}'}
    declined = {**call, "id": "fc_3", "call_id": "call_3", "arguments": '{"command": "rm -rf x"}'}
    out = {"type": "function_call_output"}
    await _feed(relay, ItemCompleted(call, "fc_1"), ToolOutputDelta("call_1", "one\n\x1b]52;c;aGk=\x07"),
                ToolOutputDelta("call_1", "two\n"))
    await _feed(relay, ToolOutputDelta("call_1", "three\n"),
                ItemCompleted({**out, "call_id": "call_1", "output": "Exit code: 2\nWall time: 0.1 seconds\nOutput:\n"
                               "one\ntwo\nthree\n"}, "o1"),
                ItemCompleted(quiet, "fc_2"),
                ItemCompleted({**out, "call_id": "call_2", "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\n"},
                              "o2"),
                ItemCompleted(declined, "fc_3"),
                ItemCompleted({**out, "call_id": "call_3", "output": "The user declined to run this command"}, "o3"))
    metas = [(u.tool_call_id, *u.field_meta) for u in sent if u.field_meta]
    assert metas == [("call_1", "terminal_info"), ("call_1", "terminal_output"), ("call_1", "terminal_output"),
                     ("call_1", "terminal_exit"), ("call_2", "terminal_info"), ("call_2", "terminal_exit")]
    info, first, second, end = (u for u in sent if u.field_meta and u.tool_call_id == "call_1")
    assert info.field_meta["terminal_info"] == {"terminal_id": "call_1", "cwd": "/work/src"}
    assert [c.type for c in info.content] == ["terminal"] and info.content[0].terminal_id == "call_1"
    # the burst is one update; escapes shown, not acted on; CR LF for the terminal
    assert first.field_meta["terminal_output"]["data"] == "one\r\n␛]52;c;aGk=␇two\r\n"
    assert second.field_meta["terminal_output"]["data"] == "three\r\n"
    assert (end.status, end.field_meta["terminal_exit"]["exit_code"], end.content[0].type) == ("failed", 2, "terminal")
    assert [u.status for u in sent if u.tool_call_id == "call_2" and u.status] == ["pending", "in_progress", "completed"]
    no = [u for u in sent if u.tool_call_id == "call_3"]  # it never ran: no terminal, its text
    assert no[-1].status == "failed" and no[-1].content[0].content.text.startswith("The user declined")


async def test_without_the_display_offered_a_commands_output_is_text():
    relay, sent = _relay()
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "shell",
            "arguments": '{"command": "ls"}', "status": "completed"}
    await _feed(relay, ItemCompleted(call, "fc_1"), ToolOutputDelta("call_1", "a.txt\n"))
    assert not any(u.field_meta for u in sent)
    assert sent[-1].content[0].content.text == "```\na.txt\n```"  # fenced: the editor draws Markdown


async def test_a_plan_call_is_a_plan_update_not_a_tool_call():
    relay, sent = _relay()
    plan = {"id": "fc_p", "type": "function_call", "call_id": "call_p", "name": "update_plan", "status": "completed",
            "arguments": '{"explanation": null, "plan": [{"step": "one", "status": "in_progress"}]}'}
    await _feed(relay, ItemStarted({**plan, "arguments": ""}, "fc_p"), ItemCompleted(plan, "fc_p"),
                ItemCompleted({"type": "function_call_output", "call_id": "call_p", "output": "Plan updated."}, "o"))
    assert [u.session_update for u in sent] == ["plan"]
    assert [(e.content, e.status) for e in sent[0].entries] == [("one", "in_progress")]


def test_only_the_display_extension_shows_output_in_a_terminal_acps_own_terminals_are_not_used():
    from acp.schema import ClientCapabilities

    from rivulet.app.acp.terminal_display import offers_display

    assert not offers_display(ClientCapabilities(terminal=True))  # terminal/create: the editor would run it
    assert offers_display(ClientCapabilities.model_validate({"terminal": True, "_meta": {"terminal_output": True}}))
    assert not offers_display(ClientCapabilities.model_validate({"_meta": {"terminal_output": "yes"}}))
    assert not offers_display(None)
