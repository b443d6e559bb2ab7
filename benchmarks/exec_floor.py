"""exec_bench.py's floor client: what `rivulet exec` does for a tiny turn, built from the
libraries rivulet stands on and nothing else. asyncio, httpx's AsyncClient with its default
transport (httpcore's pool), msgspec: POST a streamed request, split the SSE stream, decode
every event, keep each finished item, print the last message's text.

Run: python benchmarks/exec_floor.py BASE_URL (exec_bench.py runs it as a peer).
"""

from __future__ import annotations

import asyncio
import sys

# httpx's __init__ imports its command-line tool (click, rich, pygments) when they are
# installed, as they are beside Textual; rivulet skips it (core/__init__.py), and so does
# the floor: it is no part of a client.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx  # noqa: E402
import msgspec  # noqa: E402


class Part(msgspec.Struct):
    type: str = ""
    text: str = ""


class Item(msgspec.Struct):
    type: str
    content: list[Part] = []


class Event(msgspec.Struct):
    type: str
    item: Item | None = None


async def stream(base_url: str) -> list[Item]:
    decode = msgspec.json.Decoder(Event).decode
    body = msgspec.json.encode({"model": "m", "input": [{"role": "user", "content": "hi"}], "stream": True})
    items: list[Item] = []
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None)) as client, \
            client.stream("POST", base_url + "/responses", content=body,
                          headers={"content-type": "application/json", "accept": "text/event-stream"}) as resp:
        buf = b""
        async for chunk in resp.aiter_raw():
            buf += chunk
            *blocks, buf = buf.split(b"\n\n")
            for block in blocks:
                for line in block.split(b"\n"):
                    if line.startswith(b"data: "):
                        event = decode(line[6:])
                        if event.type == "response.output_item.done" and event.item is not None:
                            items.append(event.item)
                        elif event.type == "response.completed":
                            return items
    return items


def main(base_url: str) -> int:
    items = asyncio.run(stream(base_url))
    last = next((item for item in reversed(items) if item.type == "message"), None)
    print("".join(part.text for part in last.content) if last else "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
