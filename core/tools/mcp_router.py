"""Running a model's call of an MCP tool: approval, the call, and its result as the
call's output.

What goes back to the model:
- text content: the output text; structured content is kept (added as JSON unless the
  text already is that JSON); embedded text resources are added, links named;
- image content: the output becomes a list of content parts, the text as `input_text`
  and each image as an `input_image` data URL, which the model sees in the follow-up;
- `isError`, a timeout (`tool_timeout`; the call is cancelled with
  `notifications/cancelled`), a crashed or failed server: an output saying what
  happened, with the server's stderr tail when it crashed.
All text is sanitised (no terminal controls), has secrets masked and is capped at
`output_limit` characters; an image larger than `image_limit` bytes is left out, with a note.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rivulet.core import items as it
from rivulet.core.sanitize import reveal, sanitize
from rivulet.core.tools.approval import ApprovalRequest, Decision, canonical_json

if TYPE_CHECKING:  # the client is imported with the first server (exec without one never needs it)
    from rivulet.core.tools.mcp_client import McpManager, McpServer, McpTool

Decide = Callable[[it.Item, ApprovalRequest, str], Awaitable[Decision]]
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


class McpRouter:
    def __init__(self, manager: McpManager, *, output_limit: int = 16_000, image_limit: int = 8 * 1024 * 1024,
                 secrets: tuple[str, ...] = ()) -> None:
        self.manager = manager
        self.output_limit = output_limit
        self.image_limit = image_limit
        self.secrets = secrets

    def specs(self) -> list[dict[str, Any]]:
        return [t.spec for t in self.manager.tools()]

    def owns(self, call: it.Item) -> bool:
        return call.get("type") == "function_call" and self.manager.find(str(call.get("name"))) is not None

    async def run(self, call: it.Item, decide: Decide) -> it.Item:
        found = self.manager.find(str(call.get("name")))
        assert found is not None
        server, tool = found
        try:
            args = json.loads(call.get("arguments") or "{}")
        except ValueError as exc:
            return self._out(call, f"error: the arguments are not valid JSON ({exc}); send them again")
        if not isinstance(args, dict):
            return self._out(call, "error: the arguments must be a JSON object")
        shown, hidden = reveal(json.dumps(args, indent=2, ensure_ascii=False))
        request = ApprovalRequest("mcp", it.call_id(call) or "", f"{server.name} · {tool.display}", detail=shown,
                                  reason=("hidden characters in the arguments: " + ", ".join(hidden)) if hidden
                                  else None, server=server.name, tool=tool.display, read_only=tool.read_only,
                                  destructive=tool.destructive, tool_id=tool.tool, arguments=canonical_json(args))
        declined = f"The user declined the call of {tool.display} on MCP server {server.name}; it did not run."
        if await decide(call, request, declined) is Decision.NO:
            return self._out(call, declined + " Do not call it again unchanged: ask the user what they want.")
        return await self._call(call, server, tool, args)

    async def _call(self, call: it.Item, server: McpServer, tool: McpTool, args: dict[str, Any]) -> it.Item:
        from mcp import MCPError

        from rivulet.core.tools.mcp_client import describe_error

        where = f"tool {tool.display} of MCP server {server.name}"
        session = server.session
        if server.state != "ready" or session is None:
            return self._out(call, f"error: {where} is not available: the server is {server.state}"
                                   + (f" ({server.error})" if server.error else "") + ". It was not run.")
        timeout = server.config.tool_timeout
        try:
            async with asyncio.timeout(timeout):  # on expiry the SDK sends notifications/cancelled
                result = await session.call_tool(tool.tool, args)
        except TimeoutError:
            return self._out(call, f"error: {where} did not answer within {timeout:g} s (tool_timeout); the call "
                                   "was cancelled. Try something smaller, or tell the user.")
        except MCPError as exc:
            if exc.code == -32000:  # CONNECTION_CLOSED: the server went away
                return self._crashed(call, server, where, describe_error(exc))
            return self._out(call, f"error: {where} failed: {sanitize(exc.error.message)}")
        except (OSError, EOFError) as exc:
            return self._crashed(call, server, where, describe_error(exc))
        except Exception as exc:  # a malformed answer from the server
            if server._task is not None and server._task.done():
                return self._crashed(call, server, where, describe_error(exc))
            return self._out(call, f"error: {where} gave an answer rivulet cannot read: {describe_error(exc)}")
        return self._result(call, result)

    def _crashed(self, call: it.Item, server: McpServer, where: str, why: str) -> it.Item:
        tail = server.stderr_tail().strip()
        server.fail(f"stopped while running a tool ({why})")
        note = f"\nIts last stderr:\n{tail[-1000:]}" if tail else ""
        return self._out(call, f"error: {where}: the server stopped while running it ({why}); its tools are no "
                               f"longer available this session.{note}")

    def _result(self, call: it.Item, result: Any) -> it.Item:
        texts: list[str] = []
        images: list[dict[str, Any]] = []
        for block in result.content:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "image":
                images_or_note = self._image(block.data, block.mime_type)
                if isinstance(images_or_note, str):
                    texts.append(images_or_note)
                else:
                    images.append(images_or_note)
            elif kind == "resource":
                res = block.resource
                text = getattr(res, "text", None)
                texts.append(f"[resource {res.uri}]\n{text}" if text is not None else
                             f"[binary resource {res.uri} ({res.mime_type or 'unknown type'}) left out]")
            elif kind == "resource_link":
                texts.append(f"[resource link: {block.uri}]")
            else:
                texts.append(f"[{kind} content left out: rivulet cannot pass it to the model]")
        structured = result.structured_content
        if structured is not None:
            as_json = json.dumps(structured, ensure_ascii=False)
            if not any(_same_json(t, structured) for t in texts):
                texts.append(f"Structured content:\n{as_json}")
        text = "\n".join(texts)
        if result.is_error:
            text = f"error: the tool reported an error: {text or '(no message)'}"
        text = self._cap(text)
        if not images:
            return {"type": "function_call_output", "call_id": it.call_id(call), "output": text}
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": text}] if text else []
        return {"type": "function_call_output", "call_id": it.call_id(call), "output": parts + images}

    def _image(self, data: str, mime: str) -> dict[str, Any] | str:
        size = len(data) * 3 // 4 - data[-2:].count("=")  # the decoded size, without decoding
        if mime not in IMAGE_TYPES:
            return f"[an image of type {sanitize(mime)[:60]} left out: only PNG, JPEG, GIF and WebP are passed on]"
        if len(data) % 4 or not _BASE64.fullmatch(data):  # would make the API refuse the whole request
            return "[an image left out: its data is not valid base64]"
        if size > self.image_limit:
            return f"[an image of {size:,} bytes left out: more than the limit of {self.image_limit:,} bytes]"
        return {"type": "input_image", "image_url": f"data:{mime};base64,{data}", "detail": "auto"}

    def _cap(self, text: str) -> str:
        text = sanitize(text)
        for secret in self.secrets:
            if secret:
                text = text.replace(secret, "[redacted]")
        if len(text) > self.output_limit:
            cut = len(text) - self.output_limit
            text = text[: self.output_limit] + f"\n(output truncated: {cut:,} characters left out)"
        return text

    def _out(self, call: it.Item, text: str) -> it.Item:
        return {"type": "function_call_output", "call_id": it.call_id(call), "output": self._cap(text)}


def _same_json(text: str, value: Any) -> bool:
    """Whether the text already says what the structured content holds: it is that JSON,
    or (the SDK's wrapping of a plain return value) the value of a lone "result" key."""
    if isinstance(value, dict) and set(value) == {"result"} and value["result"] == text:
        return True
    try:
        parsed = json.loads(text)
    except ValueError:
        return False
    return bool(parsed == value or (isinstance(value, dict) and set(value) == {"result"} and parsed == value["result"]))
