"""The `rivulet` command line: the argument parser, and nothing heavier.

`--help`, `--version` and argument errors cost only the interpreter's start: this
module imports argparse alone, and `launch` (settings, pydantic, transports, the TUI)
is imported only once a command runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from typing import Any

from rivulet.app.cli_args import SHARED
from rivulet.app.mcp.cli import add_mcp_parser, split_command

APPROVALS = ["ask", "auto-edit", "auto", "never-ask"]
PLAIN_HELP = ("the chat as plain lines in the terminal's own scrollback (screen readers, SSH); also with "
              "plain = true, TERM=dumb, or when stdout is not a terminal")

# Options every command takes, before or after the subcommand (`rivulet --model m exec hi`
# and `rivulet exec --model m hi` mean the same). One table, so a new global flag is one row.
GLOBAL_OPTIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("--base-url",), dict(metavar="URL", help="Responses API base URL (default $OPENAI_BASE_URL, "
                                               "else OpenAI's; a local URL needs no key)")),
    (("-m", "--model"), dict(help="model name (default from the config file, else gpt-5.1-codex)")),
    (("--approval",), dict(choices=APPROVALS, help="tool approval policy: ask before every command and patch, "
                                                   "auto-edit (patches in the workspace run unasked), auto (also "
                                                   "sandboxed commands), never-ask")),
    (("--workspace",), dict(metavar="DIR", help="directory the tools work in (default: the current one)")),
    (("--transport",), dict(choices=["sse", "ws", "auto"],
                            help="HTTP streaming (SSE), the Responses WebSocket, or auto (WebSocket where offered)")),
    (("--demo",), dict(action="store_true", help="talk to the built-in demo server (scripted answers, no model, "
                                                 "no key needed)")),
    (("--log-level",), dict(metavar="LEVEL", help="log level for stderr: DEBUG, INFO, WARNING (default), ERROR")),
    (("--background",), dict(action="store_const", const=True,  # absent: None, so the config decides
                             help="send requests as background responses (resumed after a cut, left running "
                                  "at quit for `rivulet resume`, cancelled by Esc)")),
    (("--strict",), dict(action="store_const", const=True,  # absent: None, so the config decides
                         help="turn every tolerated protocol deviation into an error (for server developers)")),
    (("-p", "--profile"), dict(metavar="NAME", help="use the settings of [profiles.NAME] in the config file")),
    (("-c", "--config"), dict(metavar="KEY=VALUE", action="append", dest="overrides",
                              help="override any setting for this run (TOML value, dotted keys for tables, "
                                   "e.g. -c model=gpt-5.1 -c headers.X-Team=blue); repeatable")),
]


def _add_global_options(parser: argparse.ArgumentParser, top: bool) -> None:
    group = parser.add_argument_group("global options (before or after the command)")
    for flags, kwargs in GLOBAL_OPTIONS:
        # Below the command, an absent flag must not overwrite one given before it; a
        # repeatable one is gathered apart and added to those before it (all_overrides).
        extra: dict[str, Any] = {} if top else {"default": argparse.SUPPRESS}
        if not top and kwargs.get("action") == "append":
            extra["dest"] = f"{kwargs['dest']}_after"
        group.add_argument(*flags, **{**kwargs, **extra})


def _add_turn_options(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """What the chat and `exec` both take for their first message."""
    extra: dict[str, Any] = {} if top else {"default": argparse.SUPPRESS}
    parser.add_argument("--instructions", metavar="TEXT", help="instructions for the model, added after the "
                        "project's AGENTS.md files and the configured instructions", **extra)
    parser.add_argument("-i", "--image", metavar="PATH", action="append",
                        help="attach an image (PNG, JPEG, GIF, WebP) to the first message; repeatable", **extra)


class _Version(argparse.Action):
    """`--version`: the number kept in rivulet.app (reading package metadata costs ~50 ms)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from rivulet.app import VERSION

        print(f"rivulet {VERSION}")
        parser.exit()


PRINT_HELP = "on quit, write the conversation to the terminal's scrollback (the setting print_on_exit = true)"


