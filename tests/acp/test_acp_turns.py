"""`rivulet acp` driven by the SDK's client, as an editor would: initialize, a session, a
prompt's streamed thoughts and answer, tool calls allowed and rejected, a patch as a
diff, modes, cancel mid-stream, and a saved session loaded and replayed."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

import pytest
from acp import RequestError, embedded_text_resource, image_block, resource_block, text_block
from acp.schema import ClientCapabilities, FileSystemCapabilities
from helpers.acp_client import PATCH, ScriptedServer, running_agent
from helpers.images import PNG

from rivulet.core.tools.sandbox import probe


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


async def _session(agent, home) -> str:
    init = await agent.conn.initialize(protocol_version=1)
    assert init.protocol_version == 1
    caps = init.agent_capabilities
    assert caps.load_session and caps.prompt_capabilities.image and caps.prompt_capabilities.embedded_context
    new = await agent.conn.new_session(cwd=str(home), mcp_servers=[])
    assert new.modes.current_mode_id == "ask"
    assert [m.id for m in new.modes.available_modes] == ["ask", "auto-edit", "auto", "never-ask"]
    model = new.config_options[0]
    assert (model.id, model.category, model.current_value) == ("model", "model", "gpt-5.1-codex")
    return new.session_id


async def test_a_prompt_streams_thoughts_then_answer_chunks_and_ends_the_turn(tmp_path, server):
    async with running_agent(tmp_path, server.local.base_url) as agent:
        sid = await _session(agent, tmp_path)
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("hello there")]))
        client = agent.client
        await client.until(lambda: client.text("agent_message_chunk") == "Hello ")  # streamed: before the rest
        assert not turn.done()
        server.go_on.set()
        done = await asyncio.wait_for(turn, 30)
        assert done.stop_reason == "end_turn"
        assert (done.usage.input_tokens, done.usage.output_tokens, done.usage.total_tokens) == (3, 5, 8)
        assert client.text("agent_thought_chunk") == "Thinking it over"
        assert client.text("agent_message_chunk") == "Hello from rivulet"
        kinds = client.kinds()
        assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
        # the model is a config option: the next request asks for the one chosen
        changed = await agent.conn.set_config_option(config_id="model", session_id=sid, value="other-model")
        assert changed.config_options[0].current_value == "other-model"
        await agent.conn.prompt(session_id=sid, prompt=[text_block("after the switch")])
        assert server.local.requests[-1].json()["model"] == "other-model"
    assert server.prompts == ["hello there", "after the switch"]
    assert "Traceback" not in agent.stderr.read_text()


async def test_tool_calls_one_allowed_one_rejected_then_the_session_is_loaded_and_replayed(tmp_path, server):
    async with running_agent(tmp_path, server.local.base_url) as agent:
        sid = await _session(agent, tmp_path)
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block("run two commands")])
        client = agent.client
        assert done.stop_reason == "end_turn"
        asked = [call.title for call, _ in client.permissions]
        assert asked == ["echo allowed-output", "echo never-runs > ran.txt"]
        kinds = {o.kind for o in client.permissions[0][1]}
        assert kinds == {"allow_once", "allow_always", "reject_once", "reject_always"}
        ok, no = client.calls("call_ok"), client.calls("call_no")
        assert ok[0].session_update == "tool_call" and ok[0].kind == "execute" and ok[0].status == "pending"
        assert ok[-1].status == "completed" and "allowed-output" in ok[-1].content[0].content.text
        assert no[-1].status == "failed" and "declined" in no[-1].content[0].content.text
        assert not (tmp_path / "ran.txt").exists()
        assert client.text("agent_message_chunk") == "Done."
    saved = list((tmp_path / "sessions").glob("*.jsonl"))
    assert [path.stem for path in saved] == [sid]  # session/new's id is the saved file's: session/load takes it
    async with running_agent(tmp_path, server.local.base_url) as again:
        await again.conn.initialize(protocol_version=1)
        await again.conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        replayed = again.client
        assert replayed.text("user_message_chunk") == "run two commands"
        assert replayed.text("agent_message_chunk") == "Done."
        assert [u.status for u in replayed.calls("call_ok")] == ["completed"]
        assert [u.status for u in replayed.calls("call_no")] == ["failed"]
        # and it goes on: the loaded session's history is sent with the next prompt
        await again.conn.prompt(session_id=sid, prompt=[text_block("after loading")])
    assert "You said: after loading" in replayed.text("agent_message_chunk")


async def test_a_patch_is_a_diff_and_auto_edit_mode_applies_it_unasked(tmp_path, server):
    (tmp_path / "notes.txt").write_text("first\nold line\nlast\n")
    async with running_agent(tmp_path, server.local.base_url) as agent:
        sid = await _session(agent, tmp_path)
        with pytest.raises(RequestError):
            await agent.conn.set_session_mode(session_id=sid, mode_id="yolo")
        await agent.conn.set_session_mode(session_id=sid, mode_id="auto-edit")
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block("patch the notes")])
        assert done.stop_reason == "end_turn"
        assert agent.client.permissions == []  # auto-edit: a patch in the workspace runs unasked
        updates = agent.client.calls("call_patch")
        assert updates[0].kind == "edit" and updates[-1].status == "completed"
        diffs = [c for c in updates[-1].content if c.type == "diff"]
        assert [(d.path, d.old_text, d.new_text) for d in diffs] == [
            (str(tmp_path / "notes.txt"), "first\nold line\nlast\n", "first\nnew line\nlast\n")]
        # an image and an embedded file become parts of the user message the server gets
        blocks = [text_block("what is in these"), image_block(base64.b64encode(PNG).decode(), "image/png"),
                  resource_block(embedded_text_resource(f"file://{tmp_path}/notes.txt", "as the editor has it\n"))]
        await agent.conn.prompt(session_id=sid, prompt=blocks)
    content = server.local.requests[-1].json()["input"][-1]["content"]
    assert [p["type"] for p in content] == ["input_text", "input_text", "input_image", "input_text", "input_text"]
    assert content[4]["text"] == '<file path="notes.txt">\nas the editor has it\n\n</file>'
    assert (tmp_path / "notes.txt").read_text() == "first\nnew line\nlast\n"
    assert updates[1].raw_input["input"] == PATCH


async def test_cancel_mid_stream_and_mid_command_ends_the_turn_cancelled_with_nothing_half_made(tmp_path, server):
    async with running_agent(tmp_path, server.local.base_url) as agent:
        sid = await _session(agent, tmp_path)
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("slow answer")]))
        await agent.client.until(lambda: "Half an ans" in agent.client.text("agent_message_chunk"))
        with pytest.raises(RequestError) as second:  # one prompt at a time
            await agent.conn.prompt(session_id=sid, prompt=[text_block("another one")])
        assert "running" in str(second.value)
        await agent.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block("after the cancel")])
        assert done.stop_reason == "end_turn"
        sent = json.dumps(server.local.requests[-1].json()["input"])
        assert "Half an ans" not in sent  # the cut answer never entered history

        # a command running when the turn is cancelled is stopped, and its call failed
        await agent.conn.set_session_mode(session_id=sid, mode_id="never-ask")
        turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block("sleepy command")]))
        pid_file = tmp_path / "pid.txt"
        await until_true(lambda: pid_file.is_file() and pid_file.read_text().strip().isdigit())
        pid = int(pid_file.read_text())
        assert _alive(pid)
        await agent.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        await until_true(lambda: not _alive(pid))  # stopped, not left running (a zombie is no process)
        assert agent.client.calls("call_sleep")[-1].status == "failed"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def until_true(check, timeout: float = 30) -> None:
    """Wait, polling, until `check()` holds (a deadline, not a sleep that guesses)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.05)


