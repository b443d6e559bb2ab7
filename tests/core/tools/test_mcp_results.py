"""What an MCP tool's result becomes for the model, content type by content type, checked
against the openai SDK's type for a function call's output."""

from __future__ import annotations

import base64

from mcp import types as mt
from openai.types.responses import response_input_item_param as sdk
from pydantic import TypeAdapter

from rivulet.core.tools.mcp_client import McpManager
from rivulet.core.tools.mcp_router import McpRouter

CALL = {"type": "function_call", "call_id": "call_9", "name": "s__t", "arguments": "{}"}


def _out(*content, structured=None, is_error=False, **kw):
    router = McpRouter(McpManager([]), **kw)
    result = mt.CallToolResult(content=list(content), structured_content=structured, is_error=is_error)
    item = router._result(CALL, result)
    TypeAdapter(sdk.FunctionCallOutput).validate_python(item)
    assert set(item) == {"type", "call_id", "output"} and item["call_id"] == "call_9"
    return item["output"]


def test_text_parts_are_joined_and_structured_content_is_kept():
    assert _out(mt.TextContent(text="one"), mt.TextContent(text="two")) == "one\ntwo"
    assert _out(mt.TextContent(text="done"), structured={"rows": 3}) == 'done\nStructured content:\n{"rows": 3}'
    assert _out(structured={"rows": 3}) == 'Structured content:\n{"rows": 3}'
    assert _out(mt.TextContent(text='{"rows": 3}'), structured={"rows": 3}) == '{"rows": 3}'


def test_an_error_result_says_so():
    assert _out(mt.TextContent(text="no such file"), is_error=True) == \
        "error: the tool reported an error: no such file"
    assert _out(is_error=True) == "error: the tool reported an error: (no message)"


def test_images_become_input_images_within_the_limits():
    png = base64.b64encode(b"\x89PNG" + b"\0" * 100).decode()
    out = _out(mt.ImageContent(data=png, mime_type="image/png"))
    assert out == [{"type": "input_image", "image_url": f"data:image/png;base64,{png}", "detail": "auto"}]
    assert _out(mt.ImageContent(data=png, mime_type="image/png"), image_limit=50) == \
        "[an image of 104 bytes left out: more than the limit of 50 bytes]"
    assert _out(mt.ImageContent(data=png, mime_type="image/x-\x1bevil")) == \
        "[an image of type image/x-␛evil left out: only PNG, JPEG, GIF and WebP are passed on]"
    # Garbage in the data would make the API refuse the whole follow-up request.
    assert _out(mt.ImageContent(data="not base64!", mime_type="image/png")) == \
        "[an image left out: its data is not valid base64]"


def test_other_content_is_named_not_dropped_silently():
    out = _out(mt.AudioContent(data="AAAA", mime_type="audio/wav"),
               mt.ResourceLink(uri="file:///tmp/a.txt", name="a"),
               mt.EmbeddedResource(resource=mt.TextResourceContents(uri="mem://x", text="inside")))
    assert out == ("[audio content left out: rivulet cannot pass it to the model]\n"
                   "[resource link: file:///tmp/a.txt]\n[resource mem://x]\ninside")
