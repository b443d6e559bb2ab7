"""A prompt's content blocks as rivulet's input (app/acp/prompt_blocks.py), and the
permission question's options and answers (app/acp/permission.py)."""

from __future__ import annotations

import base64

import pytest
from acp import (
    embedded_blob_resource,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse
from helpers.images import PNG

from rivulet.app.acp.permission import decision, options
from rivulet.app.acp.prompt_blocks import PromptError, to_input
from rivulet.core.tools.approval import ApprovalRequest, Decision

LIMIT = 1 << 20


def test_text_images_embedded_resources_and_links_become_the_prompt_and_attachments(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "linked.py").write_text("print('linked')\n")
    png = base64.b64encode(PNG).decode()
    blocks = [text_block("look at"), text_block("these"), image_block(png, "image/png"),
              resource_block(embedded_text_resource(f"file://{tmp_path}/src/open.py", "x = 1\n")),
              resource_block(embedded_blob_resource("file:///elsewhere/shot.png", png, mime_type="image/png")),
              resource_link_block("linked.py", f"file://{tmp_path}/src/linked.py"),
              resource_link_block("docs", "https://example.com/docs")]
    text, attachments = to_input(blocks, tmp_path, LIMIT)
    assert text == "look at\nthese\n[docs](https://example.com/docs)"
    assert [(a.kind, a.path) for a in attachments] == [
        ("image", "image-3"), ("file", "src/open.py"), ("image", "/elsewhere/shot.png"), ("file", "src/linked.py")]
    assert attachments[1].parts[0]["text"] == '<file path="src/open.py">\nx = 1\n\n</file>'
    assert attachments[0].parts[1]["image_url"].startswith("data:image/png;base64,")


@pytest.mark.parametrize(("block", "said"), [
    (image_block("%%%not base64", "image/png"), "not valid base64"),
    (image_block(base64.b64encode(b"GIF? no, text").decode(), "image/png"), "not a PNG"),
    (resource_link_block("gone", "file:///no/such/file.txt"), "no such file"),
])
def test_a_block_that_cannot_be_sent_is_one_line(tmp_path, block, said):
    with pytest.raises(PromptError, match=said):
        to_input([block], tmp_path, LIMIT)


def test_the_four_options_and_what_each_answers():
    shell = ApprovalRequest("shell", "c1", "ls", sandboxed=True)
    assert [(o.kind, o.name) for o in options(shell)] == [
        ("allow_once", "Yes"), ("allow_always", "Yes, and this exact command here again"),
        ("reject_once", "No"), ("reject_always", "No, and stop the turn")]
    outside = ApprovalRequest("shell", "c2", "ls", sandboxed=False)  # "always" answers only this call there
    assert options(outside)[1].name == "Yes (asked again next time)"
    answers = {kind: decision(RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=kind)))
               for kind in ("allow_once", "allow_always", "reject_once", "reject_always")}
    assert answers == {"allow_once": Decision.YES, "allow_always": Decision.ALWAYS, "reject_once": Decision.NO,
                       "reject_always": Decision.STOP}
    assert decision(RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))) is Decision.NO


def test_the_editors_mcp_servers_join_as_configured_ones_an_sse_one_is_left_out(capsys):
    from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer

    from rivulet.app.acp.build import client_servers

    servers = client_servers([
        McpServerStdio(name="files", command="/usr/bin/mcp-files", args=["--root", "."],
                       env=[EnvVariable(name="TOKEN", value="t")]),
        HttpMcpServer(type="http", name="docs", url="https://mcp.example.com/mcp",
                      headers=[HttpHeader(name="Authorization", value="Bearer x")]),
        SseMcpServer(type="sse", name="old", url="https://sse.example.com", headers=[])])
    assert [(s.name, s.transport, s.command, s.args, s.env, s.url, s.headers) for s in servers] == [
        ("files", "stdio", "/usr/bin/mcp-files", ("--root", "."), {"TOKEN": "t"}, None, {}),
        ("docs", "http", None, (), {}, "https://mcp.example.com/mcp", {"Authorization": "Bearer x"})]
    assert "SseMcpServer: only stdio and HTTP servers are supported" in capsys.readouterr().err