async def test_a_client_offering_fs_gets_the_patch_through_its_buffers(tmp_path, server):
    notes = tmp_path / "notes.txt"
    notes.write_text("first\nold line\nlast\n")
    async with running_agent(tmp_path, server.local.base_url) as agent:
        agent.client.buffers[str(notes)] = "first\nold line\nlast\nunsaved\n"  # edited in the editor, not saved
        fs = FileSystemCapabilities(read_text_file=True, write_text_file=True)
        await agent.conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(fs=fs))
        sid = (await agent.conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await agent.conn.set_session_mode(session_id=sid, mode_id="auto-edit")
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block("patch the notes")])
        assert done.stop_reason == "end_turn"
        assert agent.client.calls("call_patch")[-1].status == "completed"
    assert agent.client.written == [(str(notes), "first\nnew line\nlast\nunsaved\n")]


@pytest.mark.bwrap
@pytest.mark.skipif(not probe().ok, reason="bubblewrap cannot run here")
async def test_a_client_offering_terminals_shows_the_command_in_one_while_it_runs_in_rivulets_sandbox(tmp_path,
                                                                                                      server):
    escaped = tmp_path.parent / f"{tmp_path.name}-escaped.txt"
    command = f"echo inside; echo x > {escaped}; echo after"
    async with running_agent(tmp_path, server.local.base_url, "-c", 'sandbox="workspace-write"') as agent:
        caps = ClientCapabilities(terminal=True, field_meta={"terminal_output": True})
        await agent.conn.initialize(protocol_version=1, client_capabilities=caps)
        sid = (await agent.conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block(f"boxed {command}")])
    assert done.stop_reason == "end_turn"
    client = agent.client
    assert client.terminal_requests == []  # the editor never ran it (its terminals are out of the sandbox)
    assert [call.title for call, _ in client.permissions] == [command]  # asked, as ever
    updates = [u for u in client.calls("call_boxed") if u.field_meta]
    assert [next(iter(u.field_meta)) for u in updates][::len(updates) - 1] == ["terminal_info", "terminal_exit"]
    shown = "".join(u.field_meta["terminal_output"]["data"] for u in updates if "terminal_output" in u.field_meta)
    assert "inside\r\n" in shown and "after\r\n" in shown
    assert updates[-1].status == "completed" and updates[-1].field_meta["terminal_exit"]["exit_code"] == 0
    assert not escaped.exists()  # the write outside the workspace stayed in the sandbox


