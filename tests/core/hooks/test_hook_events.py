"""Every hook event fired by a real turn (scripted server, real tools): what each hook
got, `{files}` after a patch, a blocking before_tool, and failing or hanging hooks that
are one note and never stop the chat. Also exec end to end."""

from __future__ import annotations

import json
import sys

from helpers.aimock import rivulet
from helpers.calls import (
    PATCH,
    Scripted,
    agent,
    answer,
    custom_call,
    custom_call_events,
    fn_call,
    fn_call_response,
    sent_inputs,
)
from helpers.canned_server import CannedServer
from helpers.streams import body, completed, created

from rivulet.core.hooks.dispatch import Hooks
from rivulet.core.hooks.events import HookNote
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.hooks.wiring import attach
from rivulet.core.tools.approval import Decision

PY = sys.executable
LOG = ("import json,sys; e=json.load(sys.stdin); "
       "open('hooks.log','a').write(json.dumps({'event': e['event'], 'data': e, 'argv': sys.argv[1:]})+chr(10))")


def logger(event: str, *extra: str, tools: tuple[str, ...] = ()) -> HookSpec:
    return HookSpec(event, (PY, "-c", LOG, *extra), 30, tools)


def logged(ws) -> list[dict]:
    path = ws / "hooks.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def with_hooks(conv, ws, *specs: HookSpec) -> tuple[Hooks, list[HookNote]]:
    hooks = Hooks(specs, ws, conv.bus)
    attach(hooks, conv)
    notes: list[HookNote] = []
    conv.bus.subscribe(notes.append, HookNote)
    return hooks, notes


async def test_every_event_of_a_session_with_a_patch_in_order(tmp_path):
    (tmp_path / "notes.md").write_text("old\n")
    call = custom_call("ct_1", "call_p", "apply_patch", PATCH)
    conv, _ = agent(tmp_path, body([created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
                                    completed([call])]), answer("r2", "Done."), approver=Scripted(Decision.YES))
    hooks, _ = with_hooks(conv, tmp_path, *(logger(e) for e in (
        "session_start", "turn_start", "before_tool", "after_tool", "turn_end", "session_end")),
        logger("after_patch", "{files}"))
    await hooks.session_start()
    await conv.run_turn("patch it")
    await hooks.session_end()
    seen = logged(tmp_path)
    assert [e["event"] for e in seen] == ["session_start", "turn_start", "before_tool", "after_patch", "after_tool",
                                          "turn_end", "session_end"]
    by = {e["event"]: e for e in seen}
    assert by["turn_start"]["data"]["prompt"] == "patch it"
    assert by["before_tool"]["data"]["tool"]["name"] == "apply_patch"
    assert by["after_patch"]["argv"] == ["hello.txt", "notes.md"]  # {files}: one argument each
    assert by["after_patch"]["data"]["files"] == ["hello.txt", "notes.md"]
    assert by["after_tool"]["data"]["output"].startswith("Success.")
    assert by["turn_end"]["data"]["outcome"] == "completed" and by["turn_end"]["data"]["last_message"] == "Done."


async def test_a_before_tool_hook_exiting_2_blocks_the_call_and_tells_the_model_why(tmp_path):
    call = fn_call("fc_1", "call_1", "shell", {"command": "touch ran.txt", "workdir": None, "timeout_ms": None,
                                               "justification": None})
    approver = Scripted(Decision.YES)
    conv, requests = agent(tmp_path, fn_call_response("r1", call), answer("r2", "Understood."), approver=approver)
    block = HookSpec("before_tool", ("sh", "-c", "echo 'no commands on Fridays' >&2; exit 2"), 30, ("shell",))
    _, notes = with_hooks(conv, tmp_path, block)
    result = await conv.run_turn("touch it")
    await conv.bus.drain()
    assert not (tmp_path / "ran.txt").exists()
    assert approver.asked == []  # blocked before anyone was asked
    output = sent_inputs(requests)[1][-1]
    assert output["call_id"] == "call_1" and "no commands on Fridays" in output["output"]
    assert "did not run" in output["output"]
    assert result.last_message == "Understood."
    assert [n.blocked for n in notes] == [True] and "no commands on Fridays" in notes[0].text


