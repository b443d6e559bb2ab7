"""The chat's sources under an answer (widgets/hosted_view.py, shared by the answer's entry
and the frozen lines of old ones) and the code interpreter's output, from real captures:
file and container file citations listed as URL ones are, a long URL ending in "…", and
an image the code interpreter returned drawn, not printed as a data URL."""

from __future__ import annotations

import io

from helpers.recorded import done_item
from rich.console import Console

from rivulet.core.hosted_items import SOURCE_URL_MAX
from rivulet.widgets.hosted_view import citations_text, view_renderable


def rendered(renderable) -> str:
    console = Console(width=160, file=io.StringIO(), force_terminal=True, color_system="truecolor", record=True)
    console.print(renderable)
    return console.export_text(styles=False)


def test_an_answer_lists_the_files_it_cites():
    refs = citations_text(done_item("openai-file-search-tool.1.jsonl#1", "message"))
    assert refs is not None and refs.plain == "Sources\n[1] ai.pdf — file file-Ebzhf8H4DPGPr9pUhr7n7v"
    refs = citations_text(done_item("openai-code-interpreter-tool.1.jsonl#1", "message"))
    assert refs is not None and refs.plain.splitlines()[1] == (
        "[1] roll2dice_sums_10000.csv — code interpreter file cfile_68c2e7084ab48191a67824aa1f4c90f1 in container "
        "cntr_68c2e6f380d881908a57a82d394434ff02f484f5344062e9")
    assert not any(getattr(span.style, "link", None) for span in refs.spans)  # a file is no link


def test_a_long_source_url_ends_with_an_ellipsis():
    url = "https://example.com/" + "p" * 200
    item = {"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "t", "annotations": [{"type": "url_citation", "url": url, "title": "A page"}]}]}
    refs = citations_text(item)
    assert refs is not None
    shown = refs.plain.splitlines()[1].split(" — ", 1)[1]
    assert len(shown) == SOURCE_URL_MAX and shown.endswith("…") and url.startswith(shown[:-1])


def test_the_code_interpreters_image_is_drawn():
    call = done_item("test_openai_responses_code_execution_return_image_stream.1.sse", "code_interpreter_call")
    text = rendered(view_renderable(call))
    assert "image: PNG, " in text and "base64" not in text
    assert text.count("▀") > 100  # the picture, in half blocks
