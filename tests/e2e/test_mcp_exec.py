"""`rivulet exec` with MCP servers from config.toml, as a real process: aimock's model
calls a tool of the real stdio test server, the output goes back, a broken server is a
warning line, a bad table is one error line, and no server outlives the run."""

from __future__ import annotations

import json
import sys

import pytest
from helpers.aimock import events, rivulet, start_aimock
from helpers.paths import ROOT
from helpers.peers import stop_peer
from mcp_helpers import SERVER, alive


@pytest.fixture(scope="module")
def model():
    proc, url = start_aimock(ROOT / "fixtures/aimock/mcp.json", "--validate-on-load")
    yield url
    stop_peer(proc)


def _config(tmp_path, broken: bool = False) -> str:
    config = tmp_path / "config.toml"
    text = (f'[mcp_servers.test]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(SERVER))}]\n'
            "startup_timeout = 60\n")
    if broken:
        text += (f'[mcp_servers.broken]\ncommand = {json.dumps(sys.executable)}\n'
                 """args = ["-c", "import sys; print('no database', file=sys.stderr); sys.exit(1)"]\n""")
    config.write_text(text)
    return str(config)


def test_the_model_calls_an_mcp_tool_and_gets_its_output(model, tmp_path):
    proc = rivulet("exec", "mcp-echo", "--json", "--base-url", model, "--approval", "auto-edit",
                   env={"RIVULET_CONFIG": _config(tmp_path, broken=True), "RIVULET_SAVE_SESSIONS": "false"})
    assert proc.returncode == 0, proc.stderr
    committed = [e["item"] for e in events(proc) if e["type"] == "item.completed"]
    call = next(i for i in committed if i["type"] == "function_call")
    output = next(i for i in committed if i["type"] == "function_call_output")
    assert (call["name"], json.loads(call["arguments"])) == ("test__echo", {"text": "hello MCP"})
    assert output == {"type": "function_call_output", "call_id": call["call_id"], "output": "echo: hello MCP"}
    assert committed[-1]["content"][0]["text"] == "The MCP server answered."
    # The broken server is one warning line; the turn went on without it.
    assert proc.stderr == ("rivulet: warning: MCP server broken failed: Connection closed (its stderr ends: "
                           f"no database) ({sys.executable} -m rivulet.app mcp list --probe shows its stderr)\n")


def test_no_server_outlives_exec(model, tmp_path):
    proc = rivulet("exec", "mcp-pid", "--json", "--base-url", model, "--approval", "never-ask",
                   env={"RIVULET_CONFIG": _config(tmp_path), "RIVULET_SAVE_SESSIONS": "false",
                        "RIVULET_SANDBOX": "off"})  # the server's own pid, not one in a PID namespace
    assert proc.returncode == 0, proc.stderr
    output = next(e["item"] for e in events(proc)
                  if e["type"] == "item.completed" and e["item"]["type"] == "function_call_output")
    pid = int(output["output"])
    assert pid > 1 and not alive(pid)


def test_a_bad_mcp_table_stops_exec_with_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[mcp_servers.t]\ncommand = "x"\ntool_timeout = 0\n')
    proc = rivulet("exec", "hi", "--base-url", "http://127.0.0.1:9/v1", env={"RIVULET_CONFIG": str(config)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"rivulet: error: bad setting 'mcp_servers.t.tool_timeout': must be a number of "
                           f"seconds, above 0 (config file: {config})\n")
