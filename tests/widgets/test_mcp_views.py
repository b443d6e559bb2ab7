"""The MCP views in Textual's Pilot: the approval question for an MCP call (as the core
asks it), the /mcp view of the servers, and an MCP call in the transcript. Server and
model text is hostile: it must show as typed, never as markup or terminal controls."""

from __future__ import annotations

import json

from textual.app import App
from textual.widgets import Button

from rivulet.core.tools.approval import ApprovalRequest, Decision
from rivulet.core.tools.mcp_client import McpManager, McpTool
from rivulet.core.tools.mcp_config import McpServerConfig
from rivulet.core.tools.mcp_router import McpRouter
from rivulet.themes import STYLESHEET
from rivulet.widgets.dialogs import ApprovalScreen
from rivulet.widgets.entries import MCP_SERVERS, ToolCallEntry, call_title, remember_mcp_tool
from rivulet.widgets.mcp_panel import McpScreen


def screen_output(app) -> tuple[str, str]:
    """(the bytes a terminal would receive for the whole screen, its plain text)."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens,
                                                        simplify=True))
    return console.file.getvalue(), console.export_text(styles=False)

HOSTILE = "[bold]not bold[/bold] [@click=app.quit]click[/] \x1b[31mred\x1b[0m \u202eevil"


async def _request_from_the_core(args: dict, **tool_kw) -> ApprovalRequest:
    """The question exactly as the core's MCP router asks it (the answer is no: nothing runs)."""
    manager = McpManager([McpServerConfig("files", command="unused")])
    server = manager.servers[0]
    server.state = "ready"
    server.tools = [McpTool("files__write_note", "files", "write_note", {}, **tool_kw)]
    asked: list[ApprovalRequest] = []

    async def decide(call, request, declined):
        asked.append(request)
        return Decision.NO

    call = {"type": "function_call", "call_id": "c1", "name": "files__write_note", "arguments": json.dumps(args)}
    out = await McpRouter(manager).run(call, decide)
    assert "declined" in out["output"]
    return asked[0]


class Host(App[None]):
    CSS_PATH = str(STYLESHEET)

    def __init__(self, screen=None) -> None:
        super().__init__()
        self.first = screen
        self.answers: list[Decision | None] = []

    def on_mount(self) -> None:
        if self.first is not None:
            self.push_screen(self.first, self.answers.append)


async def test_the_mcp_approval_shows_server_tool_and_indented_arguments_at_80x24():
    args = {"path": "notes/today.md", "text": HOSTILE, "lines": list(range(30))}
    request = await _request_from_the_core(args, destructive=True)
    app = Host(ApprovalScreen(request))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        raw, plain = screen_output(app)
        assert "Call this MCP tool?" in plain
        assert "server files · tool write_note · the server marks it destructive" in plain
        assert ' 2 │   "path": "notes/today.md",' in plain  # numbered, indented JSON
        assert "[bold]not bold[/bold] [@click=app.quit]click[/]" in plain  # never markup
        assert "\\u001b[31mred" in plain and "\x1b[31m" not in raw  # JSON-escaped, not sent to the terminal
        assert "⚠ The arguments hold bidirectional-text controls" in plain
        assert "\\u202eevil" in plain and "\u202e" not in raw  # the override shown as its code
        detail = app.screen.query_one("#approval-detail")
        assert detail.max_scroll_y > 0  # 30 more lines: they scroll, the buttons stay
        buttons = list(app.screen.query(Button))
        assert len(buttons) == 4 and all(app.screen.region.contains_region(b.region) for b in buttons)
        await pilot.press("a")  # "always" is picked, not yet given (issue 35, item 5)
        await pilot.pause()
        assert app.answers == []
        await pilot.press("a")
        await pilot.pause()
    assert app.answers == [Decision.ALWAYS]


async def test_a_read_only_tool_says_so():
    request = await _request_from_the_core({"q": "x"}, read_only=True)
    app = Host(ApprovalScreen(request))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        _, plain = screen_output(app)
        assert "tool write_note · the server marks it read-only" in plain
        assert "The arguments hold" not in plain
        await pilot.press("n")
        await pilot.pause()
    assert app.answers == [Decision.NO]


