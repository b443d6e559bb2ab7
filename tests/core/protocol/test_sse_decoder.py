"""Our bytes-level SSE decoder, checked against httpx-sse as the reference."""

from __future__ import annotations

import httpx
from httpx_sse import EventSource
from hypothesis import given, settings
from hypothesis import strategies as st

from rivulet.core.protocol.sse_decoder import SseDecoder


def reference(body: bytes) -> list[str]:
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    return [sse.data for sse in EventSource(response).iter_sse() if sse.data]


def ours(chunks: list[bytes]) -> list[str]:
    decoder = SseDecoder()
    out = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return [p.decode() for p in out if p]


values = st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=12)
line = st.one_of(
    st.builds(lambda v: f"data: {v}", values),
    st.builds(lambda v: f"data:{v}", values),
    st.just("data"),
    st.builds(lambda v: f"event: {v}", values),
    st.builds(lambda v: f": comment {v}", values),
    st.builds(lambda v: f"id: {v}", values),
    st.builds(lambda v: f"database: {v}", values),
    st.just(""),
)
newline = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def streams(draw):
    lines = draw(st.lists(line, max_size=25))
    text = "".join(ln + draw(newline) for ln in lines) + draw(st.sampled_from(["", "\n", "\r\n\r\n", "\n\n"]))
    body = text.encode()
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=8)))
    chunks, start = [], 0
    for c in cuts:
        chunks.append(body[start:c])
        start = c
    chunks.append(body[start:])
    return body, chunks


@settings(max_examples=400, deadline=None)
@given(streams())
def test_same_payloads_as_httpx_sse_for_any_stream_and_any_split(case):
    body, chunks = case
    assert ours(chunks) == reference(body)


def test_bom_multiline_and_unterminated_tail():
    body = "\ufeffevent: a\ndata: one\ndata: two\n\n: ping\n\ndata: three\r\n\r\ndata: cut".encode()
    assert ours([body]) == reference(body) == ["one\ntwo", "three"]
    assert ours([body[:1], body[1:2], body[2:]]) == ["one\ntwo", "three"]


def test_a_huge_line_arriving_byte_by_byte_stays_linear():
    payload = b"x" * 200_000
    body = b"data: " + payload + b"\n\n"
    decoder = SseDecoder()
    out = []
    for i in range(0, len(body), 7):
        out.extend(decoder.feed(body[i:i + 7]))
    assert out == [payload]
