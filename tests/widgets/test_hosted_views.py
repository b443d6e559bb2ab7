"""The server's own tools, replayed through the chat from real captures (issue 27): web
search (query, then the answer's numbered source with a link the terminal can open),
file search (query), code interpreter (its code, then its logs), remote MCP (the tools
listed, the call's arguments and output) and the hosted shell; all committed, in history
and on the screen. Link text is hostile: only an http(s) URL becomes an OSC 8 link."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.recorded import recording
from helpers.tui import GatedServer, until
from test_mcp_views import screen_output

from rivulet.app.tui import RivuletApp
from rivulet.core.hosted_items import citations, safe_link
from rivulet.widgets.entries import AssistantEntry, ViewEntry
from rivulet.widgets.hosted_view import citations_text

SIZE = (160, 150)


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


async def _replay(name: str) -> tuple[str, str, RivuletApp]:
    server = GatedServer(recording(name).payloads)
    app = RivuletApp(settings(model="gpt-5"), server.transport(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("Composer").load_text("go")
        await pilot.press("enter")
        # Every capture ends with an answer: its entry is the last the batch commits.
        await until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running
                    and not app.live_panes.live and app.query(AssistantEntry), "the replayed turn to end")
        app._transcript.scroll_home(animate=False)
        await pilot.pause()
        raw, text = screen_output(app)
        app.hosted_entries = len(app.query(ViewEntry))
    return raw, text, app


async def test_web_search_shows_its_query_and_the_answer_cites_a_numbered_linked_source():
    raw, text, app = await _replay("test_openai_responses_web_search_citations_stream.1.sse")
    assert app.hosted_entries == 1
    assert "web search" in text and "query: Pydantic AI GitHub repository official" in text
    assert "[1] GitHub - pydantic/pydantic-ai" in text
    assert "\x1b]8;id=" in raw and ";https://github.com/pydantic/pydantic-ai?utm_source=openai\x1b\\" in raw


async def test_file_search_shows_its_queries():
    _, text, _ = await _replay("test_openai_responses_model_file_search_tool_stream.4.sse")
    assert "file search" in text and "query: What is the capital of France?" in text


async def test_code_interpreter_shows_its_code_then_its_logs():
    _, text, _ = await _replay("test_openai_responses_code_execution_download_file_stream.1.sse")
    assert "code interpreter" in text
    assert 'file_path = "/mnt/data/numbers_and_squares.csv"' in text
    assert "'/mnt/data/numbers_and_squares.csv'" in text  # the logs output


async def test_remote_mcp_shows_the_tools_listed_and_the_call_with_arguments_and_output():
    _, text, app = await _replay("test_openai_responses_model_mcp_server_tool_stream.1.sse")
    assert "MCP deepwiki: 2 tools listed" in text and "read_wiki_structure" in text
    assert "MCP deepwiki · ask_question" in text and '"repoName":"pydantic/pydantic-ai"' in text
    assert "→ The `pydantic/pydantic-ai` repository is a Python agent framework" in text
    assert "more lines)" in text  # a long output is cut on the screen (the inspector has it whole)
    kinds = [i.get("type") for i in app.conversation.history.items]
    assert "mcp_list_tools" in kinds and "mcp_call" in kinds  # committed: history, export, resume


async def test_the_hosted_shell_shows_its_commands():
    _, text, _ = await _replay("test_openai_responses_hosted_shell_with_uploaded_file_stream.2.sse")
    assert "ls -l /mnt/data" in text or "wc -l /mnt/data" in text


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "file:///etc/passwd", "https://evil.example/\x1b]8;;\x07x", "http://a.example/\x9b2J",
    "https:///no-host", "data:text/html,hi",
])
def test_only_an_http_url_without_controls_becomes_a_link(url):
    item = {"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "t", "annotations": [{"type": "url_citation", "url": url, "title": "x"}]}]}
    assert safe_link(url) is None and citations(item)[0].link is None
    refs = citations_text(item)
    assert refs is not None and not any(span.style.link for span in refs.spans if hasattr(span.style, "link"))
    assert "\x1b" not in refs.plain and "\x9b" not in refs.plain and "\x07" not in refs.plain


async def test_code_interpreter_code_streams_live_as_it_is_written():
    payloads = recording("test_openai_responses_code_execution_download_file_stream.1.sse").payloads
    server = GatedServer(payloads, gate_at={0: 22})  # the first 16 code deltas, up to the blank line
    app = RivuletApp(settings(model="gpt-5"), server.transport(), remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("Composer").load_text("go")
        await pilot.press("enter")
        await until(pilot, lambda: server.reached.is_set() and "numbers_and_squares.csv" in screen_output(app)[1],
                    "the code so far")
        _, text = screen_output(app)
        server.release()
        await until(pilot, lambda: not app.turn_worker.is_running, "the turn's end")
    assert "▶ code interpreter (writing…)" in text
    assert 'file_path = "/mnt/data/numbers_and_squares.csv"' in text and "with open" not in text


@pytest.mark.parametrize("kind", ["web_search_call", "file_search_call", "code_interpreter_call", "mcp_call",
                                  "mcp_list_tools", "mcp_approval_request", "image_generation_call"])
def test_hostile_server_text_in_a_hosted_item_is_shown_as_text(kind):
    import io

    from rich.console import Console

    from rivulet.widgets.hosted_view import view_renderable

    evil = "[bold]x[/bold] \x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x1b[2J"
    item = {"type": kind, "status": evil, "action": {"type": "search", "query": evil, "sources": [{"url": evil}]},
            "queries": [evil], "results": [{"filename": evil, "text": evil}], "code": evil,
            "outputs": [{"type": "logs", "logs": evil}], "server_label": evil, "name": evil, "arguments": evil,
            "output": evil, "tools": [{"name": evil}], "revised_prompt": evil}
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=200)
    console.print(view_renderable(item))
    out = console.file.getvalue()
    assert "\x1b]8;;https://evil" not in out and "\x1b[2J" not in out and "\x07" not in out
    assert "[bold]x[/bold]" in out  # shown as typed, never parsed as markup
