"""MCP servers' lifecycle and the router's rules, against the real test server (stdio,
the SDK's MCPServer): concurrent start that a slow or broken server cannot block,
approvals by annotation, outputs (errors, hostile text, caps), Esc (cancellation sends
`notifications/cancelled`), shutdown with no surviving process, and the sandbox."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import pytest
from helpers.calls import Asked
from helpers.peers import free_port
from mcp_helpers import alive, descendants, marks, stdio_table, wait_for

from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.mcp_client import McpManager
from rivulet.core.tools.mcp_config import parse_servers
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.sandbox import probe
from rivulet.core.turn.tool_api import StopTurn


def call(name: str, args: dict | str = "{}", call_id: str = "call_1") -> dict:
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {"type": "function_call", "id": "fc_" + call_id, "call_id": call_id, "name": name, "arguments": arguments}


async def _tools(tmp_path, servers: dict, policy="ask", asked=None, **settings):
    manager = McpManager(parse_servers(servers), workspace=tmp_path)
    tools = AgentTools(ToolSettings(workspace=tmp_path, shell=False, patch_tool="off", **settings),
                       ApprovalPolicy(policy, asked or Asked()), mcp=manager)
    await tools.start_mcp()
    return tools, manager


async def test_a_slow_and_a_broken_server_do_not_block_a_good_one(tmp_path):
    before = descendants()
    servers = {"slow": {"command": sys.executable, "args": ["-c", "import time; time.sleep(600)"],
                        "startup_timeout": 1},
               "broken": {"command": str(tmp_path / "no-such-server")},
               "nohttp": {"url": f"http://127.0.0.1:{free_port()}/mcp", "startup_timeout": 5},
               "dies": {"command": sys.executable, "args": ["-c", "import sys; print('bad token', file=sys.stderr)"]},
               "good": stdio_table(tmp_path / "m"),
               "off": {**stdio_table(tmp_path / "m"), "enabled": False}}
    started = time.monotonic()
    tools, manager = await _tools(tmp_path, servers)
    took = time.monotonic() - started
    try:
        status = {s["name"]: s for s in manager.status()}
        assert set(status) == {"slow", "broken", "nohttp", "dies", "good"}
        assert status["nohttp"]["state"] == "failed" and "\n" not in status["nohttp"]["error"]  # a disabled server is not started
        assert status["good"]["state"] == "ready" and "echo" in status["good"]["tools"]
        assert status["good"]["where"] == "no sandbox"
        assert status["slow"]["state"] == "failed"
        assert status["slow"]["error"] == "did not start within 1 s (startup_timeout)"
        assert status["broken"]["state"] == "failed" and "no-such-server" in status["broken"]["error"]
        assert status["dies"]["state"] == "failed" and status["dies"]["stderr"] == "bad token\n"
        assert took < 120  # bounded by the slow one's 1 s timeout (and the good one's start), not its 600 s sleep
        names = [s["name"] for s in tools.specs()]
        assert "good__echo" in names and not [n for n in names if n.startswith(("slow", "broken", "nohttp", "dies"))]
    finally:
        await manager.aclose()
    wait_for(lambda: descendants() <= before, "every server process to be gone")


async def test_aclose_stops_every_server_and_nothing_survives(tmp_path):
    before = descendants()
    tools, manager = await _tools(tmp_path, {"a": stdio_table(tmp_path / "m"), "b": stdio_table(tmp_path / "m")},
                                  policy="never-ask")
    pids = [int((await tools.run(call(f"{s}__pid")))["output"]) for s in ("a", "b")]
    assert all(alive(p) for p in pids) and set(pids) <= descendants()
    await manager.aclose()
    assert not [p for p in pids if alive(p)]
    wait_for(lambda: descendants() <= before, "every server process to be gone")
    assert [s["state"] for s in manager.status()] == ["stopped", "stopped"]


async def test_esc_cancels_a_running_call_on_the_server(tmp_path):
    mark_file = tmp_path / "m"
    tools, manager = await _tools(tmp_path, {"local": stdio_table(mark_file)}, policy="never-ask")
    try:
        run = asyncio.create_task(tools.run(call("local__hang")))
        await asyncio.to_thread(wait_for, lambda: any(m.startswith("hang started") for m in marks(mark_file)),
                                "the tool to start")
        run.cancel()  # what the user's Esc does to the turn's tool run
        with pytest.raises(asyncio.CancelledError):
            await run
        # notifications/cancelled reached the server while it still runs: the handler was cancelled.
        await asyncio.to_thread(wait_for, lambda: "hang cancelled" in marks(mark_file), "the cancellation")
        assert manager.status()[0]["state"] == "ready"
        assert (await tools.run(call("local__echo", {"text": "still here"})))["output"] == "echo: still here"
    finally:
        await manager.aclose()


async def test_approvals_follow_the_policy_and_the_annotations(tmp_path):
    mark_file = tmp_path / "m"
    asked = Asked(Decision.ALWAYS)
    tools, manager = await _tools(tmp_path, {"local": stdio_table(mark_file)}, policy="auto", asked=asked)
    try:
        # readOnlyHint under auto: runs without asking.
        assert (await tools.run(call("local__echo", {"text": "hi"})))["output"] == "echo: hi"
        assert asked.requests == []
        # No hint: asks; "always" then allows that call, with those arguments, for the session.
        assert (await tools.run(call("local__add", {"a": 1, "b": 2})))["output"] == '{\n  "sum": 3\n}'
        assert (await tools.run(call("local__add", {"b": 2, "a": 1})))["output"] == '{\n  "sum": 3\n}'
        assert [r.tool for r in asked.requests] == ["add"]
        # Other arguments ask again; "always for this tool" allows it with any.
        asked.answer = Decision.ALWAYS_TOOL
        assert (await tools.run(call("local__add", {"a": 1, "b": 3})))["output"] == '{\n  "sum": 4\n}'
        assert (await tools.run(call("local__add", {"a": 5, "b": 3})))["output"] == '{\n  "sum": 8\n}'
        assert [r.tool for r in asked.requests] == ["add", "add"]
        asked.answer = Decision.ALWAYS
        # destructiveHint: asks every time, even after "always".
        for target in ("a", "b"):
            assert (await tools.run(call("local__wipe", {"target": target})))["output"] == f"wiped {target}"
        assert [r.tool for r in asked.requests] == ["add", "add", "wipe", "wipe"]
        assert asked.requests[-1].destructive and asked.requests[-1].detail == '{\n  "target": "b"\n}'
        # Declined: it does not run, and the model is told.
        asked.answer = Decision.NO
        out = await tools.run(call("local__wipe", {"target": "c"}))
        assert out["output"].startswith("The user declined the call of wipe on MCP server local; it did not run.")
        assert "wiped c" not in marks(mark_file)
        # Stop: the turn ends.
        asked.answer = Decision.STOP
        with pytest.raises(StopTurn):
            await tools.run(call("local__wipe", {"target": "d"}))
    finally:
        await manager.aclose()


async def test_never_ask_asks_nothing_and_ask_asks_even_read_only(tmp_path):
    for policy, expected in (("never-ask", []), ("ask", ["echo", "wipe"]), ("auto-edit", ["wipe"])):
        asked = Asked()
        tools, manager = await _tools(tmp_path, {"local": stdio_table(tmp_path / "m")}, policy=policy, asked=asked)
        try:
            await tools.run(call("local__echo", {"text": "x"}))
            await tools.run(call("local__wipe", {"target": "x"}))
        finally:
            await manager.aclose()
        assert [r.tool for r in asked.requests] == expected, policy


async def test_the_approval_shows_hidden_characters_in_the_arguments(tmp_path):
    asked = Asked()
    tools, manager = await _tools(tmp_path, {"local": stdio_table(tmp_path / "m")}, asked=asked)
    try:
        await tools.run(call("local__echo", json.dumps({"text": "a\x1b[2Jb\u202e"}, ensure_ascii=False)))
    finally:
        await manager.aclose()
    [request] = asked.requests
    assert "\x1b" not in request.detail and "\u202e" not in request.detail
    assert request.detail == '{\n  "text": "a\\u001b[2Jb\\u202e"\n}'  # JSON escapes the ESC; the bidi mark shown
    assert request.reason and "hidden characters" in request.reason


async def test_errors_hostile_text_and_caps_become_outputs(tmp_path):
    tools, manager = await _tools(tmp_path, {"local": stdio_table(tmp_path / "m")}, policy="never-ask",
                                  output_limit=100, secrets=("sk-secret-value-123",))
    try:
        out = await tools.run(call("local__fail", {"reason": "the disk is full"}))
        assert out["output"] == ("error: the tool reported an error: Error executing tool fail: it failed because "
                                 "the disk is full")
        out = await tools.run(call("local__hostile"))
        assert out["output"] == "red ␛[31mtext␛[0m and ␇bell"
        out = await tools.run(call("local__big", {"n": 150}))
        assert out["output"] == "x" * 100 + "\n(output truncated: 50 characters left out)"
        out = await tools.run(call("local__echo", {"text": "key sk-secret-value-123"}))
        assert out["output"] == "echo: key [redacted]"
        out = await tools.run(call("local__echo", "{not json"))
        assert out["output"].startswith("error: the arguments are not valid JSON")
        out = await tools.run(call("local__echo", {"wrong": 1}))  # the server refuses the arguments
        assert out["output"].startswith("error: the tool reported an error: ") and "validation error" in out["output"]
    finally:
        await manager.aclose()


async def test_oversized_arguments_are_refused_before_the_server_sees_them(tmp_path):
    mark_file = tmp_path / "m"
    tools, manager = await _tools(tmp_path, {"local": stdio_table(mark_file)}, policy="never-ask",
                                  max_tool_args_chars=50)
    try:
        out = await tools.run(call("local__wipe", {"target": "y" * 100}))
    finally:
        await manager.aclose()
    assert "more than the limit of 50 (setting max_tool_args_chars)" in out["output"]
    assert marks(mark_file) == []


async def test_a_tool_filtered_out_or_named_like_ours_is_handled(tmp_path):
    tools, manager = await _tools(tmp_path, {"local": {**stdio_table(tmp_path / "m"),
                                                       "enabled_tools": ["echo", "add"],
                                                       "disabled_tools": ["add"]}})
    try:
        assert [t["name"] for t in tools.specs() if t["name"].startswith("local")] == ["local__echo"]
        out = await tools.run(call("local__add", {"a": 1, "b": 2}))
        assert out["output"] == "error: tool 'local__add' is not available in this client"
    finally:
        await manager.aclose()


needs_bwrap = pytest.mark.skipif(not probe().ok, reason="bubblewrap cannot run here")


@pytest.mark.bwrap
@needs_bwrap
async def test_a_sandboxed_stdio_server_has_no_network_unless_its_config_says_so(tmp_path):
    import socket
    import threading

    # A raw listener, not helpers/local_server.py: what is tested is only whether a
    # sandboxed process can connect at all; it says nothing back.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    def answer() -> None:
        for _ in range(8):
            try:
                listener.accept()[0].close()
            except OSError:  # the test closed the listener: done
                return

    threading.Thread(target=answer, daemon=True).start()
    before = descendants()
    tools, manager = await _tools(tmp_path, {"boxed": stdio_table(tmp_path / "m"),
                                             "net": {**stdio_table(tmp_path / "m"), "network": True}},
                                  policy="never-ask", sandbox="workspace-write")
    try:
        assert [(s["state"], s["where"]) for s in manager.status()] == [
            ("ready", "sandbox workspace-write"), ("ready", "sandbox workspace-write + network")]
        boxed = (await tools.run(call("boxed__reach", {"port": port})))["output"]
        net = (await tools.run(call("net__reach", {"port": port})))["output"]
        pid = int((await tools.run(call("boxed__pid")))["output"])
        outside = (await tools.run(call("boxed__echo", {"text": "x"})))["output"]
    finally:
        await manager.aclose()
        listener.close()
    assert boxed.startswith("unreachable") and net == "reached" and outside == "echo: x"
    assert pid < 10  # its own PID namespace: it cannot see rivulet
    # bwrap's inner processes die by PR_SET_PDEATHSIG when bwrap does: the kernel
    # delivers that after aclose() has returned, so it is waited for (bounded).
    wait_for(lambda: descendants() <= before, "every sandboxed server process to be gone")


async def test_a_tool_name_with_escapes_is_callable_and_never_shown_raw(tmp_path):
    asked = Asked()
    tools, manager = await _tools(tmp_path, {"local": stdio_table(tmp_path / "m")}, asked=asked)
    try:
        names = [t["name"] for t in tools.specs() if t["name"].startswith("local__evil")]
        assert names == ["local__evil__0_owned_name"]  # legal for the API
        out = await tools.run(call(names[0]))
        listed = manager.status()[0]["tools"]
    finally:
        await manager.aclose()
    assert out["output"] == "evil ran"
    [request] = asked.requests
    assert request.title == "local · evil␛]0;owned␇name" and request.tool == "evil␛]0;owned␇name"
    assert "evil␛]0;owned␇name" in listed and not any("\x1b" in t for t in listed)
