"""Plain mode shows what the chat shows of hosted tools, from real captures: an answer's
sources (web pages, files, the code interpreter's files) under it, numbered; a hosted
item's title and lines (the code interpreter's logs and image). Hostile names are text."""

from __future__ import annotations

import io

from helpers.recorded import done_item

from rivulet.app.plain.printer import PlainPrinter
from rivulet.core.turn import bus as b


def printed(*items: dict) -> list[str]:
    out = io.StringIO()
    printer = PlainPrinter(out)
    for n, item in enumerate(items):
        printer(b.ItemCompleted(item, f"i{n}"))
    printer.flush()
    return out.getvalue().splitlines()


def test_the_files_an_answer_cites_follow_it():
    answer = done_item("openai-file-search-tool.1.jsonl#1", "message")
    lines = printed(answer)
    assert lines[-2:] == ["Sources", "[1] ai.pdf — file file-Ebzhf8H4DPGPr9pUhr7n7v"]
    assert any("ai.pdf" not in line and line.strip() for line in lines[:-2])  # the answer's text came first


def test_a_web_answer_lists_its_page_and_the_code_interpreter_its_files():
    lines = printed(done_item("test_openai_responses_web_search_citations_stream.1.sse", "message"))
    assert lines[-1] == ("[1] GitHub - pydantic/pydantic-ai: AI Agent Framework, the Pydantic way · GitHub — "
                         "https://github.com/pydantic/pydantic-ai?utm_source=openai")
    capture = "test_openai_responses_code_execution_return_image_stream.1.sse"
    lines = printed(done_item(capture, "code_interpreter_call"), done_item(capture, "message"))
    assert lines[0] == "→ code interpreter" and any(line.startswith("  image: PNG, ") for line in lines)
    assert lines[-1].startswith("[2] y_eq_x_squared_plot.png — code interpreter file cfile_68dd9381192c81918f24ee")
    assert not any("base64" in line for line in lines)


def test_hostile_file_names_and_long_urls_are_shown_safely():
    evil = "name\x1b]52;c;cGF3bmVk\x07\x1b[2J[bold]x[/bold]"
    url = "https://example.com/" + "q" * 300
    item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done.", "annotations": [
        {"type": "file_citation", "file_id": "file-1", "filename": evil},
        {"type": "url_citation", "url": url, "title": "Page"}]}]}
    lines = printed(item)
    text = "\n".join(lines)
    assert "\x1b" not in text and "\x07" not in text and "[bold]x[/bold]" in text
    assert lines[-1].startswith("[2] Page — https://example.com/qqq") and lines[-1].endswith("…")
