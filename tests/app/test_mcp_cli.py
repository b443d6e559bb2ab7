"""`rivulet mcp list/add/remove`: the config file round trip (comments kept), bad input
and a bad config file as one line with exit status 2, secrets never listed, and
`list --probe` starting real servers (tests/peers/mcp_server.py) and stopping them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rivulet.app.cli import main

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "peers" / "mcp_server.py"


@pytest.fixture
def config(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "config.toml"
    path.write_text('# my settings\nmodel = "gpt-x"  # the one I like\n\n[keymap]\n"composer.submit" = "ctrl+s"\n')
    monkeypatch.setenv("RIVULET_CONFIG", str(path))
    monkeypatch.setenv("RIVULET_SANDBOX", "off")  # --probe runs the test server directly
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_.value.code or 0), out, err


def test_add_list_remove_round_trip_keeps_the_rest_of_the_file(config, capsys):
    code, out, _ = run(capsys, "mcp", "add", "files", "--env", "LOG=debug", "--env", "API_TOKEN=s3cret-value",
                       "--cwd", "/srv", "--tool-timeout", "30", "--", "npx", "-y", "server-files", "--root", ".")
    assert code == 0 and out.startswith("Added MCP server files (stdio: npx -y server-files --root .)")
    code, out, _ = run(capsys, "mcp", "add", "docs", "--url", "https://mcp.example.com/mcp",
                       "--bearer-token-env", "DOCS_TOKEN", "--header", "X-Team=tools")
    assert code == 0 and "Added MCP server docs (http: https://mcp.example.com/mcp)" in out
    text = config.read_text()
    assert text.startswith('# my settings\nmodel = "gpt-x"  # the one I like\n')  # comments kept
    assert tomllib.loads(text) == {
        "model": "gpt-x", "keymap": {"composer.submit": "ctrl+s"},
        "mcp_servers": {
            # The server's own flags (--root, -y) after -- are its arguments, not ours.
            "files": {"command": "npx", "args": ["-y", "server-files", "--root", "."], "cwd": "/srv",
                      "env": {"LOG": "debug", "API_TOKEN": "s3cret-value"}, "tool_timeout": 30.0},
            "docs": {"url": "https://mcp.example.com/mcp", "headers": {"X-Team": "tools"},
                     "bearer_token_env": "DOCS_TOKEN"}}}

    code, out, _ = run(capsys, "mcp", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split() == ["files", "stdio", "enabled", "npx", "-y", "server-files", "--root", "."]
    assert "env: API_TOKEN, LOG" in out and "token from $DOCS_TOKEN" in out and "headers: X-Team" in out
    assert "s3cret-value" not in out

    code, out, _ = run(capsys, "mcp", "list", "--json")
    listed = json.loads(out)
    assert code == 0 and [s["name"] for s in listed["servers"]] == ["files", "docs"]
    files, docs = listed["servers"]
    assert (files["kind"], files["args"], files["env"]) == ("stdio", ["-y", "server-files", "--root", "."],
                                                          ["API_TOKEN", "LOG"])
    assert (docs["kind"], docs["url"], docs["headers"], docs["enabled_tools"]) == \
        ("http", "https://mcp.example.com/mcp", ["X-Team"], None)
    assert "s3cret-value" not in out and '"tools"' not in out

    code, out, _ = run(capsys, "mcp", "add", "docs", "--url", "http://127.0.0.1:8000/mcp")
    assert code == 0 and out.startswith("Replaced MCP server docs")
    assert tomllib.loads(config.read_text())["mcp_servers"]["docs"] == {"url": "http://127.0.0.1:8000/mcp"}

    code, out, _ = run(capsys, "mcp", "remove", "files")
    assert code == 0 and out.startswith("Removed MCP server files")
    code, _, _ = run(capsys, "mcp", "remove", "docs")
    assert tomllib.loads(config.read_text()) == {"model": "gpt-x", "keymap": {"composer.submit": "ctrl+s"}}
    assert config.read_text().startswith("# my settings\n")


def test_list_shows_disabled_servers_and_tool_filters(config, capsys):
    config.write_text('[mcp_servers.t]\ncommand = "mcp-server-time"\nenabled = false\n'
                      'enabled_tools = ["get_current_time"]\ndisabled_tools = ["convert_time"]\n')
    code, out, _ = run(capsys, "mcp", "list")
    assert code == 0
    assert out.splitlines()[1].split() == ["t", "stdio", "disabled", "mcp-server-time"]
    assert "tools: only get_current_time; not convert_time" in out


def test_no_servers(config, capsys):
    code, out, _ = run(capsys, "mcp", "list")
    assert code == 0 and out.startswith("No MCP servers in ") and "rivulet mcp add" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["mcp", "add", "s"], "no server given"),
    (["mcp", "add", "s", "--url", "ftp://h"], "'mcp_servers.s.url': must be an http(s) URL"),
    (["mcp", "add", "a b", "--", "x"], "a server name is 1 to 40 letters"),
    (["mcp", "add", "s", "--env", "NOEQUALS", "--", "x"], "--env 'NOEQUALS': expected KEY=VALUE"),
    (["mcp", "add", "s", "--header", "X", "--url", "http://h"], "--header 'X': expected KEY=VALUE"),
    (["mcp", "add", "s", "--url", "http://h", "--", "x"], "not both"),
    (["mcp", "add", "s", "--env", "A=1", "--url", "http://h"], "are for a stdio server"),
    (["mcp", "add", "s", "--bearer-token-env", "T", "--", "x"], "are for a server given with --url"),
    (["mcp", "add", "s", "--tool-timeout", "0", "--", "x"], "'mcp_servers.s.tool_timeout': must be a number"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(config, capsys, argv, message):
    before = config.read_text()
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("rivulet: error: ") and message in err and err.count("\n") == 1
    assert config.read_text() == before


def test_removing_an_unknown_server_says_so(config, capsys):
    code, _, err = run(capsys, "mcp", "remove", "ghost")
    assert code == 1 and err == f"rivulet: error: no MCP server named 'ghost' in {config}\n"


@pytest.mark.parametrize(("content", "message"), [
    ("model = \n", "cannot read config file"),
    ("mcp_servers = 3\n", "bad 'mcp_servers'"),
    ('[mcp_servers.a]\ncommand = 3\n', "'mcp_servers.a.command': must be a non-empty string"),
    ('[mcp_servers.a]\ncommand = "x"\ncolour = 1\n', "'mcp_servers.a.colour': unknown key"),
])
def test_a_bad_config_file_is_one_line_exit_2(config, capsys, content, message):
    config.write_text(content)
    for argv in (["mcp", "list"], ["mcp", "list", "--json"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and message in err and err.count("\n") == 1, err
    if "mcp_servers.a" not in content:  # a file that cannot be read is not rewritten either
        code, _, err = run(capsys, "mcp", "add", "z", "--", "x")
        assert code == 2 and config.read_text() == content


def test_probe_starts_the_servers_lists_their_tools_and_stops_them(config, capsys, tmp_path):
    marks = tmp_path / "marks"
    run(capsys, "mcp", "add", "test", "--env", f"MCP_TEST_MARKS={marks}", "--startup-timeout", "60", "--",
        sys.executable, str(SERVER))
    run(capsys, "mcp", "add", "broken", "--", sys.executable, "-c",
        "import sys; print('cannot open the database', file=sys.stderr); sys.exit(1)")
    run(capsys, "mcp", "add", "off", "--", "nothing-here")
    with open(config, "a") as f:
        f.write("enabled = false\n")  # the last table: [mcp_servers.off]
    before = set(os.listdir("/proc"))
    code, out, _ = run(capsys, "mcp", "list", "--probe", "--json")
    assert code == 1  # one server failed
    status = {s["name"]: s["status"] for s in json.loads(out)["servers"]}
    assert status["test"]["state"] == "ready" and {"echo", "add", "hang"} <= set(status["test"]["tools"])
    assert status["broken"]["state"] == "failed" and "cannot open the database" in status["broken"]["stderr"]
    assert status["off"]["state"] == "disabled"
    code, out, _ = run(capsys, "mcp", "list", "--probe")
    assert "ready · no sandbox" in out and "tools: echo, add" in out
    assert "failed: " in out and "    cannot open the database" in out
    # Nothing the probes started is still running.
    from e2e.mcp_helpers import descendants

    assert not descendants() - {int(p) for p in before if p.isdigit()}


def test_the_command_line_entry_point_and_fast_help(tmp_path):
    config = tmp_path / "config.toml"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))},
           "RIVULET_CONFIG": str(config)}
    proc = subprocess.run([sys.executable, "-m", "rivulet.app", "mcp", "add", "t", "--", "uvx", "mcp-server-time",
                           "--local-timezone", "UTC"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert tomllib.loads(config.read_text())["mcp_servers"]["t"]["args"] == ["mcp-server-time", "--local-timezone",
                                                                             "UTC"]
    proc = subprocess.run([sys.executable, "-c", "import sys; from rivulet.app.cli import main\n"
                           "try:\n    main(['mcp', '--help'])\nexcept SystemExit: pass\n"
                           "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert all(f"    {sub} " in proc.stdout for sub in ("list", "add", "remove")), proc.stdout
    assert proc.stdout.rstrip().endswith("[]")  # --help did not import the mcp SDK


def test_the_chat_refuses_a_bad_mcp_table_before_it_starts(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[mcp_servers.t]\nurl = "http://127.0.0.1:9/mcp"\ncommand = "x"\n')
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))},
           "RIVULET_CONFIG": str(config)}
    proc = subprocess.run([sys.executable, "-m", "rivulet.app", "--base-url", "http://127.0.0.1:9/v1"],
                          capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("rivulet: error: bad setting 'mcp_servers.t.command': give either `command`")
    assert proc.stderr.count("\n") == 1
