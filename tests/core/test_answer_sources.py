"""An answer's sources from real captures: web pages (`url_citation`), files of a vector
store (`file_citation`) and files the code interpreter made (`container_file_citation`),
numbered once each; their one-line form (sanitised, a long URL cut with an ellipsis); and
the code interpreter's output files and images, said as what they are."""

from __future__ import annotations

from helpers.recorded import done_item

from rivulet.core.hosted_items import SOURCE_URL_MAX, citation_line, citations, hosted_view


def test_file_citations_of_a_file_search_answer_name_the_file_once():
    refs = citations(done_item("openai-file-search-tool.1.jsonl#1", "message"))
    assert [(r.number, r.kind, r.title, r.file_id, r.url) for r in refs] == [
        (1, "file", "ai.pdf", "file-Ebzhf8H4DPGPr9pUhr7n7v", None)]  # cited twice, listed once
    assert citation_line(refs[0]) == "[1] ai.pdf — file file-Ebzhf8H4DPGPr9pUhr7n7v"


def test_container_file_citations_name_the_file_and_its_container():
    refs = citations(done_item("test_openai_responses_code_execution_return_image_stream.1.sse", "message"))
    assert [(r.kind, r.title) for r in refs] == [
        ("container_file", "cfile_68dd937c234081919ee5238a16b4fd87.png"), ("container_file", "y_eq_x_squared_plot.png")]
    assert citation_line(refs[1]) == ("[2] y_eq_x_squared_plot.png — code interpreter file "
                                      "cfile_68dd9381192c81918f24ee3f0294cce6 in container "
                                      "cntr_68dd936a4cfc81908bdd4f2a2f542b5c0a0e691ad2bfd833")


def test_url_citations_are_as_before():
    refs = citations(done_item("test_openai_responses_web_search_citations_stream.1.sse", "message"))
    assert [(r.kind, r.url, r.link is not None) for r in refs] == [
        ("url", "https://github.com/pydantic/pydantic-ai?utm_source=openai", True)]
    assert citation_line(refs[0]).endswith(" — https://github.com/pydantic/pydantic-ai?utm_source=openai")


def _cited(*notes: dict) -> dict:
    return {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "t", "annotations": list(notes)}]}


def test_a_long_url_is_cut_with_an_ellipsis():
    url = "https://example.com/" + "a" * 300
    line = citation_line(citations(_cited({"type": "url_citation", "url": url, "title": "T"}))[0])
    shown = line.split(" — ", 1)[1]
    assert len(shown) == SOURCE_URL_MAX and shown.endswith("…") and url.startswith(shown[:-1])
    short = "https://example.com/" + "a" * (SOURCE_URL_MAX - 20)  # exactly the limit: whole, no ellipsis
    assert citation_line(citations(_cited({"type": "url_citation", "url": short, "title": "T"}))[0]).endswith(short)


def test_hostile_names_and_urls_are_sanitised_and_wrong_types_skipped():
    evil = "x\x1b]8;;https://evil.example\x07y\x1b[2J\u202e"
    refs = citations(_cited({"type": "file_citation", "file_id": evil, "filename": evil},
                            {"type": "container_file_citation", "file_id": 5, "filename": None},
                            {"type": "url_citation", "url": "https://a.example/" + evil, "title": evil},
                            {"type": "file_citation", "file_id": ["x"]}, "not a dict"))
    assert [r.kind for r in refs] == ["file", "url"]
    for ref in refs:
        line = citation_line(ref)
        assert not any(c in line for c in "\x1b\x07\u202e"), line


def test_the_code_interpreters_image_and_files_are_said_as_what_they_are():
    call = done_item("test_openai_responses_code_execution_return_image_stream.1.sse", "code_interpreter_call")
    lines = hosted_view(call).lines
    assert not any("base64" in line for line in lines)  # not 200 characters of a data URL
    size = len(call["outputs"][0]["url"].partition(",")[2]) * 3 // 4
    assert f"image: PNG, {size // 1024:,} KB" in lines
    files = {"type": "code_interpreter_call", "id": "ci_1", "status": "completed", "code": "x = 1",
             "outputs": [{"type": "files", "files": [{"file_id": "cfile_1", "mime_type": "text/csv"}, "junk"]},
                         {"type": "image", "url": "https://files.example/plot.png"}]}
    assert hosted_view(files).lines == ["file: cfile_1 (text/csv)", "image: https://files.example/plot.png"]
