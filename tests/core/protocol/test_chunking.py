"""Splitting a stream's bytes anywhere (even inside a UTF-8 character) changes nothing."""

from __future__ import annotations

from contextlib import aclosing

from helpers.mock_api import serving
from helpers.recorded import RECORDINGS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# The multi-byte texts are where splitting can go wrong: favour those and the big ones.
SAMPLE = [r for r in RECORDINGS if any(ord(c) > 127 for c in r.body.decode())][:6] + sorted(
    RECORDINGS, key=lambda r: -len(r.body))[:3] + [r for r in RECORDINGS if r.name.endswith(".sse")][:6]


async def _events(body_chunks):
    out = []
    try:
        async with aclosing(serving(body_chunks).stream({})) as events:
            async for e in events:
                out.append(repr(e))
    except Exception as exc:  # failed/incomplete captures end in their typed error
        out.append(f"{type(exc).__name__}: {exc}")
    return out


def _split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    pieces, start = [], 0
    for p in points:
        pieces.append(body[start:p])
        start = p
    pieces.append(body[start:])
    return [p for p in pieces if p]


EXPECTED: dict[str, list[str]] = {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(SAMPLE) - 1), cuts=st.lists(st.integers(0, 10**7), max_size=40))
async def test_arbitrary_chunk_boundaries_give_identical_events(index, cuts):
    rec = SAMPLE[index]
    if rec.name not in EXPECTED:
        EXPECTED[rec.name] = await _events([rec.body])
    assert await _events(_split(rec.body, cuts)) == EXPECTED[rec.name]


async def test_byte_at_a_time_equals_one_chunk():
    rec = SAMPLE[0]
    assert any(ord(c) > 127 for c in rec.body.decode())
    whole = await _events([rec.body])
    assert len(whole) > 3
    assert await _events([rec.body[i:i + 1] for i in range(len(rec.body))]) == whole