class _LazyParsers(dict[str, argparse.ArgumentParser]):
    """The commands' parsers (argparse's map of them), each given its options when it is
    first looked up: a run builds its own command's options only. Every `add_argument`
    makes argparse a help formatter, which asks the terminal its size; all commands' took
    ~5 ms of every start. Listing them (help, tests) fills them all."""

    def __init__(self) -> None:
        super().__init__()
        self.fillers: dict[str, Callable[[argparse.ArgumentParser], None]] = {}

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        parser = super().__getitem__(name)
        fill = self.fillers.pop(name, None)
        if fill is not None:
            fill(parser)
        return parser

    def __iter__(self) -> Iterator[str]:  # (dict() of it then looks each one up)
        return iter(list(super().keys()))

    def values(self) -> Any:
        return [self[k] for k in list(super().keys())]

    def items(self) -> Any:
        return [(k, self[k]) for k in list(super().keys())]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rivulet", description="A terminal client for the OpenAI Responses API. "
                                     "Without a command: the chat.")
    parser.set_defaults(**SHARED)  # before the options: theirs win; a command's own parser's win too
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    _add_global_options(parser, top=True)
    _add_turn_options(parser, top=True)
    parser.add_argument("--plain", action="store_true", help=PLAIN_HELP)
    parser.add_argument("--print", action="store_true", dest="print_on_exit", help=PRINT_HELP)
    # Long only: -c is --config's.
    parser.add_argument("--continue", action="store_true", dest="continue_last",
                        help="go on with the last session in this directory (as `resume --last`)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parsers = _LazyParsers()
    sub._name_parser_map = sub.choices = parsers  # argparse's lookup of a command's parser

    def command(name: str, help_text: str, fill: Callable[[argparse.ArgumentParser], None] | None = None,
                ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        if fill is None:  # (a caller that adds its options at once)
            _add_global_options(p, top=False)
            return p
        own = fill

        def options(p: argparse.ArgumentParser) -> None:
            _add_global_options(p, top=False)
            own(p)

        parsers.fillers[name] = options
        return p

    command("exec", "run one turn headless and print the answer", _exec_options)
    command("doctor", "probe a server: what it supports, its deviations, the settings to use", _doctor_options)
    add_mcp_parser(command)
    command("resume", "continue a saved session in the chat (a picker without an id)", _resume_options)
    command("sessions", "list saved sessions: this directory's first", _sessions_options)
    command("export", "write a session as Markdown or JSON", _export_options)
    command("undo", "put back the files the last turn(s) changed (checkpoints; see /undo in the chat)",
            _undo_options)
    command("replay", "play a recorded stream (.sse or .jsonl) through the chat UI", _replay_options)
    command("acp", "run as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, Toad, ...)",
            _acp_options)
    return parser


def _exec_options(ex: argparse.ArgumentParser) -> None:
    ex.add_argument("prompt", help="the user message ('-' reads it from standard input)")
    ex.add_argument("--json", action="store_true", help="print one JSON object per line for every event")
    ex.add_argument("--ephemeral", action="store_true", help="save no session file for this run (for scripts; "
                    "save_sessions = false does it for every run)")
    ex.add_argument("-q", "--quiet", action="store_true",
                    help="no progress lines on stderr (retries); errors and warnings still print")
    ex.add_argument("--output-schema", metavar="FILE", help="a JSON Schema the answer must follow (sent as "
                    "text.format, strict): stdout is the answer's JSON; exit 1 if it does not match")
    _add_turn_options(ex)
    ex.add_argument("--patch-tool", choices=["auto", "custom", "function", "off"],
                    help="offer apply_patch as a freeform custom tool, a JSON function, or not at all "
                    "(auto: custom on OpenAI's API, function elsewhere)")


def _doctor_options(dr: argparse.ArgumentParser) -> None:
    dr.add_argument("--json", action="store_true", help="print the report as one JSON object")
    dr.add_argument("--timeout", type=float, default=120.0, help="seconds allowed for each probe (default 120)")
    dr.add_argument("--refresh", action="store_true", help="probe again and replace what the capability cache "
                    "knows about this server")
    dr.add_argument("--report", action="store_true", help="print a Markdown report to paste into the server's "
                    "bug tracker (versions, probes, raw deviations, a minimal failing request; no secrets)")
    dr.add_argument("--no-store", action="store_true", help="skip the previous_response_id probe, whose two "
                    "requests set store: true (the server keeps them)")


def _resume_options(rs: argparse.ArgumentParser) -> None:
    rs.add_argument("id", nargs="?", help="session id (or a unique prefix of it), or the path of its file")
    rs.add_argument("--last", action="store_true", help="the most recent session started in this directory "
                    "that has a message")
    _add_turn_options(rs)
    rs.add_argument("--plain", action="store_true", default=argparse.SUPPRESS, help=PLAIN_HELP)
    rs.add_argument("--print", action="store_true", dest="print_on_exit", default=argparse.SUPPRESS, help=PRINT_HELP)


def _sessions_options(ss: argparse.ArgumentParser) -> None:
    ss.add_argument("--all", action="store_true", help="every session, from every directory")
    what = ss.add_subparsers(dest="sessions_command", metavar="SUBCOMMAND")
    search = what.add_parser("search", help="the sessions that said QUERY, newest first",
                             description="The sessions that said QUERY, newest first, each with a snippet. "
                             "Exit 0 with hits, 1 with none, 2 on a bad query.")
    search.add_argument("query", metavar="QUERY", help='words (all must match), "a phrase", prefix*, '
                        "OR, NOT, NEAR(a b) (SQLite FTS5's syntax)")
    search.add_argument("--all", action="store_true", default=argparse.SUPPRESS,
                        help="sessions from every directory (with their workspace), not only this one's")
    search.add_argument("--json", action="store_true", help="one JSON object per line for each hit")
    search.add_argument("--limit", type=_positive, default=20, metavar="N", help="at most N sessions (default 20)")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return int(text)


def _export_options(exp: argparse.ArgumentParser) -> None:
    exp.add_argument("id", help="session id (or prefix), or the path of its file")
    exp.add_argument("--format", choices=["md", "json"], default="md", help="md (default) or json")
    exp.add_argument("-o", "--output", metavar="FILE", help="file to write (default: standard output)")


def _undo_options(ud: argparse.ArgumentParser) -> None:
    ud.add_argument("--session", metavar="ID", help="whose turns (default: the latest session in this "
                    "workspace with a turn to undo, or to redo)")
    ud.add_argument("--turns", type=int, default=1, metavar="N", help="how many turns to walk back (default 1)")
    ud.add_argument("--redo", action="store_true", help="apply again what an undo put back")
    ud.add_argument("-y", "--yes", action="store_true", help="do it without asking (scripts)")
    ud.add_argument("--force", action="store_true", help="also put back files changed since the turn (listed)")
    ud.add_argument("--dry-run", action="store_true", help="show what would change, change nothing")


def _acp_options(ac: argparse.ArgumentParser) -> None:
    pass  # the global options only: each editor session gets the chat's settings, in its own cwd


def _replay_options(rp: argparse.ArgumentParser) -> None:
    rp.add_argument("file", help="a recorded SSE body (.sse) or JSONL event file (.jsonl)")
    rp.add_argument("--speed", type=float, default=1.0, help="speed factor (2 = twice as fast; 0 = instant)")


def continued(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """`rivulet --continue` is `rivulet resume --last`: the same run, so the same choice
    of "the last session" (app/boot.py)."""
    if not args.continue_last:
        return args
    if args.command is not None:
        parser.error(f"--continue starts the chat; it takes no command (try: rivulet {args.command} ...)")
    args.command, args.id, args.last = "resume", None, True
    return args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # `mcp add NAME -- CMD ARGS`: the server's command is kept away from our parser.
    head, server_argv = split_command(argv) if "mcp" in split_command(argv)[0] else (argv, [])
    parser = build_parser()
    args = continued(parser, parser.parse_args(head))
    args.server_argv = server_argv
    from rivulet.app.launch import run

    sys.exit(run(args))
