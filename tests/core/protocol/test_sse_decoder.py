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


# Streams in the common shapes the decoder reads without a Python step per event (every
# event `event: X` + `data: Y`, or every one `data: Y`), sometimes with one odd block in
# among them (a comment, an id, an event without data, data on two lines, no space).
odd_block = st.sampled_from(["", ": keep-alive\n", "id: 7\ndata: x\n", "event: ping\n", "data: a\ndata: b\n",
                             "data:tight\n", "event: e\ndata: y\nid: 1\n", "data\n"])


@st.composite
def uniform_streams(draw):
    named = draw(st.booleans())
    events = [(f"event: {draw(values)}\n" if named else "") + f"data: {draw(values)}\n"
              for _ in range(draw(st.integers(1, 30)))]
    odd = draw(odd_block)
    if odd:
        events.insert(draw(st.integers(0, len(events))), odd)
    body = "".join(e + "\n" for e in events).encode()
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=4)))
    return body, [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]


@settings(max_examples=400, deadline=None)
@given(uniform_streams())
def test_the_common_shapes_give_httpx_sses_payloads(case):
    body, chunks = case
    assert ours(chunks) == reference(body)
