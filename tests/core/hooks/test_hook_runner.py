"""One hook run: argv and `{files}`, the event on stdin, cwd, no API key, the time limit
and its process group, the sandbox, and config tables that are refused."""

from __future__ import annotations

import json
import os
import sys

import pytest

from rivulet.core.errors import ConfigError
from rivulet.core.hooks.runner import expand, run_hook
from rivulet.core.hooks.spec import HookSpec, load_hooks, parse_hooks
from rivulet.core.tools.sandbox import Sandbox, probe

PY = sys.executable


def spec(*command: str, event: str = "turn_end", timeout: float = 30) -> HookSpec:
    return HookSpec(event, tuple(command), timeout)


def test_files_become_separate_arguments_and_a_leading_dash_stays_a_file():
    argv = expand(["fmt", "--check", "{files}", "--end"], ["a b.py", "-rf", "dir/c.py"])
    assert argv == ["fmt", "--check", "a b.py", "./-rf", "dir/c.py", "--end"]
    assert expand(["fmt", "{files}"], []) == ["fmt"]
    assert expand(["echo", "x{files}"], ["a"]) == ["echo", "x{files}"]  # only a whole item expands


async def test_the_event_arrives_as_json_on_stdin_in_the_workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hook-secret-123456")
    script = ("import json,os,sys; e=json.load(sys.stdin); "
              "print(json.dumps({'e': e, 'cwd': os.getcwd(), 'key': os.environ.get('OPENAI_API_KEY')}))")
    result = await run_hook(spec(PY, "-c", script), {"event": "turn_end", "turn_id": 3}, tmp_path,
                            secrets=("sk-hook-secret-123456",))
    assert result.ok, result
    seen = json.loads(result.stdout)
    assert seen["e"] == {"event": "turn_end", "turn_id": 3}
    assert os.path.realpath(seen["cwd"]) == os.path.realpath(tmp_path)
    assert seen["key"] is None  # not in its environment


async def test_a_key_the_hook_prints_anyway_is_masked(tmp_path):
    secret = "sk-found-in-a-file-987654"
    (tmp_path / "k").write_text(secret)  # outside the workspace: unsandboxed, a workspace file is not run
    (tmp_path / "ws").mkdir()
    result = await run_hook(spec("cat", "../k"), {}, tmp_path / "ws", secrets=(secret,))
    assert secret not in result.stdout and "[redacted]" in result.stdout


async def test_a_hanging_hook_is_killed_with_everything_it_started(tmp_path):
    # It starts a grandchild that would outlive it, then hangs; it never reads stdin.
    script = ("import subprocess,time; p=subprocess.Popen(['sleep','1000']); "
              "open('pid','w').write(str(p.pid)); time.sleep(1000)")
    result = await run_hook(spec(PY, "-c", script, timeout=1), {"big": "x" * 300_000}, tmp_path)
    assert result.timed_out and result.exit_code is None and not result.ok
    assert _gone(int((tmp_path / "pid").read_text()))


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie is dead, not yet reaped
    except OSError:
        return True


async def test_a_command_that_does_not_exist_is_a_result_not_an_exception(tmp_path):
    result = await run_hook(spec("/nonexistent/hook-cmd"), {}, tmp_path)
    assert not result.ok and result.error


@pytest.mark.skipif(not probe().ok, reason="bwrap cannot create a sandbox on this machine")
async def test_a_hook_under_the_sandbox_writes_the_workspace_only(tmp_path):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    box = Sandbox("workspace-write", ws.resolve())
    result = await run_hook(spec("sh", "-c", f"touch in.txt; touch {outside}/out.txt; echo done"), {}, ws.resolve(),
                            sandbox=box)
    assert (ws / "in.txt").exists()
    assert not (outside / "out.txt").exists()
    assert "done" in result.stdout


@pytest.mark.parametrize("table, words", [
    ({"event": "after_edit", "command": ["x"]}, "is not one of"),
    ({"event": "turn_end", "command": []}, "command must be"),
    ({"event": "turn_end", "command": ["x"], "timeout": 0}, "timeout"),
    ({"event": "turn_end", "command": ["x"], "run": "y"}, "unknown key 'run'"),
])
def test_bad_tables_are_one_line_naming_the_hook(table, words):
    with pytest.raises(ConfigError) as info:
        parse_hooks([table], "the config file")
    assert words in info.value.message and "hook 1" in info.value.message and "\n" not in info.value.message


def test_a_workspace_file_runs_only_in_a_trusted_workspace(tmp_path):
    (tmp_path / ".rivulet").mkdir()
    (tmp_path / ".rivulet" / "hooks.toml").write_text('[[hooks]]\nevent = "session_start"\ncommand = ["evil"]\n')
    mine = [{"event": "turn_end", "command": ["notify"]}]
    untrusted = load_hooks(mine, tmp_path, [])
    assert [h.command for h in untrusted.hooks] == [("notify",)]
    assert untrusted.ignored and "not trusted" in untrusted.ignored
    trusted = load_hooks(mine, tmp_path, [str(tmp_path)])
    assert [h.command for h in trusted.hooks] == [("notify",), ("evil",)] and trusted.ignored is None


def test_an_untrusted_workspace_file_is_not_even_parsed(tmp_path):
    (tmp_path / ".rivulet").mkdir()
    (tmp_path / ".rivulet" / "hooks.toml").write_text("this is [[ not toml")
    assert load_hooks([], tmp_path, []).hooks == []  # no error from the repository's file
    with pytest.raises(ConfigError):
        load_hooks([], tmp_path, [str(tmp_path)])
