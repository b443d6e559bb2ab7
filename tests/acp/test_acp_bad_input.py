"""What an editor (or a broken one) may send `rivulet acp` that it cannot serve: each is a
JSON-RPC error or a clean end, never a traceback, and stdout carries only protocol
messages (one JSON-RPC object a line)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys

import pytest
from acp import text_block
from helpers.acp_client import ScriptedServer, agent_env, running_agent

LINES = [
    b"this is not json\n",
    b"[1, 2]\n",
    b'{"jsonrpc": "2.0", "id": 1, "method": 7}\n',
    b'{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": 1}}\n',
    b'{"jsonrpc": "2.0", "id": 3, "method": "no/such/method", "params": {}}\n',
    b'{"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": {"sessionId": "nope", "prompt": []}}\n',
    b'{"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": "relative/dir", "mcpServers": []}}\n',
    b'{"jsonrpc": "2.0", "id": 6, "method": "session/load", "params": {"cwd": "/", "sessionId": "0000-none", '
    b'"mcpServers": []}}\n',
    b'{"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": {"cwd": 12}}\n',
]


async def test_bad_requests_are_json_rpc_errors_and_stdout_holds_only_protocol_lines(tmp_path):
    (tmp_path / "AGENTS.md").symlink_to("/etc/hostname")  # a link out of the workspace: refused, and said
    new = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "session/new",
                      "params": {"cwd": str(tmp_path), "mcpServers": []}}).encode() + b"\n"
    with ScriptedServer() as server:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "from rivulet.app.cli import main; main()", "acp", "--base-url",
            server.local.base_url, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=agent_env(tmp_path), cwd=tmp_path)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(b"".join(LINES) + new)
        lines = []
        async with asyncio.timeout(60):
            while not any(b'"id":8' in line for line in lines):  # the last answer (the others come first)
                lines.append(await proc.stdout.readline())
            proc.stdin.close()  # stdin ended: a clean end
            lines += (await proc.stdout.read()).splitlines()
            stderr = await proc.stderr.read()
            assert await proc.wait() == 0
    replies = [json.loads(line) for line in lines if line.strip()]  # every line is JSON
    assert all(r["jsonrpc"] == "2.0" and "method" not in r for r in replies)
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    codes = sorted(r["error"]["code"] for r in replies if r["id"] is None)
    assert codes == [-32700, -32600]  # the line that is no JSON; the array
    assert by_id[1]["error"]["code"] == -32600  # a method that is no string
    assert by_id[2]["result"]["protocolVersion"] == 1
    assert by_id[3]["error"]["code"] == -32601
    assert "no session 'nope'" in by_id[4]["error"]["message"]
    assert "not an absolute path" in by_id[5]["error"]["message"]
    assert "0000-none" in by_id[6]["error"]["message"]
    assert by_id[7]["error"]["code"] == -32602
    assert by_id[8]["result"]["sessionId"]
    assert b"rivulet: warning: AGENTS.md:" in stderr  # on stderr, never on the protocol's stdout
    assert b"Traceback" not in stderr, stderr.decode()


@pytest.mark.parametrize("ending", ["stdin closed", "SIGTERM"])
async def test_the_editor_going_away_mid_turn_ends_cleanly_with_the_session_saved(tmp_path, ending):
    with ScriptedServer() as server:
        async with running_agent(tmp_path, server.local.base_url) as agent:
            await agent.conn.initialize(protocol_version=1)
            sid = (await agent.conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
            turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("slow one")]))
            await agent.client.until(lambda: "Half an ans" in agent.client.text("agent_message_chunk"))
            assert agent.process.stdin is not None
            if ending == "SIGTERM":
                agent.process.send_signal(signal.SIGTERM)
            else:
                agent.process.stdin.close()
            assert await asyncio.wait_for(agent.process.wait(), 30) == 0
            turn.cancel()
            await asyncio.gather(turn, return_exceptions=True)
    assert "Traceback" not in agent.stderr.read_text()
    saved = (tmp_path / "sessions" / f"{sid}.jsonl").read_text()
    assert "slow one" in saved and "Half an ans" not in saved  # the prompt kept, the cut answer not
