"""A real MCP server for the tests, built with the official SDK's MCPServer.

Run as `python mcp_server.py` (stdio) or `python mcp_server.py --http PORT` (streamable
HTTP on 127.0.0.1). Its tools cover what rivulet must handle: plain text, structured
content, an image, a tool error, a crash, a hang (it notes its cancellation in the file
named by $MCP_TEST_MARKS), read-only and destructive hints, and a hostile output.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import ToolAnnotations

# The smallest valid PNG: one red pixel.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

server = MCPServer("rivulet-test")


def mark(text: str) -> None:
    path = os.environ.get("MCP_TEST_MARKS")
    if path:
        with open(path, "a") as f:
            f.write(text + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers (structured result)."""
    return {"sum": a + b}


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def red_pixel() -> list:
    """A one-pixel image, with a caption."""
    return ["a red pixel", Image(data=PNG, format="png")]


@server.tool()
def fail(reason: str) -> str:
    """Always fails."""
    raise ToolError(f"it failed because {reason}")


@server.tool()
def crash() -> str:
    """Kills the server."""
    print("about to crash: goodbye", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
async def hang(seconds: float = 3600) -> str:
    """Sleeps; notes in $MCP_TEST_MARKS when it was cancelled."""
    mark(f"hang started {os.getpid()}")
    try:
        await asyncio.sleep(seconds)
    except BaseException:
        mark("hang cancelled")
        raise
    return "woke up"


@server.tool(annotations=ToolAnnotations(destructive_hint=True, read_only_hint=False))
def wipe(target: str) -> str:
    """Pretends to delete the target."""
    mark(f"wiped {target}")
    return f"wiped {target}"


@server.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def reach(port: int) -> str:
    """Try to open a TCP connection to 127.0.0.1:port."""
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError as exc:
        return f"unreachable: {exc}"
    return "reached"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def big(n: int) -> str:
    """n characters of text."""
    return "x" * n


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def hostile() -> str:
    """Output with terminal escapes."""
    return "red \x1b[31mtext\x1b[0m and \x07bell"


@server.tool(name="evil\x1b]0;owned\x07name", annotations=ToolAnnotations(read_only_hint=True))
def evil() -> str:
    """A tool whose name carries a terminal escape."""
    return "evil ran"


if __name__ == "__main__":
    print("rivulet-test MCP server starting", file=sys.stderr, flush=True)
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        import uvicorn

        app = server.streamable_http_app()
        token = os.environ.get("MCP_TEST_TOKEN")

        async def checked(scope, receive, send):
            """With $MCP_TEST_TOKEN set: every HTTP request needs it as a bearer token."""
            if token and scope["type"] == "http":
                headers = dict(scope["headers"])
                if headers.get(b"authorization") != f"Bearer {token}".encode() or headers.get(b"x-team") != b"tools":
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b"unauthorized"})
                    return
            await app(scope, receive, send)

        uvicorn.run(checked, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        server.run()