async def test_the_mcp_view_lists_servers_states_tools_and_a_failed_servers_stderr():
    servers = [
        {"name": "files", "transport": "stdio", "where": "sandbox workspace-write", "state": "starting",
         "error": None, "tools": [], "stderr": ""},
        {"name": "broken", "transport": "stdio", "where": "no sandbox", "state": "failed",
         "error": "Connection closed", "tools": [], "stderr": "line 1\n" + HOSTILE + "\nTraceback: no database\n"},
        {"name": "docs", "transport": "http", "where": "", "state": "disabled", "error": None, "tools": [],
         "stderr": ""},
    ]
    app = Host(McpScreen(lambda: servers))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        raw, plain = screen_output(app)
        assert "◌ files  stdio · starting · sandbox workspace-write" in plain
        assert "✗ broken  stdio · failed · no sandbox" in plain and "Connection closed" in plain
        assert "Traceback: no database" in plain and "[bold]not bold[/bold] [@click=app.quit]click[/]" in plain
        assert "␛[31mred" in plain and "\x1b[31m" not in raw
        assert "○ docs  http · disabled" in plain
        # The server finishes starting while the view is open: it is redrawn.
        servers[0] = {**servers[0], "state": "ready", "tools": ["read_file", "write_note"]}
        for _ in range(100):
            await pilot.pause(0.05)
            if "● files" in screen_output(app)[1]:
                break
        _, plain = screen_output(app)
        assert "● files  stdio · ready" in plain and "2 tools: read_file, write_note" in plain
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, McpScreen)


async def test_the_mcp_view_without_servers_says_how_to_add_one():
    app = Host(McpScreen(lambda: []))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "rivulet mcp add NAME -- COMMAND" in screen_output(app)[1]


class EntryHost(App[None]):
    CSS_PATH = str(STYLESHEET)

    def __init__(self, entry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self):
        yield self.entry


async def test_an_mcp_call_shows_server_tool_arguments_and_result():
    remember_mcp_tool("files__write_note", "files", "write_note")
    call = {"type": "function_call", "call_id": "c1", "name": "files__write_note",
            "arguments": json.dumps({"path": "a.md", "text": "[b]hi[/b]"})}
    assert call_title(call) == "files · write_note"
    entry = ToolCallEntry(call, "fc_1")
    app = EntryHost(entry)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        _, plain = screen_output(app)
        assert "⚙ files · write_note" in plain
        assert '{"path": "a.md", "text": "[b]hi[/b]"}' in plain
        assert "… waiting for output" in plain
        data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
        entry.set_output({"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "wrote \x1b[2Ja.md"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{data}", "detail": "auto"}]})
        await pilot.pause()
        raw, plain = screen_output(app)
        assert "→ wrote ␛[2Ja.md" in plain and "\x1b[2J" not in raw
        assert "[image image/png, 70 bytes]" in plain and data not in plain


def test_an_unknown_double_underscore_name_is_left_as_it_is():
    assert call_title({"type": "function_call", "name": "nobody__knows"}) == "nobody__knows"


def test_a_configured_servers_call_shows_as_server_and_tool_before_the_server_is_up():
    MCP_SERVERS.add("docs")  # what the app does from the config (a resumed session's calls)
    assert call_title({"type": "function_call", "name": "docs__search_pages"}) == "docs · search_pages"
    assert call_title({"type": "function_call", "name": "docs__"}) == "docs__"
    assert call_title({"type": "function_call", "name": "other__search"}) == "other__search"


async def test_always_for_the_tool_with_any_arguments_is_its_own_labelled_choice():
    """Issue 35, item 6: "always" is this call's exact arguments; allowing the tool with any
    arguments is a separate button that says so (and not offered for a destructive tool)."""
    request = await _request_from_the_core({"path": "build"})
    app = Host(ApprovalScreen(request))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        buttons = {b.id: b for b in app.screen.query(Button)}
        assert set(buttons) == {"yes", "always", "always-tool", "no", "stop"}
        assert "any arg" in str(buttons["always-tool"].label) and "any arguments" in str(buttons["always-tool"].tooltip)
        assert "exact arguments" in str(buttons["always"].tooltip)
        assert all(app.screen.region.contains_region(b.region) and b.region.area > 0 for b in buttons.values())
        await pilot.click("#always-tool")  # picked, not yet given: it takes a second step too
        await pilot.pause()
        assert app.answers == [] and buttons["always-tool"].has_focus
        await pilot.press("enter")
        await pilot.pause()
    assert app.answers == [Decision.ALWAYS_TOOL]
    for destructive in (await _request_from_the_core({"path": "x"}, destructive=True),
                        ApprovalRequest("shell", "c", "ls", sandboxed=True)):
        app = Host(ApprovalScreen(destructive))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert not app.screen.query("#always-tool")
