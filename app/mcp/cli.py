"""`rivulet mcp list/add/remove`: the MCP servers of config.toml, from the command line.

Importing this module is cheap (argparse only): `rivulet --help` must stay fast, so the
mcp SDK and the config helpers are imported inside the commands. A bad config file or
bad input is one `rivulet: error:` line and exit status 2; nothing is written then.
Environment values and header values may be secrets: `list` shows their names only.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

USAGE_ADD = ("rivulet mcp add NAME [--env K=V] [--cwd DIR] -- COMMAND [ARGS...]\n"
             "       rivulet mcp add NAME --url URL [--bearer-token-env VAR] [--header K=V]")


def add_mcp_parser(command: Any) -> None:
    """Adds `rivulet mcp` through the CLI's `command(name, help, options)` helper (the
    options are added when a run is `rivulet mcp ...`, or help lists them)."""
    command("mcp", "list, add or remove MCP servers (their tools are offered to the model)", _mcp_options)


def _mcp_options(mcp: argparse.ArgumentParser) -> None:
    sub = mcp.add_subparsers(dest="mcp_command", metavar="SUBCOMMAND", required=True)
    ls = sub.add_parser("list", help="the configured servers", description="The MCP servers of the config file.")
    ls.add_argument("--json", action="store_true", help="one JSON object: every server and its settings")
    ls.add_argument("--probe", action="store_true", help="start every enabled server, list its tools and state, "
                    "then stop it (exit status 1 when one failed)")
    add = sub.add_parser("add", help="add (or replace) a server", usage=USAGE_ADD,
                         description="Add a stdio server (the command after --) or a streamable-HTTP server "
                         "(--url) to the config file. An existing server of that name is replaced.")
    add.add_argument("name", help="the server's name: letters, digits, '_' or '-' (its tools are NAME__tool)")
    add.add_argument("--env", action="append", default=[], metavar="K=V", help="an environment variable for "
                     "a stdio server (repeatable)")
    add.add_argument("--cwd", metavar="DIR", help="the stdio server's working directory (default: the workspace)")
    add.add_argument("--url", help="a streamable-HTTP server's URL")
    add.add_argument("--bearer-token-env", metavar="VAR", help="the environment variable that holds the HTTP "
                     "server's bearer token (the token itself is never written to the file)")
    add.add_argument("--header", action="append", default=[], metavar="K=V", help="an HTTP header (repeatable)")
    add.add_argument("--network", action="store_true", help="let the sandboxed stdio server reach the network")
    add.add_argument("--startup-timeout", type=float, metavar="SECONDS", help="seconds to start (default 10)")
    add.add_argument("--tool-timeout", type=float, metavar="SECONDS", help="seconds one call may take (default 60)")
    add.add_argument("argv", nargs="*", metavar="COMMAND", help="after --: the command and its arguments")
    rm = sub.add_parser("remove", help="remove a server", description="Remove a server from the config file.")
    rm.add_argument("name")


def split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """`mcp add NAME ... -- CMD ARGS`: what comes after the first `--` is the server's
    command, untouched (its own flags must not be read as ours)."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def run_mcp(args: argparse.Namespace, server_argv: list[str]) -> int:
    from rivulet.core.errors import ConfigError

    try:
        if args.mcp_command == "list":
            return _list(args)
        if args.mcp_command == "add":
            return _add(args, server_argv)
        return _remove(args)
    except ConfigError as exc:
        return fail(exc.message, 2)


def fail(message: str, code: int = 1) -> int:
    from rivulet.core.errors import redact
    from rivulet.core.sanitize import sanitize

    print(f"rivulet: error: {sanitize(redact(message))}", file=sys.stderr)
    return code


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    from rivulet.core.errors import ConfigError

    out: dict[str, str] = {}
    for value in values:
        key, eq, val = value.partition("=")
        if not eq or not key:
            raise ConfigError(f"{flag} {value!r}: expected KEY=VALUE")
        out[key] = val
    return out