async def test_a_before_tool_hook_for_another_tool_does_not_run(tmp_path):
    call = fn_call("fc_1", "call_1", "shell", {"command": "touch ran.txt", "workdir": None, "timeout_ms": None,
                                               "justification": None})
    conv, _ = agent(tmp_path, fn_call_response("r1", call), answer("r2", "ok"), approver=Scripted(Decision.YES))
    with_hooks(conv, tmp_path, HookSpec("before_tool", ("sh", "-c", "exit 2"), 30, ("apply_patch",)))
    await conv.run_turn("touch it")
    assert (tmp_path / "ran.txt").exists()


async def test_failing_and_hanging_hooks_are_one_line_each_and_the_turn_goes_on(tmp_path):
    conv, _ = agent(tmp_path, answer("r1", "Hello."))
    _, notes = with_hooks(conv, tmp_path,
                          HookSpec("turn_start", (PY, "-c", "import time; time.sleep(1000)"), 1),
                          HookSpec("turn_start", ("sh", "-c", "echo broken >&2; exit 1"), 30),
                          HookSpec("turn_end", ("/nonexistent/notify",), 30),
                          HookSpec("turn_end", ("echo", "formatted 3 files"), 30))
    result = await conv.run_turn("hi")
    await conv.bus.drain()
    assert result.last_message == "Hello."
    assert [(n.event, n.failed) for n in notes] == [("turn_start", True), ("turn_start", True),
                                                    ("turn_end", True), ("turn_end", False)]
    assert "timed out after 1 s (killed)" in notes[0].text
    assert notes[1].text == "failed: exit status 1: broken"
    assert "cannot run '/nonexistent/notify'" in notes[2].text
    assert notes[3].text == "formatted 3 files"
    assert all("\n" not in n.line() for n in notes)


async def test_long_output_is_capped_in_the_note(tmp_path):
    conv, _ = agent(tmp_path, answer("r1", "Hello."))
    _, notes = with_hooks(conv, tmp_path, HookSpec("turn_end", (PY, "-c", "print('line\\n' * 5000)"), 30))
    await conv.run_turn("hi")
    await conv.bus.drain()
    assert len(notes[0].text.splitlines()) <= 13 and notes[0].text.endswith("[… hook output cut]")


def test_exec_runs_the_configured_hooks_and_shows_their_notes(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    config = tmp_path / "config.toml"
    config.write_text('sandbox = "off"\n'
                      '[[hooks]]\nevent = "session_start"\ncommand = ["sh", "-c", "echo started >> log"]\n'
                      '[[hooks]]\nevent = "turn_end"\ncommand = ["echo", "turn over"]\n'
                      '[[hooks]]\nevent = "session_end"\ncommand = ["sh", "-c", "echo ended >> log; exit 4"]\n')
    with CannedServer(answer("r1", "Hi there.")) as server:
        proc = rivulet("exec", "--base-url", server.base_url, "--workspace", str(ws), "hello",
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path / "s"), "RIVULET_CONFIG": str(config)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hi there.\n"
    assert (ws / "log").read_text() == "started\nended\n"
    assert "rivulet: hook turn_end · echo turn over: turn over" in proc.stderr
    assert "rivulet: hook session_end" in proc.stderr and "failed: exit status 4" in proc.stderr


def test_exec_refuses_a_bad_hook_table_in_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[[hooks]]\nevent = "on_save"\ncommand = ["x"]\n')
    proc = rivulet("exec", "--base-url", "http://127.0.0.1:9/v1", "hello",
                   env={"RIVULET_SESSIONS_DIR": str(tmp_path), "RIVULET_CONFIG": str(config)})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "rivulet: error: bad hook 1 in the config file: event 'on_save' is not one of session_start, turn_start, "
        "before_tool, after_tool, after_patch, turn_end, session_end"]
