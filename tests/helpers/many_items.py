"""One response with many output items (10,000 in issue 22's measurements): the stream
the session file's group commit, exec and the chat are measured and tested on."""

from __future__ import annotations

from helpers.streams import body, completed, created, message, message_events


def many_items_body(count: int, rid: str = "resp_many") -> bytes:
    """An SSE body: `count` short assistant messages, each added, streamed and done, then
    `response.completed` listing them all."""
    payloads = [created(rid)]
    output = []
    for n in range(count):
        text = f"item {n}: a short line."
        payloads += message_events(f"msg_{n}", text, index=n, chunks=2)
        output.append(message(f"msg_{n}", text))
    payloads.append(completed(output, rid))
    return body(payloads)