def _add(args: argparse.Namespace, server_argv: list[str]) -> int:
    from rivulet.core.errors import ConfigError
    from rivulet.core.tools.mcp_config import add_server

    argv = server_argv or args.argv
    if args.url and argv:
        raise ConfigError("give either --url (a streamable-HTTP server) or a command after -- (a stdio server), "
                          "not both")
    if not args.url and not argv:
        raise ConfigError("no server given: " + USAGE_ADD.replace("\n       ", " or "))
    table: dict[str, Any] = {}
    if argv:
        if args.header or args.bearer_token_env:
            raise ConfigError("--header and --bearer-token-env are for a server given with --url")
        table["command"], table["args"] = argv[0], argv[1:]
        if args.env:
            table["env"] = _pairs(args.env, "--env")
        if args.cwd:
            table["cwd"] = args.cwd
        if args.network:
            table["network"] = True
    else:
        if args.env or args.cwd or args.network:
            raise ConfigError("--env, --cwd and --network are for a stdio server (a command after --)")
        table["url"] = args.url
        if args.header:
            table["headers"] = _pairs(args.header, "--header")
        if args.bearer_token_env:
            table["bearer_token_env"] = args.bearer_token_env
    if args.startup_timeout is not None:
        table["startup_timeout"] = args.startup_timeout
    if args.tool_timeout is not None:
        table["tool_timeout"] = args.tool_timeout
    existed = args.name in _configured_names()
    server = add_server(args.name, table)
    print(f"{'Replaced' if existed else 'Added'} MCP server {server.name} ({_where(server)}) in {_path()}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from rivulet.core.tools.mcp_config import remove_server

    if not remove_server(args.name):
        return fail(f"no MCP server named {args.name!r} in {_path()}")
    print(f"Removed MCP server {args.name} from {_path()}")
    return 0


def _path() -> str:
    from rivulet.core.config_sources import config_path

    return str(config_path())


def _configured_names() -> set[str]:
    """The servers already in the file (read through the settings: a bad file stops here).
    A file that does not exist yet is created by `add`."""
    from rivulet.core.config import load_settings
    from rivulet.core.config_sources import config_path

    return set(load_settings().mcp_servers) if config_path().exists() else set()


def _servers(args: argparse.Namespace) -> list[Any]:
    from rivulet.core.config import load_settings
    from rivulet.core.tools.mcp_config import parse_servers

    return parse_servers(load_settings(workspace=args.workspace).mcp_servers)


def _where(server: Any) -> str:
    from shlex import join

    return f"stdio: {join([server.command, *server.args])}" if server.command else f"http: {server.url}"


def describe(server: Any) -> dict[str, Any]:
    """A server's settings, for `list`: environment and header values left out."""
    return {"name": server.name, "kind": server.transport, "enabled": server.enabled,
            "command": server.command, "args": list(server.args), "cwd": server.cwd, "url": server.url,
            "env": sorted(server.env), "headers": sorted(server.headers),
            "bearer_token_env": server.bearer_token_env, "network": server.network,
            "startup_timeout": server.startup_timeout, "tool_timeout": server.tool_timeout,
            "enabled_tools": list(server.enabled_tools) if server.enabled_tools is not None else None,
            "disabled_tools": list(server.disabled_tools)}


def tool_filter(server: Any) -> str:
    bits = []
    if server.enabled_tools is not None:
        bits.append("only " + ", ".join(server.enabled_tools))
    if server.disabled_tools:
        bits.append("not " + ", ".join(server.disabled_tools))
    return "; ".join(bits) or "all"


def _list(args: argparse.Namespace) -> int:
    from rivulet.core.sanitize import sanitize

    servers = _servers(args)
    rows = [describe(s) for s in servers]
    if args.probe and servers:
        status = {s["name"]: s for s in _probe(args, servers)}
        for row in rows:
            row["status"] = status.get(row["name"])
    # --probe: a server that did not start makes the exit status 1 (scripts can check).
    code = 1 if any((r.get("status") or {}).get("state") == "failed" for r in rows) else 0
    if args.json:
        print(json.dumps({"config": _path(), "servers": rows}, ensure_ascii=True))
        return code
    if not servers:
        from rivulet.core.command_name import command_name

        print(sanitize(f"No MCP servers in {_path()}. Add one with: "
                       f"{command_name()} mcp add NAME -- COMMAND [ARGS...]"))
        return 0
    print(sanitize(f"MCP servers in {_path()}"))
    width = max(len(s.name) for s in servers)
    for server, row in zip(servers, rows, strict=True):
        line = f"{server.name:<{width}}  {server.transport:<5}  {'enabled ' if server.enabled else 'disabled'}  " \
               f"{_where(server).split(': ', 1)[1]}"
        extras = [f"env: {', '.join(row['env'])}"] if row["env"] else []
        extras += [f"headers: {', '.join(row['headers'])}"] if row["headers"] else []
        extras += [f"token from ${server.bearer_token_env}"] if server.bearer_token_env else []
        extras += [f"tools: {tool_filter(server)}"]
        print(sanitize(line))
        print(sanitize(" " * (width + 2) + " · ".join(extras)))
        probed = row.get("status")
        if probed is not None:
            _print_status(probed, width + 2)
    return code


def _print_status(status: dict[str, Any], indent: int) -> None:
    from rivulet.core.sanitize import sanitize

    pad = " " * indent
    state = status["state"] + (f": {status['error']}" if status.get("error") else "")
    print(sanitize(f"{pad}{state} · {status['where']}"))
    if status["tools"]:
        print(sanitize(f"{pad}{len(status['tools'])} tools: {', '.join(status['tools'])}"))
    if status["state"] == "failed" and status["stderr"].strip():
        print(f"{pad}stderr (last lines):")
        for line in status["stderr"].strip().splitlines()[-10:]:
            print(sanitize(f"{pad}  {line}"))


def _probe(args: argparse.Namespace, servers: list[Any]) -> list[dict[str, Any]]:
    """Start every enabled server as the chat would (same sandbox), read its state and
    tools, stop it; a disabled server is reported as such."""
    import asyncio

    from rivulet.core.config import load_settings
    from rivulet.core.tools.mcp_client import McpManager
    from rivulet.core.tools.router import tool_settings
    from rivulet.core.tools.sandbox import Sandbox

    tools = tool_settings(load_settings(workspace=args.workspace))
    manager = McpManager(servers, sandbox=Sandbox(tools.sandbox, tools.workspace, tools.sandbox_network),
                         workspace=tools.workspace)

    async def probe() -> list[dict[str, Any]]:
        try:
            await manager.start()
            return manager.status()
        finally:
            await manager.aclose()

    found = asyncio.run(probe())
    off = [{"name": s.name, "transport": s.transport, "where": "", "state": "disabled", "error": None, "tools": [],
            "stderr": ""} for s in servers if not s.enabled]
    return found + off
