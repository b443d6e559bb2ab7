"""`[mcp_servers.NAME]`: parsing, one-line errors, and editing the file for the CLI."""

from __future__ import annotations

import tomllib

import pytest

from rivulet.core.config import load_settings
from rivulet.core.errors import ConfigError
from rivulet.core.tools.mcp_config import add_server, parse_servers, remove_server
from rivulet.core.tools.mcp_schema import input_schema, tool_name


def test_a_config_file_with_both_kinds_of_server(tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text('model = "m"\n[mcp_servers.time]\ncommand = "mcp-server-time"\nargs = ["--local-timezone", "UTC"]\n'
                   'env = {TZ = "UTC"}\ntool_timeout = 5\ndisabled_tools = ["convert_time"]\n'
                   '[mcp_servers.docs]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env = "DOCS_TOKEN"\n'
                   'enabled = false\nstartup_timeout = 2.5\n')
    monkeypatch.setenv("RIVULET_CONFIG", str(cfg))
    servers = parse_servers(load_settings().mcp_servers)
    assert [(s.name, s.transport, s.enabled) for s in servers] == [("time", "stdio", True), ("docs", "http", False)]
    time, docs = servers
    assert time.args == ("--local-timezone", "UTC") and time.env == {"TZ": "UTC"} and time.tool_timeout == 5.0
    assert time.offers("get_current_time") and not time.offers("convert_time")
    assert docs.startup_timeout == 2.5
    monkeypatch.setenv("DOCS_TOKEN", "tok-123")
    assert docs.auth_headers() == {"Authorization": "Bearer tok-123"}
    monkeypatch.delenv("DOCS_TOKEN")
    with pytest.raises(ConfigError, match="DOCS_TOKEN"):
        docs.auth_headers()


@pytest.mark.parametrize(("table", "message"), [
    ({}, "give either `command`"),
    ({"command": "x", "url": "http://h"}, "not both"),
    ({"command": "x", "headers": {}}, "'mcp_servers.s.headers': does not apply to a stdio server"),
    ({"command": ""}, "'mcp_servers.s.command': must be a non-empty string"),
    ({"command": "x", "args": "a b"}, "'mcp_servers.s.args': must be a list of strings"),
    ({"command": "x", "tool_timeout": 0}, "'mcp_servers.s.tool_timeout': must be a number of seconds"),
    ({"command": "x", "tool_timeout": True}, "tool_timeout"),
    ({"command": "x", "enabled": "yes"}, "'mcp_servers.s.enabled': must be true or false"),
    ({"url": "ftp://h"}, "'mcp_servers.s.url': must be an http"),
    ({"command": "x", "colour": 1}, "'mcp_servers.s.colour': unknown key"),
    ("not a table", "must be a table"),
])
def test_a_bad_entry_is_one_clear_line(table, message):
    with pytest.raises(ConfigError) as exc:
        parse_servers({"s": table})
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_a_bad_server_name_is_refused():
    with pytest.raises(ConfigError, match="server name"):
        parse_servers({"a b": {"command": "x"}})


def test_add_and_remove_keep_the_rest_of_the_file(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('model = "gpt-x"\napproval = "auto"\n[headers]\nX-Org = "o"\n')
    add_server("time", {"command": "uvx", "args": ["mcp-server-time"]}, cfg)
    data = tomllib.loads(cfg.read_text())
    assert data == {"model": "gpt-x", "approval": "auto", "headers": {"X-Org": "o"},
                    "mcp_servers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}
    with pytest.raises(ConfigError, match="unknown key"):
        add_server("bad", {"command": "x", "nope": 1}, cfg)
    assert tomllib.loads(cfg.read_text()) == data  # nothing written
    assert remove_server("time", cfg) is True
    assert tomllib.loads(cfg.read_text()) == {"model": "gpt-x", "approval": "auto", "headers": {"X-Org": "o"}}
    assert remove_server("time", cfg) is False


def test_names_are_legal_unique_and_short():
    taken: set[str] = set()
    assert tool_name("time", "get_current_time", taken) == "time__get_current_time"
    odd = tool_name("my.server", "do it/now", taken)
    assert odd == "my_server__do_it_now"
    clash = tool_name("my_server", "do_it_now", taken)  # the same name after cleaning
    assert clash != odd and clash.startswith("my_server__do_it_now_") and len(clash) <= 64
    long = tool_name("s" * 40, "t" * 60, taken)
    assert len(long) == 64 and long not in ("", odd)
    import re
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in taken) and len(taken) == 4


def test_schemas_become_what_the_responses_api_accepts():
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
              "properties": {"when": {"oneOf": [{"type": "string", "format": "date"}, {"type": "null"}],
                                      "examples": ["2024-01-01"]},
                             "n": {"type": "integer", "minimum": 1, "x-custom": True}},
              "required": ["when"], "patternProperties": {"^x": {}}, "if": {}, "then": {}}
    assert input_schema(schema) == {
        "type": "object", "required": ["when"],
        "properties": {"when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
                       "n": {"type": "integer", "minimum": 1}}}
    assert input_schema({"type": "string"}) == {"type": "object", "properties": {}}
    assert input_schema(None) == {"type": "object", "properties": {}}
    assert input_schema({}) == {"type": "object", "properties": {}}
