"""Issue 41 where features meet, in `rivulet acp`: the editor's session/cancel while two
subagents stream stops both; the prompt ends "cancelled", each spawn_agent call failed,
and nothing half-streamed is committed (the session file, the next request)."""

from __future__ import annotations

import asyncio
import json

import pytest
from acp import text_block
from helpers.acp_client import STREAMS, ScriptedServer, _calls, running_agent
from helpers.calls import fn_call


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


async def test_cancel_while_two_subagents_stream_cancels_both_and_commits_nothing_half_made(tmp_path, server,
                                                                                         monkeypatch):
    monkeypatch.setitem(STREAMS, "pair", _calls(
        fn_call("fc_s1", "call_s1", "spawn_agent", {"task": "slow one", "name": "first"}),
        fn_call("fc_s2", "call_s2", "spawn_agent", {"task": "slow two", "name": "second"})))
    async with running_agent(tmp_path, server.local.base_url) as agent:
        await agent.conn.initialize(protocol_version=1)
        sid = (await agent.conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("pair of agents")]))
        async with asyncio.timeout(30):  # both subagents' streams are open (each sent "Half an ans")
            while not {"slow one", "slow two"} <= set(server.prompts):
                await asyncio.sleep(0.02)
        await agent.client.until(lambda: len(agent.client.calls("call_s1")) > 0 and len(agent.client.calls("call_s2")) > 0)
        await agent.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        for call in ("call_s1", "call_s2"):
            assert agent.client.calls(call)[-1].status == "failed", agent.client.calls(call)[-1]
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block("after the cancel")])
        assert done.stop_reason == "end_turn"
        sent = server.local.requests[-1].json()["input"]
        outputs = {i["call_id"]: i["output"] for i in sent if i.get("type") == "function_call_output"}
        assert outputs == {"call_s1": "aborted: the user interrupted the turn",
                           "call_s2": "aborted: the user interrupted the turn"}
        assert "Half an ans" not in json.dumps(sent)
    (session_file,) = (tmp_path / "sessions").glob("*.jsonl")
    text = session_file.read_text()
    assert "Half an ans" not in text  # neither subagent's cut answer was committed
    assert text.count('"slow one"') >= 1 and text.count('"slow two"') >= 1  # their tasks were
