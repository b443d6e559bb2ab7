"""The agent loop with real tools: shell and apply_patch, approvals, stop, interrupt."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.calls import (
    PATCH,
    Scripted,
    agent,
    answer,
    assert_valid_request,
    custom_call,
    custom_call_events,
    fn_call,
    fn_call_response,
    sent_inputs,
)
from helpers.mock_api import settings
from helpers.streams import body, completed, created

from rivulet.core import items as it
from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.shell import run_shell
from rivulet.core.turn.bus import EventBus, ToolOutputDelta, TurnDiffUpdated
from rivulet.core.turn.conversation import TURN_ABORTED
from rivulet.core.turn.history import normalize


async def test_shell_call_output_goes_back_to_the_model(tmp_path):
    (tmp_path / "data.txt").write_text("42\n")
    call = fn_call("fc_1", "call_1", "shell", {"command": "cat data.txt; echo oops >&2; exit 3",
                                               "workdir": None, "timeout_ms": None, "justification": "look"})
    approver = Scripted(Decision.YES)
    conv, requests = agent(tmp_path, fn_call_response("r1", call), answer("r2", "It says 42."), approver=approver)
    shown: list[str] = []
    conv.bus.subscribe(lambda e: shown.append(e.text), ToolOutputDelta)
    result = await conv.run_turn("what is in data.txt?")
    await conv.bus.drain()
    assert result.last_message == "It says 42."
    assert approver.asked[0].kind == "shell" and approver.asked[0].reason == "look"
    output = sent_inputs(requests)[1][-1]
    assert output["type"] == "function_call_output" and output["call_id"] == "call_1"
    assert output["output"].startswith("Exit code: 3\nWall time: ")
    assert "42\noops" in output["output"]
    assert "".join(shown) == "42\noops\n"  # streamed to the UI as it ran
    for sent in sent_inputs(requests):
        assert_valid_request(sent)


async def test_custom_apply_patch_is_applied_after_approval(tmp_path):
    (tmp_path / "notes.md").write_text("old\n")
    call = custom_call("ct_1", "call_p", "apply_patch", PATCH)
    approver = Scripted(Decision.YES)
    conv, requests = agent(tmp_path, body([created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
                                           completed([call])]), answer("r2", "Done."), approver=approver)
    diffs: list[TurnDiffUpdated] = []
    conv.bus.subscribe(diffs.append, TurnDiffUpdated)
    await conv.run_turn("patch it")
    await conv.bus.drain()
    assert (tmp_path / "hello.txt").read_text() == "hello\n" and (tmp_path / "notes.md").read_text() == "new\n"
    assert approver.asked[0].kind == "patch" and "+new" in approver.asked[0].detail
    output = sent_inputs(requests)[1][-1]
    assert output == {"type": "custom_tool_call_output", "call_id": "call_p",
                      "output": "Success. Updated the following files:\nA hello.txt\nM notes.md"}
    assert "+++ b/hello.txt" in diffs[-1].diff and "-old\n+new" in diffs[-1].diff
    # The offered tool is a freeform custom tool with a grammar.
    spec = next(t for t in json.loads(requests[0].content)["tools"] if t["name"] == "apply_patch")
    assert spec["type"] == "custom" and spec["format"]["syntax"] == "lark"


async def test_function_fallback_and_auto_edit(tmp_path):
    (tmp_path / "notes.md").write_text("old\n")
    call = fn_call("fc_1", "call_p", "apply_patch", {"input": PATCH})
    approver = Scripted()  # auto-edit: a patch never asks
    conv, requests = agent(tmp_path, fn_call_response("r1", call), answer("r2", "ok"), policy="auto-edit",
                           approver=approver, patch_tool="function")
    await conv.run_turn("patch")
    assert approver.asked == [] and (tmp_path / "notes.md").read_text() == "new\n"
    spec = next(t for t in json.loads(requests[0].content)["tools"] if t["name"] == "apply_patch")
    assert spec["type"] == "function" and spec["parameters"]["required"] == ["input"]


async def test_declined_patch_changes_nothing_and_the_model_is_told(tmp_path):
    (tmp_path / "notes.md").write_text("old\n")
    call = custom_call("ct_1", "call_p", "apply_patch", PATCH)
    conv, requests = agent(tmp_path, body([created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
                                           completed([call])]), answer("r2", "Understood."),
                           approver=Scripted(Decision.NO))
    result = await conv.run_turn("patch it")
    assert result.last_message == "Understood." and result.stopped is None
    assert (tmp_path / "notes.md").read_text() == "old\n" and not (tmp_path / "hello.txt").exists()
    assert "declined" in sent_inputs(requests)[1][-1]["output"]


async def test_no_and_stop_ends_the_turn_with_every_call_answered(tmp_path):
    calls = [fn_call(f"fc_{n}", f"call_{n}", "shell", {"command": f"touch f{n}", "workdir": None,
                                                       "timeout_ms": None, "justification": None})
             for n in range(2)]
    conv, requests = agent(tmp_path, fn_call_response("r1", *calls), answer("r2", "never sent"),
                           approver=Scripted(Decision.STOP))
    result = await conv.run_turn("make files")
    assert result.stopped and "touch f0" in result.stopped
    assert len(requests) == 1  # no follow-up
    assert not (tmp_path / "f0").exists() and not (tmp_path / "f1").exists()
    outputs = [i for i in conv.history.items if it.is_output(i)]
    assert [o["call_id"] for o in outputs] == ["call_0", "call_1"]
    assert "not run" in outputs[1]["output"]
    assert_valid_request(conv.history.to_input())


async def test_yes_for_the_session_stops_asking_for_that_command(tmp_path):
    """In the sandbox: the same command, directory and time limit is not asked again
    (outside it every command asks: tests/security/test_approval_keys.py)."""
    cmd = {"command": "echo hi", "workdir": None, "timeout_ms": None, "justification": None}
    approver = Scripted(Decision.ALWAYS)
    conv, _ = agent(tmp_path, fn_call_response("r1", fn_call("a", "c1", "shell", cmd)),
                    fn_call_response("r2", fn_call("b", "c2", "shell", cmd)), answer("r3", "ok"), approver=approver,
                    sandbox="workspace-write")
    if not conv.tools.sandbox.active:
        pytest.skip("needs a working bubblewrap sandbox (bwrap cannot run here)")
    await conv.run_turn("twice")
    assert len(approver.asked) == 1


async def test_interrupting_a_running_command_kills_it_and_leaves_a_valid_history(tmp_path):
    marker = tmp_path / "survived"
    cmd = {"command": f"sleep 30; touch {marker}", "workdir": None, "timeout_ms": None, "justification": None}
    conv, requests = agent(tmp_path, fn_call_response("r1", fn_call("fc", "c1", "shell", cmd)),
                           answer("r2", "Sorry about that."), policy="never-ask")
    started = asyncio.Event()
    conv.bus.subscribe(lambda e: started.set() if e.type == "item.completed" and it.is_call(e.item) else None)
    task = asyncio.create_task(conv.run_turn("slow"))
    await started.wait()
    await asyncio.sleep(0.3)  # let the command start (not a timing assertion)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    items = conv.history.items
    assert items[-2] == {"type": "function_call_output", "call_id": "c1",
                         "output": "aborted: the user interrupted the turn"}
    assert items[-1]["content"][0]["text"] == TURN_ABORTED
    await conv.run_turn("next")
    sent = sent_inputs(requests)[-1]
    assert_valid_request(sent)
    assert TURN_ABORTED in [i["content"][0]["text"] for i in sent if i.get("role") == "user"]
    assert not marker.exists()


async def test_shell_timeout_and_output_cap(tmp_path):
    result = await run_shell("head -c 50000 /dev/zero | tr '\\0' x; sleep 20", tmp_path, timeout=1, limit=1000)
    assert result.timed_out and result.exit_code is None
    assert result.truncated == 49000 and "characters left out" in result.output
    assert result.output.startswith("x" * 500) and result.output.endswith("x" * 500)


async def test_malformed_patch_and_bad_arguments_get_an_error_output(tmp_path):
    tools = AgentTools(ToolSettings(workspace=tmp_path), ApprovalPolicy("never-ask"))
    bad_patch = await tools.run(custom_call("x", "c1", "apply_patch", "*** Begin Patch\n*** Frobnicate\n"))
    assert bad_patch["output"].startswith("error: the patch was not applied")
    bad_json = await tools.run({"type": "function_call", "call_id": "c2", "name": "shell", "arguments": "{nope"})
    assert bad_json["output"].startswith("error: the arguments are not valid JSON")
    escape = await tools.run(fn_call("y", "c3", "shell", {"command": "pwd", "workdir": "../..", "timeout_ms": None,
                                                          "justification": None}))
    assert "bad workdir" in escape["output"]
    unknown = await tools.run(fn_call("z", "c4", "rm_rf", {}))
    assert "not available" in unknown["output"]


def test_normalised_history_answers_every_call():
    items = [it.user_message("x"), fn_call("a", "c1", "shell", {}), custom_call("b", "c2", "apply_patch", "")]
    out = normalize(items)
    assert_valid_request(out)


async def test_the_api_key_never_reaches_a_command_or_its_output(tmp_path, monkeypatch):
    key = "sk-live-very-secret-key-000111222"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    (tmp_path / ".env").write_text(f"KEY={key}\n")  # and one the model finds in a file
    from rivulet.core.tools.router import tool_settings

    s = settings(api_key=key, workspace=str(tmp_path))
    bus = EventBus()
    shown: list[str] = []
    bus.subscribe(lambda e: shown.append(e.text), ToolOutputDelta)
    tools = AgentTools(tool_settings(s), ApprovalPolicy("never-ask"), bus)
    out = await tools.run(fn_call("f", "c1", "shell", {"command": "echo env=$OPENAI_API_KEY; cat .env",
                                                       "workdir": None, "timeout_ms": None, "justification": None}))
    await bus.drain()
    assert key not in out["output"] and key not in "".join(shown)
    assert "env=\n" in out["output"] and "KEY=[redacted]" in out["output"]