async def test_reject_always_is_the_tuis_no_and_stop_the_turn_and_remembers_nothing(tmp_path, server):
    """The TUI answers y / a / n / s; its fourth, "no, and stop the turn", is ACP's fourth
    option. A denial is never remembered ("always" is only ever a yes for the exact call,
    issue 35): the same command later asks again."""
    async with running_agent(tmp_path, server.local.base_url) as agent:
        sid = await _session(agent, tmp_path)
        for n in (1, 2):
            posts = len(server.local.requests)
            done = await agent.conn.prompt(session_id=sid, prompt=[text_block("boxed echo stop-here > made.txt")])
            assert done.stop_reason == "end_turn"
            assert len(server.local.requests) == posts + 1  # stopped: the model is not asked again
            assert len(agent.client.permissions) == n  # asked each time
            assert agent.client.permissions[-1][1][3].name == "No, and stop the turn"
            end = agent.client.calls("call_boxed")[-1]
            assert end.status == "failed" and "The user stopped the turn." in end.content[0].content.text
    assert "Done." not in agent.client.text("agent_message_chunk")
    assert not (tmp_path / "made.txt").exists()


async def test_the_models_plan_is_an_acp_plan_and_a_loaded_session_shows_it_again(tmp_path, server):
    async with running_agent(tmp_path, server.local.base_url) as agent:
        sid = await _session(agent, tmp_path)
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block("plan the work")])
        assert done.stop_reason == "end_turn"
        plans = [u for _, u in agent.client.updates if u.session_update == "plan"]
        assert agent.client.calls("call_plan") == []  # a plan, not a tool call
    expected = [("Read the notes", "medium", "completed"), ("Fix the old line", "medium", "in_progress"),
                ("Run the tests", "medium", "pending")]
    assert [[(e.content, e.priority, e.status) for e in p.entries] for p in plans] == [expected]
    offered = [t["name"] for t in server.local.requests[-2].json()["tools"]]
    assert "update_plan" in offered  # offered to the model in an editor's session
    assert server.local.requests[-1].json()["input"][-1]["output"] == "Plan updated."
    async with running_agent(tmp_path, server.local.base_url) as again:
        await again.conn.initialize(protocol_version=1)
        await again.conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
    replayed = [u for _, u in again.client.updates if u.session_update == "plan"]
    assert [[(e.content, e.priority, e.status) for e in p.entries] for p in replayed] == [expected]


async def test_each_subagent_is_a_tool_call_updated_as_it_runs_and_its_questions_say_who_asks(tmp_path, server):
    async with running_agent(tmp_path, server.local.base_url, "-c", "max_retries=0") as agent:
        sid = await _session(agent, tmp_path)
        done = await agent.conn.prompt(session_id=sid, prompt=[text_block("agents at work")])
        assert done.stop_reason == "end_turn"
        client = agent.client
        one, two = client.calls("call_sa1"), client.calls("call_sa2")
        assert {(u.title, u.kind) for u in one if u.title} >= {("agent tests: boxed echo sub-one", "think")}
        assert any(u.title == "agent 2: broken on purpose" for u in two)  # unnamed: the runner's name
        lines = [c.content.text for u in one for c in u.content or [] if u.status == "in_progress"]
        assert "```\n→ shell: echo sub-one\n```" in lines  # live, as it runs
        assert "```\n→ shell: echo sub-one (completed)\n```" in lines
        assert one[-1].status == "completed" and one[-1].content[-1].content.text == "Done."
        assert two[-1].status == "failed" and "the model broke" in two[-1].content[-1].content.text
        # the subagent's question says which subagent asks; it ends with the call it asked about
        assert [call.title for call, _ in client.permissions] == ["agent 'tests' asks: echo sub-one"]
        assert [u.status for u in client.calls("call_boxed")][-1] == "completed"
        assert client.text("agent_message_chunk") == "Done."
        sub_items = [u for u in one if u.session_update == "tool_call_update"]
        assert all(u.status in ("in_progress", "completed") for u in sub_items)
    async with running_agent(tmp_path, server.local.base_url) as again:  # a loaded session shows them again
        await again.conn.initialize(protocol_version=1)
        await again.conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
    (loaded_one,), (loaded_two,) = again.client.calls("call_sa1"), again.client.calls("call_sa2")
    assert (loaded_one.title, loaded_one.status, loaded_two.status) == (
        "agent tests: boxed echo sub-one", "completed", "failed")
    assert [c.content.text for c in loaded_one.content] == [
        "boxed echo sub-one", "```\n→ shell: echo sub-one (completed)\n```", "Done."]
